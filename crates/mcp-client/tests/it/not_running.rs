//! A call on a client whose `Connection` nobody polls fails fast with
//! `Error::ConnectionNotRunning`; a connection that is spawned or polled alongside the calls
//! (even late, within the grace period) sees no such error.

use std::time::{Duration, Instant};

use mcp_client::{CONNECTION_GRACE, Client, ClientBuilder, Connection, EraChoice, Error};
use mcp_server::{Server, Tool};
use mcp_types::{EmptyParams, RootsListChanged};

const NOT_POLLED: &str = "the client's connection is not running: the `Connection` future \
    returned by `connect` was not polled within 250ms of the call; run it with \
    `tokio::spawn(connection)`, or poll it alongside the calls with `tokio::join!` or \
    `tokio::select!`";

const DROPPED: &str = "the client's connection is not running: the `Connection` future \
    returned by `connect` was dropped without being polled; run it with \
    `tokio::spawn(connection)`, or poll it alongside the calls with `tokio::join!` or \
    `tokio::select!`";

/// A client of a real server with tool `ping`, and its connection, not yet polled.
async fn connect() -> (Client, Connection) {
    connect_with(Client::builder()).await
}

async fn connect_with(builder: ClientBuilder) -> (Client, Connection) {
    let server = Server::builder()
        .name("s")
        .version("1.0")
        .tool(Tool::new("ping", || async { "pong" }))
        .build();
    let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
    tokio::spawn(async move { server.serve(server_end).await });
    builder.connect(client_end).await.expect("connect")
}

async fn ping(client: &Client) -> mcp_client::Result<()> {
    let result = client.call_tool("ping").await?;
    assert_eq!(result.content[0].as_text(), Some("pong"));
    Ok(())
}

#[tokio::test]
async fn a_call_on_a_connection_nobody_polls_fails_within_a_second() {
    let (client, connection) = connect().await;
    let start = Instant::now();
    let e = ping(&client).await.unwrap_err();
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_secs(1), "{elapsed:?}");
    assert!(elapsed >= CONNECTION_GRACE, "{elapsed:?}");
    assert!(
        matches!(e, Error::ConnectionNotRunning { dropped: false }),
        "{e:?}"
    );
    assert_eq!(e.to_string(), NOT_POLLED);
    // Notifications too.
    let e = client
        .notify::<RootsListChanged>(EmptyParams::default())
        .await
        .unwrap_err();
    assert_eq!(e.to_string(), NOT_POLLED);

    // Nothing was sent; once the connection runs, the client works.
    tokio::spawn(connection);
    ping(&client).await.unwrap();
}

#[tokio::test]
async fn a_call_after_the_connection_was_dropped_unpolled_fails_at_once() {
    let (client, connection) = connect().await;
    drop(connection);
    let start = Instant::now();
    let e = ping(&client).await.unwrap_err();
    assert!(start.elapsed() < CONNECTION_GRACE, "{:?}", start.elapsed());
    assert!(
        matches!(e, Error::ConnectionNotRunning { dropped: true }),
        "{e:?}"
    );
    assert_eq!(e.to_string(), DROPPED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spawned_connection_serves_the_first_call_on_a_multi_thread_runtime() {
    for _ in 0..20 {
        let (client, connection) = connect().await;
        tokio::spawn(connection);
        ping(&client).await.unwrap();
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_spawned_connection_serves_the_first_call_on_a_current_thread_runtime() {
    // The handshake era, which has the roots notification.
    let (client, connection) = connect_with(Client::builder().era(EraChoice::Legacy)).await;
    // The spawned task runs only once this task yields: the call waits for it.
    tokio::spawn(connection);
    ping(&client).await.unwrap();
    client
        .notify::<RootsListChanged>(EmptyParams::default())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_connection_joined_with_the_calls_serves_them_in_either_order() {
    for connection_first in [true, false] {
        let (client, connection) = connect().await;
        let calls = async {
            let result = ping(&client).await;
            client.close();
            result
        };
        let (result, end) = if connection_first {
            let (end, result) = tokio::join!(connection, calls);
            (result, end)
        } else {
            tokio::join!(calls, connection)
        };
        result.unwrap();
        end.unwrap();
    }
}

#[tokio::test]
async fn a_connection_polled_in_a_select_serves_the_calls() {
    let (client, mut connection) = connect().await;
    tokio::select! {
        result = ping(&client) => result.unwrap(),
        end = &mut connection => panic!("the connection ended first: {end:?}"),
    }
}

/// Polled 100 ms after the call started, within the grace period.
#[tokio::test(start_paused = true)]
async fn a_connection_polled_late_within_the_grace_period_serves_the_call() {
    let (client, connection) = connect().await;
    let late = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        connection.await
    };
    let calls = async {
        let start = tokio::time::Instant::now();
        let result = ping(&client).await;
        let waited = start.elapsed();
        client.close();
        (result, waited)
    };
    let ((result, waited), end) = tokio::join!(calls, late);
    result.unwrap();
    end.unwrap();
    assert_eq!(waited, Duration::from_millis(100));
}
