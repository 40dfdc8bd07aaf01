//! The OAuth client side: discovery, client identity, the grants, token storage.

mod assertion;
pub(crate) mod challenge;
mod discovery;
mod dpop;
mod http;
mod store;
mod user_agent;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use ::http::{HeaderMap, HeaderValue, Method};
use serde_json::{Value, json};
use url::Url;

pub use assertion::{
    AssertionFn, AssertionRequest, AssertionSource, IdJagExchange, StaticAssertion, assertion_fn,
};
pub use discovery::AuthorizationServerMetadata;
pub use dpop::DpopKey;
pub use store::{BoxFuture, InMemoryTokenStore, StoredToken, TokenKey, TokenStore, TokenType};
pub use user_agent::{HeadlessUserAgent, LoopbackUserAgent, UserAgent};

use self::assertion::JWT_BEARER;

use self::discovery::Discovered;
use self::http::{basic, oauth_error, pkce, random_string, send};
use crate::{Error, Result};

/// How long before its expiry an access token is refreshed.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);

/// What the caller should do after [`OAuthClient::handle_challenge`].
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// A new token was obtained: send the request again (with a fresh
    /// [`authorization_header`](OAuthClient::authorization_header)).
    Yes,
    /// The response was not an authorization challenge: pass it on as it is.
    No,
}

/// How the client authenticates at the token endpoint.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenEndpointAuthMethod {
    /// A public client: `client_id` in the form, no secret.
    None,
    /// HTTP Basic with the client id and secret (RFC 6749 §2.3.1).
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form.
    ClientSecretPost,
    /// A JWT signed with the client's private key (RFC 7523 §2.2).
    PrivateKeyJwt,
}

impl TokenEndpointAuthMethod {
    /// The registered name (`client_secret_basic`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::ClientSecretBasic => "client_secret_basic",
            Self::ClientSecretPost => "client_secret_post",
            Self::PrivateKeyJwt => "private_key_jwt",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "none" => Self::None,
            "client_secret_basic" => Self::ClientSecretBasic,
            "client_secret_post" => Self::ClientSecretPost,
            "private_key_jwt" => Self::PrivateKeyJwt,
            _ => return None,
        })
    }
}

/// A private key for `private_key_jwt`.
#[derive(Clone)]
struct SigningKey {
    key: jsonwebtoken::EncodingKey,
    algorithm: jsonwebtoken::Algorithm,
    kid: Option<String>,
}

/// A client identity at one authorization server.
#[derive(Clone)]
struct ClientInfo {
    client_id: String,
    secret: Option<String>,
    method: TokenEndpointAuthMethod,
}

impl fmt::Debug for ClientInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientInfo")
            .field("client_id", &self.client_id)
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
enum Grant {
    AuthorizationCode(Arc<dyn UserAgent>),
    ClientCredentials,
    JwtBearer(Arc<dyn AssertionSource>),
}

impl Grant {
    fn name(&self) -> &'static str {
        match self {
            Grant::AuthorizationCode(_) => "authorization code",
            Grant::ClientCredentials => "client credentials",
            Grant::JwtBearer(_) => "JWT bearer",
        }
    }
}

/// An OAuth 2.1 client for one MCP server, as MCP authorization (2025-11-25, with the
/// 2025-03-26 fallbacks) describes it.
///
/// It starts knowing only the MCP server's URL. When the server answers 401, give the
/// challenge to [`handle_challenge`](Self::handle_challenge): the client reads
/// `resource_metadata` and `scope` from `WWW-Authenticate`, discovers the protected resource
/// metadata (RFC 9728) and the authorization server's metadata (RFC 8414 / OpenID Connect
/// Discovery), obtains a client identity (pre-registered, a Client ID Metadata Document, or
/// dynamic registration), runs the grant (authorization code with PKCE S256 through a
/// [`UserAgent`], client credentials, or a JWT bearer grant with an assertion from an
/// [`AssertionSource`]) with the `resource` indicator (RFC 8707), and stores the token in its
/// [`TokenStore`]. [`authorization_header`](Self::authorization_header) then gives the
/// `Authorization: Bearer` value for each request, refreshing the access token when it is
/// about to expire. A 403 `insufficient_scope` challenge triggers step-up authorization with
/// the union of the scopes.
///
/// With a [`DpopKey`] ([`OAuthClientBuilder::dpop`]), an authorization server taking ES256
/// DPoP proofs and an MCP server taking DPoP tokens, tokens are bound to the key (RFC 9449): use
/// [`request_headers`](Self::request_headers), which adds the per-request `DPoP` proof, and
/// report `DPoP-Nonce` headers with [`dpop_nonce`](Self::dpop_nonce).
///
/// It is cheap to clone (clones share their state); flows are serialized, so concurrent
/// requests that all get a 401 cause one authorization.
///
/// ```no_run
/// # async fn run() -> mcp_auth::Result<()> {
/// use mcp_auth::{LoopbackUserAgent, OAuthClient, Retry};
///
/// let oauth = OAuthClient::builder("https://mcp.example.com/mcp")
///     .user_agent(LoopbackUserAgent::bind(0)?)
///     .client_name("my MCP client")
///     .build()?;
/// let http = reqwest::Client::new();
/// loop {
///     let mut request = http.post("https://mcp.example.com/mcp").body("{}");
///     if let Some(value) = oauth.authorization_header().await? {
///         request = request.header(http::header::AUTHORIZATION, value);
///     }
///     let response = request.send().await.expect("network");
///     let challenge = response
///         .headers()
///         .get(http::header::WWW_AUTHENTICATE)
///         .and_then(|v| v.to_str().ok())
///         .unwrap_or_default();
///     match oauth.handle_challenge(response.status().as_u16(), challenge).await? {
///         Retry::Yes => continue,
///         Retry::No => break,
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct OAuthClient {
    inner: Arc<Inner>,
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClient")
            .field("server_url", &self.inner.server_url)
            .finish_non_exhaustive()
    }
}

