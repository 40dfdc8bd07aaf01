//! Closing: pending requests fail with the closed error, nothing hangs.

use mcp_jsonrpc::{Config, Error, Transport};
use serde_json::json;

use crate::common::{raw, recv_value, start};

fn closed_reason(r: mcp_jsonrpc::Result<Box<serde_json::value::RawValue>>) -> String {
    match r {
        Err(Error::Closed { reason }) => reason,
        other => panic!("expected a closed error, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn close_fails_pending_requests_and_flushes_notifications() {
    let (peer, mut remote, run) = start((), Config::default());
    let call = {
        let peer = peer.clone();
        tokio::spawn(async move { peer.request("never", None).await })
    };
    assert_eq!(recv_value(&mut remote).await["method"], "never");
    peer.notify("bye", raw(json!({}))).await.unwrap();
    peer.close();
    assert_eq!(
        closed_reason(call.await.unwrap()),
        "closed by the local side"
    );
    run.await.unwrap().unwrap();
    peer.closed().await;
    assert!(peer.is_closed());
    assert_eq!(recv_value(&mut remote).await["method"], "bye");
    // The transport was closed: the stream ends.
    assert!(remote.recv().await.unwrap().is_none());
    // New calls fail at once.
    assert_eq!(
        closed_reason(peer.request("late", None).await),
        "closed by the local side"
    );
    assert!(matches!(
        peer.notify("late", None).await,
        Err(Error::Closed { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn the_peer_going_away_fails_pending_requests() {
    let (peer, mut remote, run) = start((), Config::default());
    let call = {
        let peer = peer.clone();
        tokio::spawn(async move { peer.request("never", None).await })
    };
    recv_value(&mut remote).await;
    drop(remote);
    assert_eq!(
        closed_reason(call.await.unwrap()),
        "peer closed the connection"
    );
    run.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn dropping_the_run_future_fails_pending_requests() {
    let (peer, mut remote, run) = start((), Config::default());
    let call = {
        let peer = peer.clone();
        tokio::spawn(async move { peer.request("never", None).await })
    };
    recv_value(&mut remote).await;
    run.abort();
    assert_eq!(closed_reason(call.await.unwrap()), "connection dropped");
    peer.closed().await;
}

/// A memory transport whose peer reads after its end of stream (as over stdio).
struct HalfClosing(mcp_jsonrpc::memory::MemoryTransport);

impl Transport for HalfClosing {
    type Error = mcp_jsonrpc::memory::MemoryClosed;

    fn send(
        &mut self,
        msg: mcp_jsonrpc::Message,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.0.send(msg)
    }

    async fn recv(&mut self) -> Result<Option<mcp_jsonrpc::Message>, Self::Error> {
        self.0.recv().await
    }

    fn peer_reads_after_end(&self) -> bool {
        true
    }
}

/// A connection over [`HalfClosing`], the other end raw for the test.
fn start_half_closing(
    probe: crate::common::Probe,
) -> (
    mcp_jsonrpc::memory::MemoryTransport,
    tokio::task::JoinHandle<mcp_jsonrpc::Result<()>>,
) {
    let (ours, remote) = mcp_jsonrpc::memory::pair(16);
    let (_peer, conn) = mcp_jsonrpc::Connection::new(
        HalfClosing(ours),
        crate::common::TestHandler(probe),
        Config::default(),
    );
    (remote, tokio::spawn(conn.run()))
}

/// Plays a peer that sends a request which blocks, sees it start, and ends its stream.
async fn block_then_end(
    remote: &mut mcp_jsonrpc::memory::MemoryTransport,
    events: &mut crate::common::Events,
    id: u64,
) {
    crate::common::send_text(
        remote,
        &json!({"jsonrpc": "2.0", "id": id, "method": "block", "params": {}}).to_string(),
    )
    .await;
    assert_eq!(events.next().await, format!("started {id}"));
    remote.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn requests_read_before_the_peer_ends_its_stream_are_still_answered() {
    let (probe, _events) = crate::common::probe();
    let (mut remote, run) = start_half_closing(probe);
    for id in 1..=3 {
        crate::common::send_text(
            &mut remote,
            &json!({"jsonrpc": "2.0", "id": id, "method": "sleep",
                "params": {"ms": 100 * id, "value": id}})
            .to_string(),
        )
        .await;
    }
    // The peer will send nothing more (a stdio client closing the server's stdin) but still
    // reads.
    remote.close().await.unwrap();
    let mut answers = Vec::new();
    for _ in 1..=3 {
        let answer = recv_value(&mut remote).await;
        assert_eq!(answer["result"], answer["id"], "{answer}");
        answers.push(answer["id"].as_u64().unwrap());
    }
    assert_eq!(answers, [1, 2, 3]);
    run.await.unwrap().unwrap();
    assert!(remote.recv().await.unwrap().is_none());
}

#[tokio::test(start_paused = true)]
async fn a_request_still_running_a_flush_timeout_after_the_peers_end_is_cancelled() {
    let (probe, mut events) = crate::common::probe();
    let (mut remote, run) = start_half_closing(probe);
    block_then_end(&mut remote, &mut events, 7).await;
    let started = tokio::time::Instant::now();
    run.await.unwrap().unwrap();
    assert_eq!(started.elapsed(), Config::default().flush_timeout);
    assert_eq!(events.next().await, "dropped 7 cancelled=true");
    // No answer went out: the stream just ends.
    assert!(remote.recv().await.unwrap().is_none());
}

#[tokio::test(start_paused = true)]
async fn a_peer_that_does_not_read_after_its_end_cancels_at_once() {
    let (probe, mut events) = crate::common::probe();
    let (_peer, mut remote, run) = start(crate::common::TestHandler(probe), Config::default());
    block_then_end(&mut remote, &mut events, 8).await;
    let started = tokio::time::Instant::now();
    run.await.unwrap().unwrap();
    // The memory transport's end of stream is the peer going away: no waiting.
    assert_eq!(started.elapsed(), std::time::Duration::ZERO);
    assert_eq!(events.next().await, "dropped 8 cancelled=true");
}
