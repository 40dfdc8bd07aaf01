//! The HTTP client transport against scripted servers.

mod auth;
mod basic;
mod cancel;
mod legacy;
mod limits;
mod resume;
mod server_requests;
mod session;
mod support;