struct Inner {
    server_url: String,
    http: reqwest::Client,
    grant: Grant,
    client_id: Option<String>,
    client_secret: Option<String>,
    auth_method: Option<TokenEndpointAuthMethod>,
    signing_key: Option<SigningKey>,
    dpop: Option<DpopKey>,
    /// The `DPoP-Nonce` of each server, outside `state` so that recording one never waits
    /// for a flow.
    nonces: dpop::Nonces,
    metadata_document_url: Option<String>,
    client_name: String,
    scopes: Option<Vec<String>>,
    store: Arc<dyn TokenStore>,
    max_attempts: u32,
    challenge_window: std::time::Duration,
    state: tokio::sync::Mutex<State>,
}

#[derive(Default)]
struct State {
    session: Option<Session>,
    /// Identities obtained by registration, by issuer.
    registered: HashMap<String, ClientInfo>,
    /// Consecutive 401 / 403 challenges handled.
    attempts: u32,
    /// When the last challenge was handled.
    last_challenge: Option<tokio::time::Instant>,
}

/// The default of [`OAuthClientBuilder::challenge_window`].
const DEFAULT_CHALLENGE_WINDOW: std::time::Duration = std::time::Duration::from_secs(60);

/// How many consecutive challenges there are, counting the one arriving `now`: challenges
/// count as consecutive while each comes within `window` of the previous one. A transport hook
/// reports refusals only (never the successes in between), so without the window a client
/// would hit its retry limit after `max_attempts` refusals spread over its whole life.
fn consecutive_attempts(
    attempts: u32,
    last: Option<tokio::time::Instant>,
    now: tokio::time::Instant,
    window: std::time::Duration,
) -> u32 {
    match last {
        Some(last) if now.saturating_duration_since(last) <= window => attempts + 1,
        _ => 1,
    }
}

struct Session {
    discovered: Discovered,
    key: TokenKey,
    client: ClientInfo,
    /// The scopes last requested (`None`: the `scope` parameter was omitted).
    scopes: Option<Vec<String>>,
    /// Whether tokens are requested bound to the DPoP key (the client has one, and both the
    /// authorization server and the MCP server take DPoP).
    dpop: bool,
}

impl OAuthClient {
    /// Starts configuring a client for the MCP server at `server_url` (the endpoint URL).
    pub fn builder(server_url: impl Into<String>) -> OAuthClientBuilder {
        OAuthClientBuilder {
            server_url: server_url.into(),
            http: None,
            grant: None,
            client_id: None,
            client_secret: None,
            auth_method: None,
            signing_key: None,
            dpop: None,
            metadata_document_url: None,
            client_name: "mcp-auth".to_owned(),
            scopes: None,
            store: None,
            max_attempts: 3,
            challenge_window: DEFAULT_CHALLENGE_WINDOW,
        }
    }

    /// The MCP server's canonical URI (the default resource indicator).
    pub fn server_url(&self) -> &str {
        &self.inner.server_url
    }

    /// The metadata of the authorization server in use, once discovered.
    pub async fn authorization_server(&self) -> Option<AuthorizationServerMetadata> {
        let state = self.inner.state.lock().await;
        state
            .session
            .as_ref()
            .map(|s| s.discovered.metadata.clone())
    }

    /// The key of the current token in the [`TokenStore`], once discovered.
    pub async fn token_key(&self) -> Option<TokenKey> {
        let state = self.inner.state.lock().await;
        state.session.as_ref().map(|s| s.key.clone())
    }

    /// The `Authorization` header value for the next request (`Bearer <access token>`, marked
    /// sensitive), or `None` before the first authorization.
    ///
    /// An access token that has expired (or will within 30 s) is refreshed first, with the
    /// refresh token (whose rotation is followed) or, for client credentials, a new grant; if
    /// that fails the token is forgotten and `None` returned, so that the server's 401 starts
    /// a new authorization. Waits while a flow runs.
    ///
    /// A token bound to the DPoP key cannot be presented by this header alone: that is an
    /// [`Error::Config`]; use [`request_headers`](Self::request_headers).
    pub async fn authorization_header(&self) -> Result<Option<HeaderValue>> {
        match self.current_token().await? {
            None => Ok(None),
            Some(token) if token.token_type == TokenType::Dpop => Err(Error::Config(
                "the access token is bound to the DPoP key: use `request_headers`, which adds \
                 the DPoP proof"
                    .into(),
            )),
            Some(token) => sensitive(format!("Bearer {}", token.access_token)).map(Some),
        }
    }

