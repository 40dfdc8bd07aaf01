//! The builder and its options.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use mcp_jsonrpc::BoxError;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::StreamableHttpClientTransport;
use super::auth::AuthProvider;
use super::body::DEFAULT_MAX_MESSAGE_SIZE;
use super::error::{Error, Result};
use super::options::{HeaderProvider, Options, Reconnect};
use super::shared::Shared;

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
    max_message_size: usize,
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
            .field("max_message_size", &self.max_message_size)
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
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
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

    /// The largest body the transport reads, in bytes (default
    /// [`DEFAULT_MAX_MESSAGE_SIZE`], 16 MiB; at least 1): a JSON response, the start of an
    /// error response (the rest is not read), one SSE event (its lines as sent, comments
    /// aside) and one SSE line. A response whose `Content-Length` is larger is not read at
    /// all; a body or event that grows past it is not read further. The request waiting on it
    /// fails with [`Error::TooLarge`] (as a -32603 error response with `data.limit`), the SSE
    /// stream that carried it is dropped and not resumed, and the connection goes on. So a
    /// server can make the transport hold at most about this much per response stream.
    ///
    /// Keep it above the connection's own
    /// [`max_message_size`](mcp_jsonrpc::Config::max_message_size) (8 MiB by default),
    /// which then fails an oversized message with the finer-grained error.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes.max(1);
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
        let (shared, inbox) = Shared::new(Options {
            http: client,
            url,
            headers: self.headers,
            provider: self.provider,
            auth: self.auth,
            max_auth_retries: self.max_auth_retries,
            reconnect: self.reconnect,
            legacy_fallback: self.legacy_fallback,
            timeout: self.timeout,
            max_message_size: self.max_message_size,
        });
        Ok(StreamableHttpClientTransport::from_parts(shared, inbox))
    }
}
