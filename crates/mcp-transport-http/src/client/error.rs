//! The client's [`Error`].

use mcp_jsonrpc::{BoxError, ErrorObject};
use reqwest::StatusCode;

use super::AuthChallenge;

/// The result type of the client.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong with the HTTP client transport.
///
/// Failures that concern one request (an HTTP error status, an SSE stream that ended before
/// the response, an expired session) do not end the connection: the transport turns them
/// into a JSON-RPC error response for that request, whose message is this error's text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The URL given to the builder could not be parsed.
    #[error("invalid url `{url}`")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// Why it is invalid.
        #[source]
        source: url::ParseError,
    },
    /// A header given to the builder has an invalid name or value.
    #[error("invalid header")]
    InvalidHeader(#[source] BoxError),
    /// The [`HeaderProvider`](super::HeaderProvider) failed.
    #[error("the header provider failed")]
    Headers(#[source] BoxError),
    /// The [`AuthProvider`](super::AuthProvider) failed to give an `Authorization` header
    /// or to obtain new credentials.
    #[error("the auth provider failed")]
    Auth(#[source] BoxError),
    /// The server refused the request's credentials (HTTP 401, or 403
    /// `insufficient_scope`), and the [`AuthProvider`](super::AuthProvider) gave up or the
    /// retry limit was reached. (Without an auth provider, a 401 is an [`Error::Status`].)
    #[error("not authorized: {challenge}")]
    Unauthorized {
        /// The status of the last refusal.
        status: StatusCode,
        /// The server's challenge.
        challenge: Box<AuthChallenge>,
    },
    /// The HTTP request failed (connection refused, reset, TLS, timeout...).
    #[error("http request failed")]
    Http(#[from] reqwest::Error),
    /// The server answered with an unexpected HTTP status.
    #[error("http status {status}{}", body_suffix(.body))]
    Status {
        /// The status.
        status: StatusCode,
        /// The start of the response body (at most 512 bytes), possibly empty.
        body: String,
    },
    /// The server answered a request with a content type that is neither JSON nor SSE.
    #[error("unexpected content type `{0}`")]
    ContentType(String),
    /// The server ended the session (HTTP 404 on a request carrying the session id); the
    /// transport has started a new one.
    #[error("session expired; the request was not completed")]
    SessionExpired,
    /// The JSON body of a response is not a JSON-RPC message.
    #[error("invalid json-rpc response body: {0}")]
    InvalidResponse(String),
    /// A response body, an error body or an SSE event is larger than the
    /// [`max_message_size`](super::StreamableHttpClientTransportBuilder::max_message_size);
    /// it was not read further. A request waiting on it fails with this error; an SSE
    /// stream that carried it is not resumed.
    #[error("{what} exceeds the limit of {limit} bytes")]
    TooLarge {
        /// What was too large: `"the response body"`, `"an sse event"`, ...
        what: &'static str,
        /// The limit, in bytes.
        limit: usize,
    },
    /// An SSE stream could not be parsed.
    #[error("invalid sse stream: {0}")]
    Sse(String),
    /// An SSE stream ended before the response to a request arrived, and could not be
    /// resumed.
    #[error("the sse stream ended before the response arrived{}", reason_suffix(.reason))]
    StreamEnded {
        /// Why it could not be resumed.
        reason: String,
    },
    /// The legacy HTTP+SSE stream ended (or timed out) without an `endpoint` event.
    #[error("the legacy sse stream sent no endpoint event")]
    LegacyEndpointMissing,
    /// The legacy `endpoint` event named an invalid URL.
    #[error("invalid legacy endpoint `{endpoint}`")]
    LegacyEndpointInvalid {
        /// The endpoint as sent.
        endpoint: String,
        /// Why it is invalid.
        #[source]
        source: url::ParseError,
    },
    /// The server's response did not complete the initialization of a new session.
    #[error("could not start a new session: {0}")]
    Reinitialize(String),
    /// A message could not be serialized (only a [`Message::Invalid`] cannot be).
    ///
    /// [`Message::Invalid`]: mcp_jsonrpc::Message::Invalid
    #[error("could not encode a message")]
    Encode(#[source] serde_json::Error),
    /// A step the transport runs on its own got no answer within the
    /// [`timeout`](super::StreamableHttpClientTransportBuilder::timeout).
    #[error("timed out waiting for {0}")]
    Timeout(&'static str),
    /// The transport was closed.
    #[error("transport closed")]
    Closed,
}

fn body_suffix(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

fn reason_suffix(reason: &str) -> String {
    if reason.is_empty() {
        String::new()
    } else {
        format!(" ({reason})")
    }
}

impl Error {
    /// The JSON-RPC error object the transport yields for a request that failed this way:
    /// code -32603 and this error's text (with its causes) as the message; for
    /// [`Error::TooLarge`], `data` is `{"limit": <bytes>}`; for an HTTP status, `data` is
    /// `{"status": <code>}`, plus `"wwwAuthenticate": [<values>]` when
    /// the request was not authorized.
    pub fn to_error_object(&self) -> ErrorObject {
        let mut message = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(s) = source {
            message.push_str(": ");
            message.push_str(&s.to_string());
            source = s.source();
        }
        let object = ErrorObject::internal_error(message);
        match self {
            Error::Status { status, .. } => {
                object.with_data(serde_json::json!({ "status": status.as_u16() }))
            }
            Error::TooLarge { limit, .. } => {
                object.with_data(serde_json::json!({ "limit": limit }))
            }
            Error::Unauthorized { status, challenge } => object.with_data(serde_json::json!({
                "status": status.as_u16(),
                "wwwAuthenticate": challenge.www_authenticate(),
            })),
            _ => object,
        }
    }
}

/// The first 512 bytes of a body, cut at a character boundary.
pub(crate) fn snippet(body: &str) -> String {
    const MAX: usize = 512;
    let body = body.trim();
    if body.len() <= MAX {
        return body.to_owned();
    }
    let mut end = MAX;
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &body[..end])
}