    /// The authorization headers of a request with `method` to `url` (the MCP endpoint):
    /// `Authorization: Bearer <token>`, or for a token bound to the DPoP key
    /// `Authorization: DPoP <token>` and a fresh `DPoP` proof for this method and URL, with
    /// the server's last nonce (RFC 9449 §7.1, §9). Empty before the first authorization.
    /// Renews an expiring token as [`authorization_header`](Self::authorization_header) does.
    pub async fn request_headers(&self, method: &Method, url: &Url) -> Result<HeaderMap> {
        let mut headers = HeaderMap::new();
        let Some(token) = self.current_token().await? else {
            return Ok(headers);
        };
        match (token.token_type, &self.inner.dpop) {
            (TokenType::Dpop, Some(key)) => {
                let nonce = self.inner.nonces.get(url);
                let proof = key.proof(
                    method.as_str(),
                    url,
                    Some(&token.access_token),
                    nonce.as_deref(),
                )?;
                headers.insert(
                    ::http::header::AUTHORIZATION,
                    sensitive(format!("DPoP {}", token.access_token))?,
                );
                headers.insert("dpop", sensitive(proof)?);
            }
            (TokenType::Dpop, None) => {
                return Err(Error::Config(
                    "the stored access token is DPoP-bound but the client has no DPoP key".into(),
                ));
            }
            _ => {
                headers.insert(
                    ::http::header::AUTHORIZATION,
                    sensitive(format!("Bearer {}", token.access_token))?,
                );
            }
        }
        Ok(headers)
    }

    /// Records a `DPoP-Nonce` header that the server at `url` sent (RFC 9449 §9): the next
    /// proofs for that server carry it. Call it for every response that has one, and before
    /// [`handle_challenge`](Self::handle_challenge) for a `use_dpop_nonce` refusal. An
    /// unparsable `url` is ignored.
    pub fn dpop_nonce(&self, url: &str, nonce: &str) {
        if let Ok(url) = Url::parse(url) {
            self.inner.nonces.set(&url, nonce);
        }
    }

    /// The access token to present, renewed first if it is about to expire (`None` if there
    /// is none, or renewal failed and it was forgotten).
    async fn current_token(&self) -> Result<Option<StoredToken>> {
        let mut state = self.inner.state.lock().await;
        let Some(session) = state.session.as_mut() else {
            return Ok(None);
        };
        let Some(token) = self.inner.store.load(&session.key).await? else {
            return Ok(None);
        };
        if !token.expires_within(EXPIRY_MARGIN) {
            return Ok(Some(token));
        }
        match self.renew(session, &token).await {
            Ok(token) => Ok(Some(token)),
            Err(error) => {
                tracing::debug!(%error, "cannot renew the access token");
                self.inner.store.remove(&session.key).await?;
                Ok(None)
            }
        }
    }

