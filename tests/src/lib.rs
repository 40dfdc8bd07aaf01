//! End-to-end tests of the workspace; the tests live in `tests/e2e/`.
//!
//! They run the example binaries (built on demand with `cargo build --workspace
//! --all-features --bin ...`) as real processes, drive them over stdio, and check them
//! against real peers: the Python SDK client and the MCP Inspector CLI, installed by
//! `cargo xtask setup`.
//!
//! Run with `cargo nextest run -p e2e` (or `cargo test -p e2e`).
