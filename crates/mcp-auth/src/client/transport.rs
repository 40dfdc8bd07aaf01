//! [`OAuthClient`] as the Streamable HTTP client transport's
//! [`AuthProvider`](mcp_transport_http::client::AuthProvider) (feature `transport-http`), so
//! that authorizing a transport is one line: `.auth(oauth)`.

use futures::FutureExt as _;
use futures::future::BoxFuture;
use http::{HeaderMap, HeaderValue, Method};
use mcp_transport_http::client::{AuthChallenge, AuthProvider};
use url::Url;

use super::{OAuthClient, Retry};

/// What the transport's hook returns as an error.
type HookError = Box<dyn std::error::Error + Send + Sync>;

/// Every request carries the client's current credentials (`Authorization: Bearer`, or
/// `Authorization: DPoP` with a fresh proof for that method and URL); a refusal (401, or 403
/// `insufficient_scope`) runs [`OAuthClient::handle_challenge`] (discovery, registration,
/// the authorization flow, refresh or step-up), after taking any `DPoP-Nonce` the server sent,
/// and the request is sent again when that obtained new credentials.
///
/// ```no_run
/// use mcp_auth::{LoopbackUserAgent, OAuthClient};
/// use mcp_transport_http::client::StreamableHttpClientTransport;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let oauth = OAuthClient::builder("https://mcp.example.com/mcp")
///     .user_agent(LoopbackUserAgent::bind(0)?)
///     .build()?;
/// let transport = StreamableHttpClientTransport::builder("https://mcp.example.com/mcp")
///     .auth(oauth)
///     .build()?;
/// # drop(transport);
/// # Ok(())
/// # }
/// ```
impl AuthProvider for OAuthClient {
    fn authorization(&self) -> BoxFuture<'static, Result<Option<HeaderValue>, HookError>> {
        let oauth = self.clone();
        async move { Ok(oauth.authorization_header().await?) }.boxed()
    }

    fn request_headers(
        &self,
        method: &Method,
        url: &Url,
    ) -> BoxFuture<'static, Result<HeaderMap, HookError>> {
        let (oauth, method, url) = (self.clone(), method.clone(), url.clone());
        async move { Ok(oauth.request_headers(&method, &url).await?) }.boxed()
    }

    fn on_unauthorized(
        &self,
        challenge: AuthChallenge,
    ) -> BoxFuture<'static, Result<bool, HookError>> {
        let oauth = self.clone();
        async move {
            if let Some(nonce) = challenge.dpop_nonce() {
                oauth.dpop_nonce(challenge.url().as_str(), nonce);
            }
            let retry = oauth
                .handle_challenge(
                    challenge.status().as_u16(),
                    &challenge.www_authenticate().join(", "),
                )
                .await?;
            Ok(retry == Retry::Yes)
        }
        .boxed()
    }
}
