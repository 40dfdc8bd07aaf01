//! The crate's error type.

/// A boxed error, the source of [`Error::AuthorizationServer`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong when configuring a resource server or validating a token.
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
