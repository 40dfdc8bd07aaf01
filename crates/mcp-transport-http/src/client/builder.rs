//! The builder and its options.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use mcp_jsonrpc::BoxError;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::StreamableHttpClientTransport;
use super::auth::AuthProvider;
use super::error::{Error, Result};
use super::shared::Shared;

/// Supplies headers for every HTTP request the transport makes (POST, GET and DELETE).
///
/// Called once per request, so it can hand out a fresh value each time. (For OAuth, use
/// an [`AuthProvider`], which also hears about refused credentials.) Its headers are added after the builder's static
/// [`header`](StreamableHttpClientTransportBuilder::header)s and replace those of the same
/// name. A closure returning a boxed future implements it:
///
/// ```
/// use futures::FutureExt;
/// use mcp_transport_http::client::StreamableHttpClientTransport;
/// use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
///
/// let transport = StreamableHttpClientTransport::builder("http://127.0.0.1:8080/mcp")
///     .header_provider(|| {
///         async {
///             let mut headers = HeaderMap::new();
///             headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer token"));
///             Ok(headers)
///         }
///         .boxed()
///     })
///     .build()?;
/// # Ok::<(), mcp_transport_http::client::Error>(())
/// ```
pub trait HeaderProvider: Send + Sync + 'static {
    /// The headers to add to the next request. An error fails that request with
    /// [`Error::Headers`].
    fn headers(&self) -> BoxFuture<'static, Result<HeaderMap, BoxError>>;
}

impl<F> HeaderProvider for F
where
    F: Fn() -> BoxFuture<'static, Result<HeaderMap, BoxError>> + Send + Sync + 'static,
{
    fn headers(&self) -> BoxFuture<'static, Result<HeaderMap, BoxError>> {
        self()
    }
}

/// How SSE streams are reconnected.
///
/// A stream the server closes on purpose is reopened after the server's SSE `retry` interval
/// (or [`initial_delay`](Self::initial_delay) if it sent none); a failed attempt is retried
/// with exponential backoff from `initial_delay` up to [`max_delay`](Self::max_delay), at
/// least the `retry` interval, and at most [`max_attempts`](Self::max_attempts) times in a
/// row. Receiving an event resets the count.
///
/// ```
/// use std::time::Duration;
/// let mut reconnect = mcp_transport_http::client::Reconnect::default();
/// reconnect.max_attempts = 3;
/// reconnect.initial_delay = Duration::from_millis(250);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Reconnect {
    /// The delay before the first reconnection when the server gave no `retry` interval.
    /// Default 1 s.
    pub initial_delay: Duration,
    /// The cap of the exponential backoff. Default 30 s.
    pub max_delay: Duration,
    /// How many failed attempts in a row are retried before giving up on a stream: a
    /// request waiting on it then fails with [`Error::StreamEnded`]. Default 5. (A stream the
    /// server closes after sending events is not a failure: it is always reopened.)
    pub max_attempts: u32,
}

impl Default for Reconnect {
    fn default() -> Self {
        Reconnect {
            initial_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            max_attempts: 5,
        }
    }
}

impl Reconnect {
    /// The backoff before attempt number `attempt` (1-based) after a failure.
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(16));
        self.initial_delay
            .saturating_mul(factor)
            .min(self.max_delay)
    }
}

/// Builds a [`StreamableHttpClientTransport`]; see
/// [`StreamableHttpClientTransport::builder`].
#[must_use]
pub struct StreamableHttpClientTransportBuilder {
    url: String,
    headers: HeaderMap,
    header_error: Option<BoxError>,
    provider: Option<Arc<dyn HeaderProvider>>,
    auth: Option<Arc<dyn AuthProvider>>,
    max_auth_retries: u32,
    client: Option<reqwest::Client>,
    reconnect: Reconnect,
    legacy_fallback: bool,
    timeout: Duration,
}

