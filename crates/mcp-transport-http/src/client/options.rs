//! What the builder hands the transport: the [`HeaderProvider`] hook, the [`Reconnect`]
//! policy, and the settled options.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use mcp_jsonrpc::BoxError;
use reqwest::Url;
use reqwest::header::HeaderMap;

#[cfg(doc)]
use super::StreamableHttpClientTransportBuilder;
use super::auth::AuthProvider;
#[cfg(doc)]
use super::error::Error;

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

/// The options of a transport, settled by the builder.
pub(crate) struct Options {
    pub(crate) http: reqwest::Client,
    pub(crate) url: Url,
    pub(crate) headers: HeaderMap,
    pub(crate) provider: Option<Arc<dyn HeaderProvider>>,
    pub(crate) auth: Option<Arc<dyn AuthProvider>>,
    pub(crate) max_auth_retries: u32,
    pub(crate) reconnect: Reconnect,
    pub(crate) legacy_fallback: bool,
    pub(crate) timeout: Duration,
    pub(crate) max_message_size: usize,
}
