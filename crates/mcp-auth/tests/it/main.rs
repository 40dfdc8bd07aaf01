//! Integration tests of `mcp-auth` against a real authorization server (`oidc-provider`, run
//! by `tests/peers/oidc/provider.mjs` on 127.0.0.1).

mod support;

// The client tests also need the `server` side (default); CI runs with `--all-features`.
#[cfg(feature = "client")]
mod client;
mod introspection;
mod jwt;
mod metadata;
