//! Integration tests of `mcp-jsonrpc`, over the in-memory transport pair.

mod backpressure;
mod bad_input;
mod batch;
mod cancel;
mod close;
mod common;
mod correlation;
mod extensions;
mod inline;
mod limits;
mod ordering;
mod panics;
mod progress;
mod timeout;
mod wakers;
mod writes;
