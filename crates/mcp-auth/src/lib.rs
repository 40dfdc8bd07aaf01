//! OAuth 2.1 authorization for the Model Context Protocol.
//!
//! This crate is the **resource-server** side of [MCP authorization]: it protects an MCP HTTP
//! server (for instance the axum `Router` of `mcp-transport-http`) with bearer tokens issued by
//! an OAuth 2.1 authorization server. It is independent of the other MCP crates: it joins the
//! HTTP stack as a tower [`Layer`](tower::Layer), and handlers read the authenticated
//! [`Principal`] from the request extensions. With the `client` feature it is also the
//! **client** side: [`OAuthClient`] obtains and renews the tokens an MCP client sends.
//!
//! - [`ResourceServer`] describes the protected resource (its URL, its authorization servers,
//!   the scopes it knows and requires) and serves the RFC 9728 protected resource metadata
//!   ([`ResourceServer::metadata_router`]).
//! - [`BearerAuthLayer`] takes the bearer token from the `Authorization` header, validates it
//!   with a [`TokenValidator`], checks the required scopes, and either calls the inner service
//!   with the [`Principal`] (and its [`Scopes`]) in the request extensions or answers
//!   401 / 403 with the `WWW-Authenticate` challenge MCP clients use to discover the
//!   authorization server.
//! - Two validators: [`JwtValidator`] (JWT access tokens, RFC 9068, checked against the
//!   authorization server's JWKS) and [`IntrospectionValidator`] (RFC 7662 token
//!   introspection, for opaque tokens).
//! - DPoP (RFC 9449), opt-in with [`ResourceServerBuilder::dpop`] ([`DpopPolicy`]): tokens
//!   bound to a client key, presented with `Authorization: DPoP` and a proof per request.
//!
//! [MCP authorization]: https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
//!
//! # Example
//!
//! ```
//! # #[cfg(feature = "server")]
//! # fn main() -> Result<(), mcp_auth::Error> {
//! use axum::{Extension, Router, routing::post};
//! use mcp_auth::{BearerAuthLayer, JwtValidator, Principal, ResourceServer};
//!
//! // The MCP endpoint is https://mcp.example.com/mcp; tokens come from https://auth.example.com.
//! let resource = ResourceServer::builder("https://mcp.example.com/mcp")
//!     .authorization_server("https://auth.example.com")
//!     .scopes_supported(["mcp:read", "mcp:write"])
//!     .required_scopes(["mcp:read"])
//!     .build()?;
//! assert_eq!(
//!     resource.metadata_url(),
//!     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
//! );
//!
//! // JWT access tokens whose `aud` is the resource URL, signed by a key of the issuer's JWKS
//! // (found through its metadata, fetched on first use).
//! let validator = JwtValidator::builder("https://auth.example.com", resource.resource()).build()?;
//!
//! // Normally the MCP server's router (mcp-transport-http); any axum or tower service works.
//! let mcp = Router::new().route(
//!     "/mcp",
//!     post(|Extension(principal): Extension<Principal>| async move {
//!         format!("hello {}", principal.subject.unwrap_or_default())
//!     }),
//! );
//! let app: Router = mcp
//!     .layer(BearerAuthLayer::new(&resource, validator))
//!     // The metadata must stay reachable without a token: merge it outside the layer.
//!     .merge(resource.metadata_router());
//! # let _ = app;
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "server"))]
//! # fn main() {}
//! ```
//!
//! With `mcp-transport-http`, a tool handler finds the principal in the extensions of its
//! request context, which carry the HTTP request's extensions as one value:
//! `cx.extensions().get::<http::Extensions>().and_then(|e| e.get::<Principal>())`.
//!
//! # Token passthrough is forbidden
//!
//! A token presented to this server was issued for this server (its audience is checked on
//! every request, and there is no option to skip that check). It must never be forwarded to
//! another service: to call an upstream API on the user's behalf, obtain a token for that API
//! (for instance by token exchange). The layer itself sends the token nowhere except to the
//! configured introspection endpoint (with [`IntrospectionValidator`]); it leaves the request's
//! headers as they are, so the `Authorization` header stays visible to the inner service, which
//! must not copy it into outbound requests. Tokens are read from the `Authorization` header
//! only, never from the query string or the body.
//!
//! # Cargo features
//!
//! - `server` (default): everything above; depends on tower, axum (for the metadata router),
//!   jsonwebtoken (with aws-lc-rs) and reqwest (JWKS, metadata and introspection requests).
//! - `client`: the OAuth client side, [`OAuthClient`] (see its docs for the flow and an
//!   example): discovery from a 401 challenge, client registration, authorization code with
//!   PKCE through a [`UserAgent`] ([`HeadlessUserAgent`], [`LoopbackUserAgent`]), refresh,
//!   client credentials (secret or `private_key_jwt`), the JWT bearer grant with an
//!   [`AssertionSource`] (workload identity federation with [`StaticAssertion`] or
//!   [`assertion_fn`]; enterprise-managed authorization with [`IdJagExchange`]), DPoP-bound
//!   tokens with a [`DpopKey`] (RFC 9449, nonces included), step-up, tokens in a
//!   [`TokenStore`] ([`InMemoryTokenStore`]). Depends on reqwest, jsonwebtoken and aws-lc-rs
//!   (PKCE hashing, DPoP keys and proofs, randomness), tokio (the loopback listener).
//!
//!   It joins an HTTP client transport through a per-request hook: give each request the
//!   headers of [`OAuthClient::request_headers`] (the `Authorization` value, plus the `DPoP`
//!   proof for a DPoP-bound token), record `DPoP-Nonce` headers with
//!   [`OAuthClient::dpop_nonce`], and hand refusals to [`OAuthClient::handle_challenge`].
//! - `transport-http`: `OAuthClient` is `mcp-transport-http`'s client `AuthProvider`, which
//!   does all of that: `StreamableHttpClientTransport::builder(url).auth(oauth)`. With
//!   `server` too, [`BearerAuthLayer`] inserts each accepted token's
//!   `mcp_transport_http::PrincipalId` ([`Principal::id`]), to which the Streamable HTTP
//!   server binds sessions by default.
//!
//! # Cancel safety
//!
//! Every future in this crate may be dropped at any await point. Dropping a validation that
//! is refreshing the JWKS abandons that refresh; the next validation starts another (still
//! subject to the minimum refresh interval). Nothing is spawned.
//!
//! On the client side, [`OAuthClient::handle_challenge`] may be dropped at any await point;
//! a flow dropped after the authorization server issued a token loses that token (the next
//! challenge starts again). Dropping [`OAuthClient::authorization_header`] during a refresh
//! may lose a rotated refresh token; the next 401 then starts a new authorization.

