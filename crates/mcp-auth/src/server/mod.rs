//! The resource-server side: validators, the layer, the metadata.

pub(crate) mod dpop;
mod fetch;
mod introspection;
mod jws;
pub(crate) mod jwt;
pub(crate) mod layer;
mod metadata;
mod principal;

use std::future::Future;

pub use dpop::DpopPolicy;
pub use introspection::{IntrospectionValidator, IntrospectionValidatorBuilder};
pub use jwt::{JwtValidator, JwtValidatorBuilder};
pub use layer::{BearerAuth, BearerAuthLayer};
pub use metadata::{ProtectedResourceMetadata, ResourceServer, ResourceServerBuilder};
pub use principal::{Principal, Scopes};

use crate::Result;

/// Checks a bearer token and says who presented it.
///
/// Implementations must check that the token is authentic, unexpired, and issued for this
/// resource server (its audience); [`BearerAuthLayer`] checks the scopes afterwards. Return
/// [`Error::InvalidToken`](crate::Error::InvalidToken) for a token that is not acceptable (the
/// layer answers 401) and [`Error::AuthorizationServer`](crate::Error::AuthorizationServer)
/// when the answer is unknown (503). Validation must not panic, whatever the token.
///
/// Built in: [`JwtValidator`] and [`IntrospectionValidator`].
pub trait TokenValidator: Send + Sync + 'static {
    /// Validates `token` (the credentials of an `Authorization: Bearer` header).
    ///
    /// Must be cancel-safe: the layer drops it when the HTTP request is dropped.
    fn validate(&self, token: &str) -> impl Future<Output = Result<Principal>> + Send;
}

impl<V: TokenValidator> TokenValidator for std::sync::Arc<V> {
    fn validate(&self, token: &str) -> impl Future<Output = Result<Principal>> + Send {
        (**self).validate(token)
    }
}
