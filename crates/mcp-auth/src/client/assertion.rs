//! Assertions for the JWT bearer grant (RFC 7523 §2.1): a workload identity token as it is,
//! or an identity assertion authorization grant (ID-JAG) obtained by token exchange at the
//! enterprise identity provider (RFC 8693; MCP enterprise-managed authorization).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::http::{basic, oauth_error, send};
use super::store::BoxFuture;
use crate::{Error, Result};

/// The grant type of RFC 7523 §2.1.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// What a JWT bearer grant is about to be made for, given to an [`AssertionSource`].
#[non_exhaustive]
#[derive(Debug, Clone)]
pub struct AssertionRequest {
    /// The authorization server's issuer identifier: the audience of the assertion.
    pub issuer: String,
    /// Its token endpoint, where the assertion goes.
    pub token_endpoint: String,
    /// The MCP server's resource identifier (RFC 8707).
    pub resource: String,
    /// The scopes about to be requested, if any.
    pub scopes: Option<Vec<String>>,
    /// The HTTP client of the [`OAuthClient`](crate::OAuthClient), for sources that make
    /// requests of their own.
    pub http: reqwest::Client,
}

/// Supplies the assertion (a JWT) of each JWT bearer grant (RFC 7523 §2.1) that
/// [`OAuthClientBuilder::jwt_bearer`](crate::OAuthClientBuilder::jwt_bearer) makes.
///
/// It is asked again for every grant (a token expired, the server refused it), so a source
/// reading a rotated workload identity token file gives the current one. Built in:
/// [`StaticAssertion`], [`IdJagExchange`], and closures through [`assertion_fn`].
pub trait AssertionSource: Send + Sync + 'static {
    /// The assertion for `request`. An error ends the flow with that error; it is not retried.
    fn assertion(&self, request: AssertionRequest) -> BoxFuture<'_, Result<String>>;
}

impl<T: AssertionSource + ?Sized> AssertionSource for Arc<T> {
    fn assertion(&self, request: AssertionRequest) -> BoxFuture<'_, Result<String>> {
        (**self).assertion(request)
    }
}

/// One fixed assertion, for instance a workload identity token handed to the process
/// (workload identity federation: the token's issuer is trusted by the authorization server).
#[derive(Clone)]
pub struct StaticAssertion(String);

impl StaticAssertion {
    /// Uses `jwt` for every grant.
    pub fn new(jwt: impl Into<String>) -> Self {
        Self(jwt.into())
    }
}

impl fmt::Debug for StaticAssertion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StaticAssertion(<redacted>)")
    }
}

impl AssertionSource for StaticAssertion {
    fn assertion(&self, _: AssertionRequest) -> BoxFuture<'_, Result<String>> {
        let jwt = self.0.clone();
        Box::pin(async move { Ok(jwt) })
    }
}

/// An [`AssertionSource`] from an async closure; see [`assertion_fn`].
#[derive(Clone)]
pub struct AssertionFn<F>(F);

impl<F> fmt::Debug for AssertionFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AssertionFn")
    }
}

