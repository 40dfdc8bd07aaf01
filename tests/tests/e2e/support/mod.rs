//! Shared helpers: finding (and building) the binaries under test, finding the test peers
//! installed by `cargo xtask setup`, a raw JSON-RPC client that records the wire, and an
//! OTLP receiver.

pub(crate) mod bins;
pub(crate) mod browser;
pub(crate) mod client;
pub(crate) mod otlp;
pub(crate) mod peers;

use std::path::{Path, PathBuf};

/// The workspace root (the parent of this crate's directory).
pub(crate) fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the e2e crate lives in <workspace>/tests")
}

/// `<workspace>/tests/peers`: the interop scripts.
pub(crate) fn peers_dir() -> PathBuf {
    workspace_root().join("tests").join("peers")
}

/// Runs `cmd` to completion (stdin closed, output captured), failing the test if it takes
/// longer than `limit`; the process is killed if the test gives up on it.
pub(crate) async fn output_within(
    what: &str,
    limit: std::time::Duration,
    mut cmd: tokio::process::Command,
) -> std::process::Output {
    cmd.stdin(std::process::Stdio::null()).kill_on_drop(true);
    match tokio::time::timeout(limit, cmd.output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => panic!("could not run {what}: {e}"),
        Err(_) => panic!("{what} did not finish within {limit:?}"),
    }
}
