//! The HTTP client transport against scripted servers.

mod basic;
mod cancel;
mod legacy;
mod resume;
mod session;
mod support;
