//! Integration tests of `mcp-auth` against a real authorization server (`oidc-provider`, run
//! by `tests/peers/oidc/provider.mjs` on 127.0.0.1).

mod support;

mod introspection;
mod jwt;
mod metadata;
