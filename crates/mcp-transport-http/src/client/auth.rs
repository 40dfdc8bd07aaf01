//! The authorization hook: [`AuthProvider`] and the [`AuthChallenge`] it is given.

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use mcp_jsonrpc::BoxError;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode, Url};

/// Supplies the `Authorization` header of every HTTP request, and obtains new credentials
/// when the server refuses them.
///
/// This is where an OAuth client plugs into the transport, without either crate depending
/// on the other. The transport:
///
/// - asks [`request_headers`](Self::request_headers) before every POST, GET and DELETE it
///   makes (the `initialize` POST, requests, notifications and responses, the GET stream and
///   its resumptions, the legacy HTTP+SSE stream and endpoint, and the closing DELETE) and
///   sends them, never anything in the URL. By default that is the
///   [`authorization`](Self::authorization) value as the `Authorization` header; a DPoP client
///   (RFC 9449) overrides it to add a `DPoP` proof bound to the request's method and URL;
/// - on HTTP 401, or 403 whose `WWW-Authenticate` has `error="insufficient_scope"` (a
///   step-up), calls [`on_unauthorized`](Self::on_unauthorized) with the parsed
///   [`AuthChallenge`] and, if it returns `Ok(true)`, sends the same HTTP request again
///   with the new header, at most
///   [`max_auth_retries`](super::StreamableHttpClientTransportBuilder::max_auth_retries)
///   times per request. Concurrent refusals are coalesced: while one `on_unauthorized` call
///   runs, other requests wait for it and then retry with its outcome instead of calling
///   it again.
///
/// A request that stays refused fails with [`Error::Unauthorized`](super::Error::Unauthorized),
/// one whose provider fails with [`Error::Auth`](super::Error::Auth).
///
/// Implement it for your type, or build one from two closures with [`auth_provider_fn`]:
///
/// ```
/// use std::sync::{Arc, Mutex};
///
/// use futures::FutureExt;
/// use mcp_transport_http::client::{AuthChallenge, StreamableHttpClientTransport, auth_provider_fn};
/// use reqwest::header::HeaderValue;
///
/// // Stand-in for an OAuth client (say, mcp-auth's) that runs the authorization flow.
/// async fn run_oauth_flow(challenge: &AuthChallenge) -> Result<String, mcp_jsonrpc::BoxError> {
///     let _metadata = challenge.resource_metadata(); // where to discover the authorization server
///     let _scope = challenge.scope(); // what to ask for
///     Ok("fresh-token".to_owned())
/// }
///
/// let token = Arc::new(Mutex::new(None::<String>));
/// let provider = auth_provider_fn(
///     {
///         let token = token.clone();
///         move || {
///             let header = token.lock().unwrap().as_ref().map(|t| format!("Bearer {t}"));
///             async move { Ok(header.map(HeaderValue::try_from).transpose()?) }.boxed()
///         }
///     },
///     move |challenge| {
///         let token = token.clone();
///         async move {
///             let fresh = run_oauth_flow(&challenge).await?;
///             *token.lock().unwrap() = Some(fresh);
///             Ok(true) // retry the request
///         }
///         .boxed()
///     },
/// );
/// let transport = StreamableHttpClientTransport::builder("https://example.com/mcp")
///     .auth(provider)
///     .build()?;
/// # let _ = transport;
/// # Ok::<(), mcp_transport_http::client::Error>(())
/// ```
pub trait AuthProvider: Send + Sync + 'static {
    /// The `Authorization` header value for the next request, if any (`Bearer <token>`).
    /// An error fails that request with [`Error::Auth`](super::Error::Auth).
    fn authorization(&self) -> BoxFuture<'static, Result<Option<HeaderValue>, BoxError>>;

    /// The authorization headers of a request with `method` to `url`, which the transport
    /// sends as they are (values marked sensitive). The default is `Authorization` from
    /// [`authorization`](Self::authorization). Override it when the headers depend on the
    /// request, as DPoP proofs do (`Authorization: DPoP <token>` and `DPoP: <proof>`, the
    /// proof naming the method and URL). An error fails that request with
    /// [`Error::Auth`](super::Error::Auth).
    fn request_headers(
        &self,
        method: &Method,
        url: &Url,
    ) -> BoxFuture<'static, Result<HeaderMap, BoxError>> {
        let _ = (method, url);
        let authorization = self.authorization();
        Box::pin(async move {
            let mut headers = HeaderMap::new();
            if let Some(value) = authorization.await? {
                headers.insert(AUTHORIZATION, value);
            }
            Ok(headers)
        })
    }

    /// The server refused a request (401, or 403 `insufficient_scope`): obtain new
    /// credentials (authorize, refresh, or step up to `challenge.scope()`).
    ///
    /// `Ok(true)`: the request is sent again (with a fresh [`authorization`](Self::authorization));
    /// `Ok(false)`: give up, the request fails with
    /// [`Error::Unauthorized`](super::Error::Unauthorized); an error fails it with
    /// [`Error::Auth`](super::Error::Auth). Other requests wait while this runs, so it must
    /// not wait for a request made over the same transport.
    fn on_unauthorized(
        &self,
        challenge: AuthChallenge,
    ) -> BoxFuture<'static, Result<bool, BoxError>>;
}

