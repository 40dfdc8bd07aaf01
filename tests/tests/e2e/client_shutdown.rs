//! The shutdown sequence of our client over stdio: close stdin, then `SIGTERM`, then
//! `SIGKILL`, seen through the `ProcessHandle`; `close()` and the connection future always
//! complete.

use std::os::unix::process::ExitStatusExt as _;

use mcp_client::Client;
use mcp_transport_stdio::ShutdownOutcome;
use mcp_types::CallToolRequestParams;

use crate::client_support::{IGNORE_EOF, Running, SHUTDOWN_STEP, everything, fake_server};
use crate::support::client::within;

#[tokio::test]
async fn close_ends_everything_server_by_closing_its_stdin() {
    let running = Running::start(everything(), Client::builder()).await;
    running.client.ping().await.unwrap();
    let process = running.close().await;
    assert_eq!(
        process.shutdown_outcome(),
        Some(ShutdownOutcome::StdinClosed)
    );
    assert_eq!(process.exit_status().and_then(|s| s.code()), Some(0));
}

#[tokio::test]
async fn dropping_the_last_client_handle_closes_the_connection() {
    let running = Running::start(everything(), Client::builder()).await;
    let clone = running.client.clone();
    drop(running.client);
    assert!(!clone.is_closed(), "a clone keeps the connection open");
    clone.ping().await.unwrap();
    drop(clone);
    within("the connection to end", running.connection)
        .await
        .unwrap()
        .unwrap();
    within("the server to exit", running.process.exited()).await;
    assert_eq!(
        running.process.shutdown_outcome(),
        Some(ShutdownOutcome::StdinClosed)
    );
}

#[tokio::test]
async fn a_server_ignoring_stdin_close_gets_sigterm() {
    let server = fake_server("", IGNORE_EOF)
        .close_timeout(SHUTDOWN_STEP)
        .term_timeout(SHUTDOWN_STEP * 10);
    let running = Running::start(server, legacy()).await;
    assert_eq!(running.client.server_info().name, "fake");
    let process = running.close().await;
    assert_eq!(
        process.shutdown_outcome(),
        Some(ShutdownOutcome::Terminated)
    );
    assert_eq!(process.exit_status().and_then(|s| s.signal()), Some(15));
}

#[tokio::test]
async fn a_server_ignoring_sigterm_gets_sigkill() {
    // The trap is set first, so SIGTERM is ignored whenever it comes; `exec` keeps it ignored.
    let server = fake_server("trap '' TERM", IGNORE_EOF)
        .close_timeout(SHUTDOWN_STEP)
        .term_timeout(SHUTDOWN_STEP);
    let running = Running::start(server, legacy()).await;
    let process = running.close().await;
    assert_eq!(process.shutdown_outcome(), Some(ShutdownOutcome::Killed));
    assert_eq!(process.exit_status().and_then(|s| s.signal()), Some(9));
}

#[tokio::test]
async fn a_server_dying_mid_call_fails_the_call_with_closed() {
    // Reads `notifications/initialized`, then exits with status 3 at the first request.
    let server = fake_server("", "read -r initialized\nread -r request\nexit 3");
    let running = Running::start(server, legacy()).await;
    let err = running
        .client
        .call_tool(CallToolRequestParams::new("anything"))
        .await
        .unwrap_err();
    assert!(err.is_closed(), "{err:?}");
    let source = std::error::Error::source(&err).map(ToString::to_string);
    assert!(
        source
            .as_deref()
            .is_some_and(|s| s == "server process exited with status 3"),
        "the error should name the exit status: {err:?}"
    );
    within("the connection to end", running.connection)
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(
        running.process.exit_status().and_then(|s| s.code()),
        Some(3)
    );
    // close() after the end is harmless.
    running.client.close();
}

/// The scripted fake servers speak the handshake era only, in a fixed order.
fn legacy() -> mcp_client::ClientBuilder {
    Client::builder().era(mcp_client::EraChoice::Legacy)
}