// The crate docs name the client side's items, which exist with the `client` feature only.
#![cfg_attr(not(feature = "client"), allow(rustdoc::broken_intra_doc_links))]

/// The examples of the crate's README, compiled and run as doctests (not rendered).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[cfg(feature = "client")]
mod client;
#[cfg(any(feature = "server", feature = "client"))]
mod digest;
#[cfg(any(feature = "server", feature = "client"))]
mod error;
#[cfg(feature = "server")]
mod server;

/// Not API: the entry points of the fuzz targets in the workspace's `fuzz/` directory. Each
/// feeds arbitrary input through the parser that peer-controlled input reaches in production;
/// none may panic. Not covered by semver.
#[doc(hidden)]
#[cfg(any(feature = "server", feature = "client"))]
pub mod fuzzing {
    /// The client's parser of a `WWW-Authenticate` header value.
    #[cfg(feature = "client")]
    pub fn www_authenticate(value: &str) {
        let _ = crate::client::challenge::parse(value);
    }

    /// The resource server's parsing of `Authorization` header values.
    #[cfg(feature = "server")]
    pub fn authorization(values: &[&[u8]]) {
        crate::server::layer::fuzz_credentials(values);
    }

    /// The header checks of a JWT access token that need no key (RFC 7515 `crit`, `alg`).
    #[cfg(feature = "server")]
    pub fn jwt_header(token: &str) {
        let _ = crate::server::jwt::check_header(token);
    }

    /// The whole check of a DPoP proof (RFC 9449 §4.3) for a fixed request.
    #[cfg(feature = "server")]
    pub fn dpop_proof(proof: &str) {
        crate::server::dpop::fuzz_verify(proof);
    }
}

#[cfg(feature = "client")]
pub use client::{
    AssertionFn, AssertionRequest, AssertionSource, AuthorizationServerMetadata, BoxFuture,
    DpopKey, HeadlessUserAgent, IdJagExchange, InMemoryTokenStore, LoopbackUserAgent, OAuthClient,
    OAuthClientBuilder, RegisteredClient, Retry, StaticAssertion, StoredToken,
    TokenEndpointAuthMethod, TokenKey, TokenStore, TokenType, UserAgent, assertion_fn,
};
#[cfg(any(feature = "server", feature = "client"))]
pub use error::{BoxError, Error, Result};
#[cfg(feature = "server")]
pub use server::{
    BearerAuth, BearerAuthLayer, DpopPolicy, IntrospectionValidator, IntrospectionValidatorBuilder,
    JwtValidator, JwtValidatorBuilder, Principal, ProtectedResourceMetadata, ResourceServer,
    ResourceServerBuilder, Scopes, TokenValidator,
};