impl<T: AuthProvider + ?Sized> AuthProvider for Arc<T> {
    fn authorization(&self) -> BoxFuture<'static, Result<Option<HeaderValue>, BoxError>> {
        (**self).authorization()
    }

    fn request_headers(
        &self,
        method: &Method,
        url: &Url,
    ) -> BoxFuture<'static, Result<HeaderMap, BoxError>> {
        (**self).request_headers(method, url)
    }

    fn on_unauthorized(
        &self,
        challenge: AuthChallenge,
    ) -> BoxFuture<'static, Result<bool, BoxError>> {
        (**self).on_unauthorized(challenge)
    }
}

impl<T: AuthProvider + ?Sized> AuthProvider for Box<T> {
    fn authorization(&self) -> BoxFuture<'static, Result<Option<HeaderValue>, BoxError>> {
        (**self).authorization()
    }

    fn request_headers(
        &self,
        method: &Method,
        url: &Url,
    ) -> BoxFuture<'static, Result<HeaderMap, BoxError>> {
        (**self).request_headers(method, url)
    }

    fn on_unauthorized(
        &self,
        challenge: AuthChallenge,
    ) -> BoxFuture<'static, Result<bool, BoxError>> {
        (**self).on_unauthorized(challenge)
    }
}

/// An [`AuthProvider`] made of two closures; see [`auth_provider_fn`].
#[derive(Clone)]
pub struct AuthProviderFn<A, U> {
    authorization: A,
    on_unauthorized: U,
}

impl<A, U> fmt::Debug for AuthProviderFn<A, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthProviderFn").finish_non_exhaustive()
    }
}

/// An [`AuthProvider`] from a closure giving the `Authorization` header and a closure
/// reacting to a refusal (after tower's `service_fn`). See [`AuthProvider`] for an example.
pub fn auth_provider_fn<A, U>(authorization: A, on_unauthorized: U) -> AuthProviderFn<A, U>
where
    A: Fn() -> BoxFuture<'static, Result<Option<HeaderValue>, BoxError>> + Send + Sync + 'static,
    U: Fn(AuthChallenge) -> BoxFuture<'static, Result<bool, BoxError>> + Send + Sync + 'static,
{
    AuthProviderFn {
        authorization,
        on_unauthorized,
    }
}

impl<A, U> AuthProvider for AuthProviderFn<A, U>
where
    A: Fn() -> BoxFuture<'static, Result<Option<HeaderValue>, BoxError>> + Send + Sync + 'static,
    U: Fn(AuthChallenge) -> BoxFuture<'static, Result<bool, BoxError>> + Send + Sync + 'static,
{
    fn authorization(&self) -> BoxFuture<'static, Result<Option<HeaderValue>, BoxError>> {
        (self.authorization)()
    }

    fn on_unauthorized(
        &self,
        challenge: AuthChallenge,
    ) -> BoxFuture<'static, Result<bool, BoxError>> {
        (self.on_unauthorized)(challenge)
    }
}

