//! The pure parts of the benchmark harness of `cargo xtask bench` (issue 15), shared by its
//! binaries and unit-tested here: the servers' command line ([`args`]), the floors' JSON-RPC
//! echo ([`floor`]), the raw HTTP/1 accept loop ([`http1`]), raw JSON-RPC request bytes and response checks ([`wire`]), percentiles
//! and summaries ([`stats`]), `/proc` parsing ([`procfs`]) and the markdown report
//! ([`report`]).
//!
//! The binaries: `echo-ours` and `echo-rmcp` (the same echo server on each SDK),
//! `floor-stdio` and `floor-http` (the raw floors), `floor-stdio-async` (the stdio floor on
//! tokio's reactor, set against `floor-stdio` and `echo-ours` in tables of their own), and
//! `loadgen` (the neutral load generator that runs every scenario and writes the report; its
//! Redis scenarios compare `echo-ours` with in-memory stores against `echo-ours --redis`, in
//! tables of their own).

pub mod args;
pub mod floor;
pub mod http1;
pub mod procfs;
pub mod report;
pub mod stats;
pub mod wire;