    /// Acts on a response from the MCP server: call it with the status and the
    /// `WWW-Authenticate` header (`""` if absent) of every response.
    ///
    /// - 401: a stale token is refreshed if possible; otherwise discovery runs (from the
    ///   challenge's `resource_metadata`), then the grant, with the challenge's `scope`, else
    ///   the protected resource's `scopes_supported`, else no `scope`. [`Retry::Yes`].
    /// - 403 with `error="insufficient_scope"`: step-up, a new grant for the union of the
    ///   scopes held and those of the challenge. [`Retry::Yes`].
    /// - 401 with `error="use_dpop_nonce"` (a `DPoP` challenge): the server wants its nonce
    ///   in the proof. [`Retry::Yes`] if [`dpop_nonce`](Self::dpop_nonce) recorded one for the
    ///   server, else [`Error::Rejected`]. The token is kept.
    /// - anything else: [`Retry::No`], and the attempt counter is reset.
    ///
    /// Challenges are consecutive while each arrives within the challenge window (60 s by
    /// default, [`OAuthClientBuilder::challenge_window`]) of the previous one.
    /// After `max_attempts` (3 by default) consecutive challenges it fails with
    /// [`Error::RetryLimit`]. Not cancel-safe in one respect: a flow dropped after the
    /// authorization server issued a token loses that token (nothing else is left behind).
    pub async fn handle_challenge(&self, status: u16, www_authenticate: &str) -> Result<Retry> {
        let challenge = challenge::parse(www_authenticate).unwrap_or_default();
        let step_up = status == 403 && challenge.error.as_deref() == Some("insufficient_scope");
        let mut state = self.inner.state.lock().await;
        if status != 401 && !step_up {
            state.attempts = 0;
            return Ok(Retry::No);
        }
        let now = tokio::time::Instant::now();
        state.attempts = consecutive_attempts(
            state.attempts,
            state.last_challenge,
            now,
            self.inner.challenge_window,
        );
        state.last_challenge = Some(now);
        if state.attempts > self.inner.max_attempts {
            state.attempts = 0;
            return Err(Error::RetryLimit(self.inner.max_attempts));
        }
        if status == 401 && challenge.error.as_deref() == Some("use_dpop_nonce") {
            let known = Url::parse(&self.inner.server_url)
                .ok()
                .and_then(|url| self.inner.nonces.get(&url));
            return match (&self.inner.dpop, known) {
                (Some(_), Some(_)) => Ok(Retry::Yes),
                _ => Err(Error::Rejected(
                    "the server asks for a DPoP nonce (use_dpop_nonce) but none was recorded \
                     (`dpop_nonce`)"
                        .into(),
                )),
            };
        }
        let challenge_scopes = challenge
            .scope
            .as_deref()
            .map(|s| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .filter(|s| !s.is_empty());

        if status == 401
            && let Some(session) = state.session.as_mut()
            && let Some(token) = self.inner.store.load(&session.key).await?
        {
            // First try to renew what we have, unless the server asks for other scopes.
            let wants_more = challenge_scopes
                .as_ref()
                .is_some_and(|want| want.iter().any(|s| !token.scopes.contains(s)));
            self.inner.store.remove(&session.key).await?;
            if !wants_more && (token.refresh_token.is_some()) {
                match self.renew(session, &token).await {
                    Ok(_) => return Ok(Retry::Yes),
                    Err(error) => tracing::debug!(%error, "refresh failed; authorizing again"),
                }
            }
        }

        if step_up && let Some(mut session) = state.session.take() {
            let mut scopes = session.scopes.clone().unwrap_or_default();
            for scope in challenge_scopes.unwrap_or_default() {
                if !scopes.contains(&scope) {
                    scopes.push(scope);
                }
            }
            session.scopes = (!scopes.is_empty()).then_some(scopes);
            let session = self.obtain(session).await?;
            state.session = Some(session);
            return Ok(Retry::Yes);
        }

        // A fresh discovery: the server may have moved to another authorization server.
        let discovered = discovery::discover(
            &self.inner.http,
            &self.inner.server_url,
            challenge.resource_metadata.as_deref(),
        )
        .await?;
        let issuer = discovered.metadata.issuer.clone();
        let client = match state.registered.get(&issuer) {
            Some(client) => client.clone(),
            None => {
                let client = self.identify(&discovered.metadata).await?;
                state.registered.insert(issuer.clone(), client.clone());
                client
            }
        };
        let scopes = self
            .inner
            .scopes
            .clone()
            .or(challenge_scopes)
            .or_else(|| discovered.resource_scopes.clone().filter(|s| !s.is_empty()));
        let dpop = self.dpop_supported(&discovered, challenge.dpop);
        let session = Session {
            key: TokenKey {
                issuer,
                resource: discovered.resource.clone(),
            },
            discovered,
            client,
            scopes,
            dpop,
        };
        state.session = Some(self.obtain(session).await?);
        Ok(Retry::Yes)
    }

    /// Runs the configured grant for `session` and stores the token.
    async fn obtain(&self, session: Session) -> Result<Session> {
        let token = match &self.inner.grant {
            Grant::AuthorizationCode(agent) => {
                self.authorization_code(&session, agent.as_ref()).await?
            }
            Grant::ClientCredentials => self.client_credentials(&session).await?,
            Grant::JwtBearer(source) => self.jwt_bearer(&session, source.as_ref()).await?,
        };
        self.inner.store.save(&session.key, token).await?;
        Ok(session)
    }

    /// Whether to bind tokens to the DPoP key: there is a key, the authorization server lists
    /// its algorithm, and the resource server takes DPoP tokens (its challenge offered the
    /// `DPoP` scheme, or its metadata lists the algorithm or requires bound tokens). A server
    /// that only speaks `Bearer` would refuse a bound token, so it gets bearer tokens.
    fn dpop_supported(&self, discovered: &Discovered, challenge_offers_dpop: bool) -> bool {
        let Some(key) = &self.inner.dpop else {
            return false;
        };
        let lists = |algs: &Option<Vec<String>>| {
            algs.as_ref()
                .is_some_and(|algs| algs.iter().any(|a| a == key.algorithm()))
        };
        lists(&discovered.metadata.dpop_signing_alg_values_supported)
            && (challenge_offers_dpop
                || discovered.resource_dpop_required
                || lists(&discovered.resource_dpop_algs))
    }

    /// A new access token for an expired one: refresh, or client credentials again.
    async fn renew(&self, session: &Session, token: &StoredToken) -> Result<StoredToken> {
        let new = match (&token.refresh_token, &self.inner.grant) {
            (Some(refresh), _) => {
                let form = vec![
                    ("grant_type", "refresh_token".to_owned()),
                    ("refresh_token", refresh.clone()),
                    ("resource", session.key.resource.clone()),
                ];
                let mut new = self.token_request(session, form, &token.scopes).await?;
                // No new refresh token: the old one stays valid (no rotation).
                if new.refresh_token.is_none() {
                    new.refresh_token = Some(refresh.clone());
                }
                new
            }
            (None, Grant::ClientCredentials) => self.client_credentials(session).await?,
            (None, Grant::JwtBearer(source)) => self.jwt_bearer(session, source.as_ref()).await?,
            (None, Grant::AuthorizationCode(_)) => {
                return Err(Error::Unsupported("no refresh token".into()));
            }
        };
        self.inner.store.save(&session.key, new.clone()).await?;
        Ok(new)
    }

    async fn client_credentials(&self, session: &Session) -> Result<StoredToken> {
        let mut form = vec![
            ("grant_type", "client_credentials".to_owned()),
            ("resource", session.key.resource.clone()),
        ];
        if let Some(scopes) = &session.scopes {
            form.push(("scope", scopes.join(" ")));
        }
        let requested = session.scopes.clone().unwrap_or_default();
        self.token_request(session, form, &requested).await
    }

    /// The JWT bearer grant (RFC 7523 §2.1) with an assertion from `source`.
    async fn jwt_bearer(
        &self,
        session: &Session,
        source: &dyn AssertionSource,
    ) -> Result<StoredToken> {
        let metadata = &session.discovered.metadata;
        let assertion = source
            .assertion(AssertionRequest {
                issuer: metadata.issuer.clone(),
                token_endpoint: metadata.token_endpoint.clone(),
                resource: session.key.resource.clone(),
                scopes: session.scopes.clone(),
                http: self.inner.http.clone(),
            })
            .await?;
        let mut form = vec![
            ("grant_type", JWT_BEARER.to_owned()),
            ("assertion", assertion),
            ("resource", session.key.resource.clone()),
        ];
        if let Some(scopes) = &session.scopes {
            form.push(("scope", scopes.join(" ")));
        }
        let requested = session.scopes.clone().unwrap_or_default();
        self.token_request(session, form, &requested).await
    }

    async fn authorization_code(
        &self,
        session: &Session,
        agent: &dyn UserAgent,
    ) -> Result<StoredToken> {
        let metadata = &session.discovered.metadata;
        let endpoint = metadata.authorization_endpoint.as_deref().ok_or_else(|| {
            Error::Unsupported(format!(
                "authorization server `{}` has no authorization endpoint",
                metadata.issuer
            ))
        })?;
        // MCP: no PKCE S256 advertised, no authorization.
        if !metadata
            .code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m == "S256"))
        {
            return Err(Error::Unsupported(format!(
                "authorization server `{}` does not advertise PKCE with S256",
                metadata.issuer
            )));
        }
        let (verifier, code_challenge) = pkce()?;
        let state = random_string(32)?;
        let mut url = Url::parse(endpoint)
            .map_err(|e| Error::Rejected(format!("authorization endpoint `{endpoint}`: {e}")))?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &session.client.client_id)
                .append_pair("redirect_uri", agent.redirect_uri())
                .append_pair("code_challenge", &code_challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", &session.key.resource);
            if let Some(scopes) = &session.scopes {
                query.append_pair("scope", &scopes.join(" "));
            }
            if let (true, Some(key)) = (session.dpop, &self.inner.dpop) {
                // RFC 9449 §10: bind the authorization code to the key as well.
                query.append_pair("dpop_jkt", key.thumbprint());
            }
        }
        let redirect = agent.authorize(&url).await?;
        let params: HashMap<String, String> = redirect.query_pairs().into_owned().collect();
        if params.get("state") != Some(&state) {
            return Err(Error::Rejected(
                "the authorization response's state does not match".into(),
            ));
        }
        // RFC 9207: a present `iss` must be the issuer (byte for byte); a server advertising
        // the parameter must send it.
        match params.get("iss") {
            Some(iss) if *iss != metadata.issuer => {
                return Err(Error::Rejected(format!(
                    "the authorization response comes from issuer `{iss}`, not `{}`",
                    metadata.issuer
                )));
            }
            None if metadata.authorization_response_iss_parameter_supported => {
                return Err(Error::Rejected(
                    "the authorization response lacks the iss parameter its server advertises"
                        .into(),
                ));
            }
            _ => {}
        }
        if let Some(error) = params.get("error") {
            return Err(Error::OAuth {
                error: error.clone(),
                description: params.get("error_description").cloned(),
            });
        }
        let code = params.get("code").ok_or_else(|| {
            Error::Rejected("the authorization response has neither code nor error".into())
        })?;
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.clone()),
            ("redirect_uri", agent.redirect_uri().to_owned()),
            ("code_verifier", verifier),
            ("resource", session.key.resource.clone()),
        ];
        let requested = session.scopes.clone().unwrap_or_default();
        self.token_request(session, form, &requested).await
    }

    /// POSTs `form` to the token endpoint with client authentication (and a DPoP proof when
    /// the session binds tokens to the key) and reads the token. A `use_dpop_nonce` refusal
    /// that supplies a new nonce is retried once with it (RFC 9449 §8).
    async fn token_request(
        &self,
        session: &Session,
        form: Vec<(&'static str, String)>,
        requested: &[String],
    ) -> Result<StoredToken> {
        let metadata = &session.discovered.metadata;
        let dpop = match (session.dpop, &self.inner.dpop) {
            (true, Some(key)) => {
                let url = Url::parse(&metadata.token_endpoint).map_err(|e| {
                    Error::Rejected(format!("token endpoint `{}`: {e}", metadata.token_endpoint))
                })?;
                Some((key, url))
            }
            _ => None,
        };
        let mut nonce_retried = false;
        let json = loop {
            let mut request = self.inner.http.post(&metadata.token_endpoint);
            let mut form = form.clone();
            if let Some(basic) = self.authenticate(session, &mut form)? {
                request = request.header(::http::header::AUTHORIZATION, basic);
            }
            if let Some((key, url)) = &dpop {
                let nonce = self.inner.nonces.get(url);
                request = request.header("dpop", key.proof("POST", url, None, nonce.as_deref())?);
            }
            let body = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&form)
                .finish();
            let response = send(
                request
                    .header(
                        ::http::header::CONTENT_TYPE,
                        "application/x-www-form-urlencoded",
                    )
                    .body(body),
                "token request",
            )
            .await?;
            let fresh_nonce = match (&dpop, &response.dpop_nonce) {
                (Some((_, url)), Some(nonce)) => self.inner.nonces.set(url, nonce),
                _ => false,
            };
            let json = response.json("token response");
            if response.is_success() {
                break json?;
            }
            let json = json.ok();
            let error = json
                .as_ref()
                .and_then(|j| j.get("error"))
                .and_then(Value::as_str);
            if error == Some("use_dpop_nonce") && fresh_nonce && !nonce_retried {
                tracing::debug!("the authorization server wants a DPoP nonce; sending again");
                nonce_retried = true;
                continue;
            }
            return Err(oauth_error(json.as_ref(), "token request", response.status));
        };
        let access_token = json
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| Error::authorization_server_msg("token response: no access_token"))?;
        let token_type = json.get("token_type").and_then(Value::as_str).unwrap_or("");
        let token_type = if token_type.eq_ignore_ascii_case("bearer") {
            TokenType::Bearer
        } else if token_type.eq_ignore_ascii_case("dpop") && dpop.is_some() {
            TokenType::Dpop
        } else {
            return Err(Error::Unsupported(format!(
                "token type `{token_type}` (Bearer, or DPoP when a proof was sent)"
            )));
        };
        let scopes = match json.get("scope").and_then(Value::as_str) {
            Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
            None => requested.to_vec(),
        };
        Ok(StoredToken {
            access_token: access_token.to_owned(),
            token_type,
            refresh_token: json
                .get("refresh_token")
                .and_then(Value::as_str)
                .map(str::to_owned),
            expires_at: json
                .get("expires_in")
                .and_then(Value::as_u64)
                .map(|s| SystemTime::now() + Duration::from_secs(s)),
            scopes,
        })
    }

    /// Adds the client authentication of `session` to a token request's form; the
    /// `Authorization` header to send, for `client_secret_basic`.
    fn authenticate(
        &self,
        session: &Session,
        form: &mut Vec<(&'static str, String)>,
    ) -> Result<Option<String>> {
        let client = &session.client;
        match client.method {
            TokenEndpointAuthMethod::None => form.push(("client_id", client.client_id.clone())),
            TokenEndpointAuthMethod::ClientSecretBasic => {
                let secret = client.secret.as_deref().unwrap_or_default();
                return Ok(Some(basic(&client.client_id, secret)));
            }
            TokenEndpointAuthMethod::ClientSecretPost => {
                form.push(("client_id", client.client_id.clone()));
                form.push(("client_secret", client.secret.clone().unwrap_or_default()));
            }
            TokenEndpointAuthMethod::PrivateKeyJwt => {
                form.push(("client_id", client.client_id.clone()));
                form.push((
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
                ));
                form.push(("client_assertion", self.client_assertion(session)?));
            }
        }
        Ok(None)
    }

    /// The `private_key_jwt` assertion (RFC 7523 §3): `iss` = `sub` = client id, `aud` = the
    /// issuer, a unique `jti`, valid for 5 minutes.
    fn client_assertion(&self, session: &Session) -> Result<String> {
        let key = self.inner.signing_key.as_ref().ok_or_else(|| {
            Error::Config("private_key_jwt needs a signing key (`private_key_jwt`)".into())
        })?;
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let claims = json!({
            "iss": session.client.client_id,
            "sub": session.client.client_id,
            "aud": session.discovered.metadata.issuer,
            "jti": random_string(16)?,
            "iat": now,
            "exp": now + 300,
        });
        let mut header = jsonwebtoken::Header::new(key.algorithm);
        header.kid = key.kid.clone();
        jsonwebtoken::encode(&header, &claims, &key.key)
            .map_err(|e| Error::Config(format!("cannot sign the client assertion: {e}")))
    }

    /// The client identity to use at the authorization server of `metadata`, in the spec's
    /// order: pre-registered, Client ID Metadata Document, dynamic registration.
    async fn identify(&self, metadata: &AuthorizationServerMetadata) -> Result<ClientInfo> {
        let inner = &self.inner;
        let supported = |m: TokenEndpointAuthMethod| {
            metadata
                .token_endpoint_auth_methods_supported
                .as_ref()
                .is_none_or(|list| list.iter().any(|s| s == m.as_str()))
        };
        if let Some(client_id) = &inner.client_id {
            let method = inner.auth_method.unwrap_or_else(|| {
                if inner.signing_key.is_some() {
                    TokenEndpointAuthMethod::PrivateKeyJwt
                } else if inner.client_secret.is_none() {
                    TokenEndpointAuthMethod::None
                } else if !supported(TokenEndpointAuthMethod::ClientSecretBasic)
                    && supported(TokenEndpointAuthMethod::ClientSecretPost)
                {
                    TokenEndpointAuthMethod::ClientSecretPost
                } else {
                    TokenEndpointAuthMethod::ClientSecretBasic
                }
            });
            return Ok(ClientInfo {
                client_id: client_id.clone(),
                secret: inner.client_secret.clone(),
                method,
            });
        }
        let Grant::AuthorizationCode(agent) = &inner.grant else {
            return Err(Error::Config(format!(
                "the {} grant needs a pre-registered client id",
                inner.grant.name()
            )));
        };
        if let Some(url) = &inner.metadata_document_url
            && metadata.client_id_metadata_document_supported
        {
            return Ok(ClientInfo {
                client_id: url.clone(),
                secret: None,
                method: TokenEndpointAuthMethod::None,
            });
        }
        let Some(endpoint) = &metadata.registration_endpoint else {
            return Err(Error::Unsupported(format!(
                "no client identity for authorization server `{}`: no pre-registered client id, \
                 no Client ID Metadata Document support{}, no registration endpoint",
                metadata.issuer,
                if inner.metadata_document_url.is_some() {
                    ""
                } else {
                    " (or none configured)"
                }
            )));
        };
        // A public client unless the server only takes secrets.
        let method = [
            TokenEndpointAuthMethod::None,
            TokenEndpointAuthMethod::ClientSecretBasic,
            TokenEndpointAuthMethod::ClientSecretPost,
        ]
        .into_iter()
        .find(|m| supported(*m))
        .unwrap_or(TokenEndpointAuthMethod::None);
        let mut request = json!({
            "client_name": inner.client_name,
            "redirect_uris": [agent.redirect_uri()],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method.as_str(),
        });
        if Url::parse(agent.redirect_uri())
            .is_ok_and(|u| matches!(u.host_str(), Some("127.0.0.1" | "localhost" | "[::1]")))
        {
            // OpenID Connect registration: loopback redirects belong to native clients.
            request["application_type"] = json!("native");
        }
        let response = send(
            inner
                .http
                .post(endpoint)
                .header(::http::header::CONTENT_TYPE, "application/json")
                .body(request.to_string()),
            "client registration",
        )
        .await?;
        let json = response.json("client registration");
        if !response.is_success() {
            return Err(oauth_error(
                json.ok().as_ref(),
                "client registration",
                response.status,
            ));
        }
        let json = json?;
        let client_id = json
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::authorization_server_msg("client registration: no client_id"))?;
        let secret = json
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let method = json
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .and_then(TokenEndpointAuthMethod::parse)
            .unwrap_or(if secret.is_some() {
                TokenEndpointAuthMethod::ClientSecretBasic
            } else {
                TokenEndpointAuthMethod::None
            });
        tracing::debug!(client_id, method = method.as_str(), "registered the client");
        Ok(ClientInfo {
            client_id: client_id.to_owned(),
            secret,
            method,
        })
    }
}

