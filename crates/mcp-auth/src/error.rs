//! The crate's error type.

/// A boxed error, the source of [`Error::AuthorizationServer`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong: configuring a resource server or validating a token (feature `server`),
/// or obtaining a token as an OAuth client (feature `client`).
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The token is not acceptable (malformed, bad signature, expired, issued by another
    /// issuer or for another audience, inactive). The client should get a new token;
    /// [`BearerAuthLayer`](crate::BearerAuthLayer) answers 401 with `error="invalid_token"`.
    #[error("invalid token: {0}")]
    InvalidToken(String),
    /// The authorization server could not be asked (network error, bad status, malformed
    /// metadata, JWKS or introspection response). The token may be fine: retry later;
    /// [`BearerAuthLayer`](crate::BearerAuthLayer) answers 503.
    #[error("authorization server request failed: {message}")]
    AuthorizationServer {
        /// What was being done.
        message: String,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxError>,
    },
    /// The configuration is invalid (for instance a URL that does not parse); fix the code.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The authorization server answered an OAuth error (RFC 6749 §4.1.2.1, §5.2), for
    /// instance `access_denied` or `invalid_grant`: the user or the server said no.
    #[error("authorization server refused: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    OAuth {
        /// The `error` code.
        error: String,
        /// The `error_description`, if any.
        description: Option<String>,
    },
    /// A response failed a security check (a `state` or `iss` mismatch, metadata naming
    /// another issuer or resource); the flow was abandoned and nothing was sent on.
    #[error("rejected: {0}")]
    Rejected(String),
    /// The servers lack something the client needs (PKCE with S256, a way to obtain a client
    /// identity, an endpoint): configure the client differently or use another server.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The user-agent step failed (the browser never came back, the redirect was not followed).
    #[error("user agent: {0}")]
    UserAgent(String),
    /// Authorization was attempted this many times in a row without the server accepting the
    /// token (see `OAuthClient::handle_challenge`).
    #[error("gave up after {0} authorization attempts")]
    RetryLimit(u32),
}

impl Error {
    pub(crate) fn authorization_server(
        message: impl Into<String>,
        source: impl Into<BoxError>,
    ) -> Self {
        Self::AuthorizationServer {
            message: message.into(),
            source: Some(source.into()),
        }
    }

    pub(crate) fn authorization_server_msg(message: impl Into<String>) -> Self {
        Self::AuthorizationServer {
            message: message.into(),
            source: None,
        }
    }
}