/// Why the server refused a request: its status, the URL refused, its
/// `WWW-Authenticate` challenges with the parameters of the first `Bearer` or `DPoP` one
/// parsed (RFC 6750 §3, RFC 9449 §7.1, RFC 9728 §5.1), and its `DPoP-Nonce` header.
///
/// ```
/// use mcp_transport_http::client::AuthChallenge;
/// use reqwest::StatusCode;
///
/// let challenge = AuthChallenge::new(
///     StatusCode::FORBIDDEN,
///     "https://example.com/mcp".parse()?,
///     vec![r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://example.com/.well-known/oauth-protected-resource/mcp""#.into()],
/// );
/// assert!(challenge.is_insufficient_scope());
/// assert_eq!(challenge.scope(), Some("files:read files:write"));
/// assert_eq!(
///     challenge.resource_metadata().unwrap().as_str(),
///     "https://example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// # Ok::<(), url::ParseError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthChallenge {
    status: StatusCode,
    url: Url,
    www_authenticate: Vec<String>,
    /// The first `Bearer` or `DPoP` challenge, if there is one.
    challenge: Option<Challenge>,
    dpop_nonce: Option<String>,
}

impl AuthChallenge {
    /// A challenge for a request to `url` refused with `status` and these
    /// `WWW-Authenticate` header values (for testing a provider; the transport makes them).
    pub fn new(status: StatusCode, url: Url, www_authenticate: Vec<String>) -> Self {
        let challenge = parse_challenges(&www_authenticate).into_iter().find(|c| {
            c.scheme.eq_ignore_ascii_case("bearer") || c.scheme.eq_ignore_ascii_case("dpop")
        });
        AuthChallenge {
            status,
            url,
            www_authenticate,
            challenge,
            dpop_nonce: None,
        }
    }

    /// The same challenge, with the response's `DPoP-Nonce` header (RFC 9449 §9).
    pub fn with_dpop_nonce(mut self, nonce: impl Into<String>) -> Self {
        self.dpop_nonce = Some(nonce.into());
        self
    }

    /// The HTTP status: 401, or 403 for `insufficient_scope`.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The URL of the refused request (the MCP endpoint, or the legacy message endpoint).
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The `WWW-Authenticate` header values as received (possibly none).
    pub fn www_authenticate(&self) -> &[String] {
        &self.www_authenticate
    }

    /// The scheme of the challenge whose parameters are read: `Bearer` or `DPoP` (as the
    /// server spelled it), if it gave either.
    pub fn scheme(&self) -> Option<&str> {
        self.challenge.as_ref().map(|c| c.scheme.as_str())
    }

    /// Whether the challenge read is a `Bearer` one.
    pub fn is_bearer(&self) -> bool {
        self.scheme()
            .is_some_and(|s| s.eq_ignore_ascii_case("bearer"))
    }

    /// The `DPoP-Nonce` header of the refusal, if any: a DPoP server's nonce for the next
    /// proofs (with `error="use_dpop_nonce"`, the reason for the refusal).
    pub fn dpop_nonce(&self) -> Option<&str> {
        self.dpop_nonce.as_deref()
    }

    /// A parameter of the `Bearer` (or `DPoP`) challenge (`realm`, `scope`, `error`...), by
    /// case-insensitive name, unquoted.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.challenge
            .as_ref()?
            .params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The protected resource metadata URL (RFC 9728) from `resource_metadata`, resolved
    /// against the request URL. `None` if absent or invalid: then discover it at the
    /// well-known location.
    pub fn resource_metadata(&self) -> Option<Url> {
        self.url.join(self.param("resource_metadata")?).ok()
    }

    /// The scopes the server asks for (`scope`, space-separated), if it named any.
    pub fn scope(&self) -> Option<&str> {
        self.param("scope")
    }

    /// The `error` code (`invalid_token`, `insufficient_scope`...), if any.
    pub fn error(&self) -> Option<&str> {
        self.param("error")
    }

