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
