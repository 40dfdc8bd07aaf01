//! [`PrincipalId`]: who a request is authenticated as, in the words an auth layer and the
//! server both know.

use std::fmt;
use std::sync::Arc;

/// The id of a request's authenticated principal (a token's issuer and subject, say), put into
/// the request's `http::Extensions` by an auth layer in front of the MCP endpoint.
///
/// The server binds each session to the `PrincipalId` of the request that opened it: a request
/// naming the session with another principal, or with none, is answered 404 as for an unknown
/// session, and the principal is the client its session quota counts against (see
/// `server::Builder::principal`, which can name the principal some other way).
/// `mcp-auth`'s `BearerAuthLayer` inserts one for every token it accepts (with its
/// `transport-http` feature). It lives outside the `server` and `client` features, so that an
/// auth layer can name it whatever features it builds this crate with.
///
/// ```
/// use mcp_transport_http::PrincipalId;
///
/// let mut extensions = http::Extensions::new();
/// extensions.insert(PrincipalId::new("https://issuer.example alice"));
/// assert_eq!(
///     extensions.get::<PrincipalId>().map(PrincipalId::as_str),
///     Some("https://issuer.example alice")
/// );
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PrincipalId(pub(crate) Arc<str>);

impl PrincipalId {
    /// The principal named `id`; two requests are the same principal when their ids are equal.
    pub fn new(id: impl Into<Arc<str>>) -> Self {
        PrincipalId(id.into())
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for PrincipalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PrincipalId").field(&&*self.0).finish()
    }
}

impl fmt::Display for PrincipalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