/// A header value holding a token or proof: marked sensitive (kept out of logs and HPACK).
fn sensitive(value: String) -> Result<HeaderValue> {
    let mut value = HeaderValue::try_from(value).map_err(|_| {
        Error::authorization_server_msg("the access token is not a valid header value")
    })?;
    value.set_sensitive(true);
    Ok(value)
}

/// Builds an [`OAuthClient`]; see [`OAuthClient::builder`].
pub struct OAuthClientBuilder {
    server_url: String,
    http: Option<reqwest::Client>,
    grant: Option<Grant>,
    client_id: Option<String>,
    client_secret: Option<String>,
    auth_method: Option<TokenEndpointAuthMethod>,
    signing_key: Option<SigningKey>,
    dpop: Option<DpopKey>,
    metadata_document_url: Option<String>,
    client_name: String,
    scopes: Option<Vec<String>>,
    store: Option<Arc<dyn TokenStore>>,
    max_attempts: u32,
    challenge_window: std::time::Duration,
}

impl fmt::Debug for OAuthClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClientBuilder")
            .field("server_url", &self.server_url)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl OAuthClientBuilder {
    /// Uses the authorization-code grant (with PKCE), with `agent` for the user's part.
    pub fn user_agent(mut self, agent: impl UserAgent) -> Self {
        self.grant = Some(Grant::AuthorizationCode(Arc::new(agent)));
        self
    }

    /// Uses the client credentials grant (the client acts on its own behalf); needs a
    /// pre-registered [`client_id`](Self::client_id) with a secret or a private key.
    pub fn client_credentials(mut self) -> Self {
        self.grant = Some(Grant::ClientCredentials);
        self
    }

    /// A pre-registered client id (used in preference to any other way of identifying).
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The pre-registered client's secret.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// How the pre-registered client authenticates at the token endpoint. By default:
    /// `private_key_jwt` with a key, `none` without a secret, else `client_secret_basic`
    /// (`client_secret_post` if the server only advertises that).
    pub fn token_endpoint_auth_method(mut self, method: TokenEndpointAuthMethod) -> Self {
        self.auth_method = Some(method);
        self
    }

    /// Uses the JWT bearer grant (RFC 7523 §2.1) with assertions from `source`: a workload
    /// identity token ([`StaticAssertion`], [`assertion_fn`]: workload identity federation),
    /// or an ID-JAG from the enterprise identity provider ([`IdJagExchange`]:
    /// enterprise-managed authorization). Needs a pre-registered
    /// [`client_id`](Self::client_id) (with a secret or key if the server authenticates
    /// clients). A refused grant is an error, never retried with another grant type.
    pub fn jwt_bearer(mut self, source: impl AssertionSource) -> Self {
        self.grant = Some(Grant::JwtBearer(Arc::new(source)));
        self
    }

    /// Binds tokens to `key` with DPoP (RFC 9449) when the authorization server lists ES256 in
    /// `dpop_signing_alg_values_supported` and the MCP server takes DPoP tokens (its 401
    /// offers the `DPoP` scheme, or its protected resource metadata lists ES256 in
    /// `dpop_signing_alg_values_supported` or sets `dpop_bound_access_tokens_required`);
    /// otherwise tokens stay bearer tokens. Present them with
    /// [`OAuthClient::request_headers`].
    pub fn dpop(mut self, key: DpopKey) -> Self {
        self.dpop = Some(key);
        self
    }

    /// The pre-registered client's private key for `private_key_jwt` (its public key is
    /// registered with the authorization server), with the JWS algorithm and key id. From a
    /// PEM file: `jsonwebtoken::EncodingKey::from_ec_pem` (or `from_rsa_pem`, `from_ed_pem`).
    pub fn private_key_jwt(
        mut self,
        key: jsonwebtoken::EncodingKey,
        algorithm: jsonwebtoken::Algorithm,
        kid: Option<String>,
    ) -> Self {
        self.signing_key = Some(SigningKey {
            key,
            algorithm,
            kid,
        });
        self
    }

    /// The URL of this client's Client ID Metadata Document (an `https` URL with a path,
    /// listing the user agent's redirect URI), used as client id by authorization servers
    /// that advertise `client_id_metadata_document_supported`.
    pub fn client_metadata_document_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_document_url = Some(url.into());
        self
    }

    /// The `client_name` sent in dynamic registration (`mcp-auth` by default).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Requests these scopes at first, whatever the challenge and metadata say.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Where tokens are kept ([`InMemoryTokenStore`] by default).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// The HTTP client for metadata, registration and token requests (it should not follow
    /// redirects). By default: timeouts of 10 s to connect and 30 s in all, no redirects.
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = Some(http);
        self
    }

    /// How many consecutive challenges [`OAuthClient::handle_challenge`] handles before
    /// [`Error::RetryLimit`] (3 by default).
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts;
        self
    }

    /// How close together challenges must come to count as consecutive (60 s by default):
    /// a challenge later than this after the previous one starts the count again.
    pub fn challenge_window(mut self, window: std::time::Duration) -> Self {
        self.challenge_window = window;
        self
    }

    /// Checks the configuration and builds the client.
    ///
    /// Fails with [`Error::Config`] if the server URL is not an absolute `http(s)` URL, if no
    /// grant was chosen, or if client credentials lack a client id.
    pub fn build(self) -> Result<OAuthClient> {
        let server_url = discovery::canonical_resource(&self.server_url)?;
        let grant = self.grant.ok_or_else(|| {
            Error::Config(
                "choose a grant: `user_agent(...)`, `client_credentials()` or `jwt_bearer(...)`"
                    .into(),
            )
        })?;
        if !matches!(grant, Grant::AuthorizationCode(_)) && self.client_id.is_none() {
            return Err(Error::Config(format!(
                "the {} grant needs a client id",
                grant.name()
            )));
        }
        Ok(OAuthClient {
            inner: Arc::new(Inner {
                server_url,
                http: match self.http {
                    Some(http) => http,
                    None => http::default_client()?,
                },
                grant,
                client_id: self.client_id,
                client_secret: self.client_secret,
                auth_method: self.auth_method,
                signing_key: self.signing_key,
                dpop: self.dpop,
                nonces: dpop::Nonces::default(),
                metadata_document_url: self.metadata_document_url,
                client_name: self.client_name,
                scopes: self.scopes,
                store: self
                    .store
                    .unwrap_or_else(|| Arc::new(InMemoryTokenStore::new())),
                max_attempts: self.max_attempts,
                challenge_window: self.challenge_window,
                state: tokio::sync::Mutex::new(State::default()),
            }),
        })
    }
}

#[cfg(test)]
mod attempt_tests {
    use std::time::Duration;

    use tokio::time::Instant;

    use super::consecutive_attempts;

    #[test]
    fn challenges_within_the_window_add_up_and_a_late_one_starts_over() {
        let window = Duration::from_secs(60);
        let t0 = Instant::now();
        assert_eq!(consecutive_attempts(0, None, t0, window), 1);
        let t1 = t0 + Duration::from_secs(1);
        assert_eq!(consecutive_attempts(1, Some(t0), t1, window), 2);
        let t2 = t1 + Duration::from_secs(60);
        assert_eq!(consecutive_attempts(2, Some(t1), t2, window), 3);
        // An hour later (say, the next token expiry): a new episode, not a 4th attempt.
        let t3 = t2 + Duration::from_secs(3600);
        assert_eq!(consecutive_attempts(3, Some(t2), t3, window), 1);
    }
}