    /// The `error_description`, if any.
    pub fn error_description(&self) -> Option<&str> {
        self.param("error_description")
    }

    /// Whether this is a step-up request: `error="insufficient_scope"`.
    pub fn is_insufficient_scope(&self) -> bool {
        self.error() == Some("insufficient_scope")
    }
}

impl fmt::Display for AuthChallenge {
    /// `http status 401 Unauthorized`, then the error code, description and scope if any.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http status {}", self.status)?;
        if let Some(error) = self.error() {
            write!(f, ", {error}")?;
        }
        if let Some(description) = self.error_description() {
            write!(f, ": {description}")?;
        }
        if let Some(scope) = self.scope() {
            write!(f, " (scope `{scope}`)")?;
        }
        Ok(())
    }
}

/// One challenge of a `WWW-Authenticate` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub(crate) scheme: String,
    /// Its auth-params, names lowercased (a token68 is kept with an empty name).
    pub(crate) params: Vec<(String, String)>,
}

/// Parses `WWW-Authenticate` values (RFC 9110 §11.6.1): a comma-separated list of
/// challenges, each a scheme followed by a token68 or comma-separated `name=value`
/// parameters (values are tokens or quoted strings). Lenient: what does not parse is
/// skipped.
pub(crate) fn parse_challenges(values: &[String]) -> Vec<Challenge> {
    let mut out: Vec<Challenge> = Vec::new();
    for value in values {
        let mut p = Parser {
            s: value.as_bytes(),
            i: 0,
        };
        // Whether a parameter may follow in this header value (after a scheme).
        let mut open = false;
        loop {
            p.skip(|c| c == b' ' || c == b'\t' || c == b',');
            if p.done() {
                break;
            }
            let token = p.token();
            if token.is_empty() {
                p.i += 1;
                continue;
            }
            p.skip(|c| c == b' ' || c == b'\t');
            if p.peek() == Some(b'=') {
                // `name=value`, with optional whitespace around `=`.
                p.i += 1;
                p.skip(|c| c == b' ' || c == b'\t');
                let value = p.value();
                if let (true, Some(c)) = (open, out.last_mut()) {
                    c.params.push((token.to_ascii_lowercase(), value));
                }
                continue;
            }
            out.push(Challenge {
                scheme: token,
                params: Vec::new(),
            });
            open = true;
            // A token68 after the scheme: `Basic dXNlcjpwYXNz`.
            let start = p.i;
            let t68 = p.token();
            p.skip(|c| c == b'=');
            if !t68.is_empty() && matches!(p.peek_after_ws(), None | Some(b',')) {
                let raw = String::from_utf8_lossy(&p.s[start..p.i]).into_owned();
                if let Some(c) = out.last_mut() {
                    c.params.push((String::new(), raw));
                }
            } else {
                p.i = start;
            }
        }
    }
    out
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn done(&self) -> bool {
        self.i >= self.s.len()
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    /// The next byte that is not a space or tab, without consuming anything.
    fn peek_after_ws(&self) -> Option<u8> {
        self.s[self.i..]
            .iter()
            .copied()
            .find(|c| *c != b' ' && *c != b'\t')
    }

    fn skip(&mut self, pred: impl Fn(u8) -> bool) {
        while self.peek().is_some_and(&pred) {
            self.i += 1;
        }
    }

    /// A token: up to whitespace, `,`, `=` or `"`.
    fn token(&mut self) -> String {
        let start = self.i;
        self.skip(|c| !matches!(c, b' ' | b'\t' | b',' | b'=' | b'"'));
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }

    /// A parameter value: a quoted string (with `\` escapes) or a token.
    fn value(&mut self) -> String {
        if self.peek() != Some(b'"') {
            let start = self.i;
            self.skip(|c| !matches!(c, b' ' | b'\t' | b','));
            return String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        }
        self.i += 1;
        let mut bytes = Vec::new();
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    if let Some(next) = self.peek() {
                        bytes.push(next);
                        self.i += 1;
                    }
                }
                c => bytes.push(c),
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