/// An [`AssertionSource`] calling `f` for every grant, for instance to read a workload
/// identity token file that is rotated:
///
/// ```
/// use mcp_auth::{AssertionRequest, Error, OAuthClient, assertion_fn};
///
/// let source = assertion_fn(|_request: AssertionRequest| async {
///     std::fs::read_to_string("/var/run/secrets/tokens/mcp")
///         .map(|s| s.trim().to_owned())
///         .map_err(|e| Error::Config(format!("workload token: {e}")))
/// });
/// let oauth = OAuthClient::builder("https://mcp.example.com/mcp")
///     .client_id("my-workload")
///     .jwt_bearer(source)
///     .build()?;
/// # let _ = oauth;
/// # Ok::<(), Error>(())
/// ```
pub fn assertion_fn<F, Fut>(f: F) -> AssertionFn<F>
where
    F: Fn(AssertionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<String>> + Send + 'static,
{
    AssertionFn(f)
}

impl<F, Fut> AssertionSource for AssertionFn<F>
where
    F: Fn(AssertionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<String>> + Send + 'static,
{
    fn assertion(&self, request: AssertionRequest) -> BoxFuture<'_, Result<String>> {
        Box::pin((self.0)(request))
    }
}

/// Enterprise-managed authorization: exchanges the user's ID token from the enterprise
/// identity provider (IdP) for an identity assertion authorization grant (ID-JAG) aimed at
/// the MCP server's authorization server, which then takes it in a JWT bearer grant.
///
/// The exchange (RFC 8693) is a POST to the IdP's token endpoint with
/// `requested_token_type=urn:ietf:params:oauth:token-type:id-jag`, the authorization
/// server's issuer as `audience`, the MCP server as `resource`, the requested `scope`, and the
/// ID token as `subject_token`; the client authenticates to the IdP with its IdP client id
/// (and secret, by HTTP Basic, if it has one). No browser is involved: the user signed in to
/// the IdP once, and the IdP's policy decides which MCP servers they may reach.
///
/// ```
/// use mcp_auth::{IdJagExchange, OAuthClient};
///
/// let exchange = IdJagExchange::new("https://idp.example.com/oauth2/token", "<the user's ID token>")
///     .client_id("client-at-the-idp");
/// let oauth = OAuthClient::builder("https://mcp.example.com/mcp")
///     .client_id("client-at-the-mcp-authorization-server")
///     .client_secret("its secret")
///     .jwt_bearer(exchange)
///     .build()?;
/// # let _ = oauth;
/// # Ok::<(), mcp_auth::Error>(())
/// ```
#[derive(Clone)]
pub struct IdJagExchange {
    token_endpoint: String,
    id_token: String,
    client_id: Option<String>,
    client_secret: Option<String>,
}

impl fmt::Debug for IdJagExchange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdJagExchange")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl IdJagExchange {
    /// Exchanges `id_token` at the IdP token endpoint `token_endpoint`.
    pub fn new(token_endpoint: impl Into<String>, id_token: impl Into<String>) -> Self {
        Self {
            token_endpoint: token_endpoint.into(),
            id_token: id_token.into(),
            client_id: None,
            client_secret: None,
        }
    }

    /// This client's id at the IdP.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// This client's secret at the IdP (sent by HTTP Basic).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// Runs the exchange for `request`; the ID-JAG.
    pub async fn exchange(&self, request: &AssertionRequest) -> Result<String> {
        let mut form = vec![
            ("grant_type", TOKEN_EXCHANGE.to_owned()),
            ("requested_token_type", ID_JAG.to_owned()),
            ("audience", request.issuer.clone()),
            ("resource", request.resource.clone()),
            ("subject_token", self.id_token.clone()),
            ("subject_token_type", ID_TOKEN.to_owned()),
        ];
        if let Some(scopes) = request.scopes.as_ref().filter(|s| !s.is_empty()) {
            form.push(("scope", scopes.join(" ")));
        }
        let mut http = request.http.post(&self.token_endpoint);
        match (&self.client_id, &self.client_secret) {
            (Some(id), Some(secret)) => {
                http = http.header(::http::header::AUTHORIZATION, basic(id, secret));
            }
            (Some(id), None) => form.push(("client_id", id.clone())),
            (None, _) => {}
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&form)
            .finish();
        let response = send(
            http.header(
                ::http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body),
            "ID-JAG token exchange",
        )
        .await?;
        let json = response.json("ID-JAG token exchange");
        if !response.is_success() {
            return Err(oauth_error(
                json.ok().as_ref(),
                "ID-JAG token exchange",
                response.status,
            ));
        }
        let json = json?;
        let issued = json.get("issued_token_type").and_then(Value::as_str);
        if issued != Some(ID_JAG) {
            return Err(Error::authorization_server_msg(format!(
                "ID-JAG token exchange: issued_token_type is {issued:?}, not `{ID_JAG}`"
            )));
        }
        json.get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| {
                Error::authorization_server_msg("ID-JAG token exchange: no access_token")
            })
    }
}

impl AssertionSource for IdJagExchange {
    fn assertion(&self, request: AssertionRequest) -> BoxFuture<'_, Result<String>> {
        Box::pin(async move { self.exchange(&request).await })
    }
}
