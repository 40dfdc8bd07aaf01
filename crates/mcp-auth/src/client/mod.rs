//! The OAuth client side: discovery, client identity, the grants, token storage.

mod assertion;
mod builder;
pub(crate) mod challenge;
mod discovery;
mod dpop;
mod grants;
mod http;
mod store;
#[cfg(feature = "transport-http")]
mod transport;
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
pub use builder::OAuthClientBuilder;
pub use discovery::AuthorizationServerMetadata;
pub use dpop::DpopKey;
pub use store::{
    BoxFuture, InMemoryTokenStore, RegisteredClient, StoredToken, TokenKey, TokenStore, TokenType,
};
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
        OAuthClientBuilder::new(server_url.into())
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
        // A token the store kept for this server and resource (say, from an earlier run):
        // used, renewed if need be, before a new grant. A session that had one removed it
        // above when the server refused it, so a token refused once is not offered again.
        if status == 401
            && let Some(token) = self.inner.store.load(&session.key).await?
        {
            if self.stored_token_fits(&session, &token) {
                if !token.expires_within(EXPIRY_MARGIN) {
                    tracing::debug!("using the stored access token");
                    state.session = Some(session);
                    return Ok(Retry::Yes);
                }
                match self.renew(&session, &token).await {
                    Ok(_) => {
                        tracing::debug!("renewed the stored access token");
                        state.session = Some(session);
                        return Ok(Retry::Yes);
                    }
                    Err(error) => tracing::debug!(%error, "cannot renew the stored token"),
                }
            }
            self.inner.store.remove(&session.key).await?;
        }
        state.session = Some(self.obtain(session).await?);
        Ok(Retry::Yes)
    }

    /// Whether a token found in the store can be presented in `session`: it has the scopes
    /// the session asks for, and it is a bearer token or a DPoP-bound one this client can
    /// prove (it has the key, and the session binds tokens).
    fn stored_token_fits(&self, session: &Session, token: &StoredToken) -> bool {
        let scopes = session
            .scopes
            .as_ref()
            .is_none_or(|want| want.iter().all(|s| token.scopes.contains(s)));
        let binding = match token.token_type {
            TokenType::Dpop => session.dpop,
            _ => true,
        };
        scopes && binding
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