impl fmt::Debug for StreamableHttpClientTransportBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamableHttpClientTransportBuilder")
            .field("url", &self.url)
            .field("headers", &self.headers)
            .field("header_provider", &self.provider.is_some())
            .field("auth", &self.auth.is_some())
            .field("max_auth_retries", &self.max_auth_retries)
            .field("client", &self.client)
            .field("reconnect", &self.reconnect)
            .field("legacy_fallback", &self.legacy_fallback)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl StreamableHttpClientTransportBuilder {
    pub(crate) fn new(url: impl Into<String>) -> Self {
        StreamableHttpClientTransportBuilder {
            url: url.into(),
            headers: HeaderMap::new(),
            header_error: None,
            provider: None,
            auth: None,
            max_auth_retries: 2,
            client: None,
            reconnect: Reconnect::default(),
            legacy_fallback: true,
            timeout: Duration::from_secs(30),
        }
    }

    /// Adds a header to every HTTP request. Invalid names or values make
    /// [`build`](Self::build) fail with [`Error::InvalidHeader`].
    pub fn header<K, V>(mut self, name: K, value: V) -> Self
    where
        K: TryInto<HeaderName>,
        K::Error: Into<http::Error>,
        V: TryInto<HeaderValue>,
        V::Error: Into<http::Error>,
    {
        let name = name.try_into().map_err(Into::into);
        let value = value.try_into().map_err(Into::into);
        match (name, value) {
            (Ok(name), Ok(value)) => {
                self.headers.append(name, value);
            }
            (Err(e), _) | (_, Err(e)) => {
                self.header_error.get_or_insert(Box::new(e));
            }
        }
        self
    }

    /// Sets a [`HeaderProvider`], asked for headers before every HTTP request.
    pub fn header_provider(mut self, provider: impl HeaderProvider) -> Self {
        self.provider = Some(Arc::new(provider));
        self
    }

    /// Sets an [`AuthProvider`]: its `Authorization` header goes on every HTTP request
    /// (replacing one from [`header`](Self::header) or the [`HeaderProvider`]), and it is
    /// called when the server refuses the credentials (401, or 403 `insufficient_scope`),
    /// after which the request is sent again.
    pub fn auth(mut self, provider: impl AuthProvider) -> Self {
        self.auth = Some(Arc::new(provider));
        self
    }

    /// How many times one HTTP request is sent again after the [`AuthProvider`] obtained new
    /// credentials, so that a server refusing every token cannot loop the client. Past it,
    /// the request fails with [`Error::Unauthorized`]. Default 2.
    pub fn max_auth_retries(mut self, retries: u32) -> Self {
        self.max_auth_retries = retries;
        self
    }

    /// Uses this `reqwest` client instead of the default one (rustls, `TCP_NODELAY`).
    ///
    /// Do not give it an overall request timeout: SSE streams stay open for a long time.
    pub fn client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// Sets how SSE streams are reconnected; see [`Reconnect`].
    pub fn reconnect(mut self, reconnect: Reconnect) -> Self {
        self.reconnect = reconnect;
        self
    }

    /// Whether to fall back to the legacy HTTP+SSE transport (protocol revision 2024-11-05)
    /// when the server refuses the POST of `initialize` with a 4xx status other than 401
    /// and 403. Default `true`.
    pub fn legacy_fallback(mut self, enabled: bool) -> Self {
        self.legacy_fallback = enabled;
        self
    }

    /// How long the transport waits for the steps it runs on its own: the legacy `endpoint`
    /// event, the `initialize` response when it starts a new session, and the response to
    /// the first GET of the standalone stream (made while `notifications/initialized` is
    /// sent; on timeout the stream is retried in the background). Default 30 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Builds the transport. No request is made until the first message is sent.
    ///
    /// Fails if the URL or a header is invalid, or the default client cannot be built.
    pub fn build(self) -> Result<StreamableHttpClientTransport> {
        if let Some(e) = self.header_error {
            return Err(Error::InvalidHeader(e));
        }
        let url = url::Url::parse(&self.url).map_err(|source| Error::InvalidUrl {
            url: self.url.clone(),
            source,
        })?;
        let client = match self.client {
            Some(c) => c,
            None => reqwest::Client::builder().tcp_nodelay(true).build()?,
        };
        let (shared, inbox) = Shared::new(super::shared::Options {
            http: client,
            url,
            headers: self.headers,
            provider: self.provider,
            auth: self.auth,
            max_auth_retries: self.max_auth_retries,
            reconnect: self.reconnect,
            legacy_fallback: self.legacy_fallback,
            timeout: self.timeout,
        });
        Ok(StreamableHttpClientTransport::from_parts(shared, inbox))
    }
}
