//! Integration tests of mcp-transport-http (public API only).

#[cfg(feature = "client")]
mod client;
#[cfg(feature = "server")]
mod server;
