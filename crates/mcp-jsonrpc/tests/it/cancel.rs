//! Cancellation in both directions.

use std::time::Duration;

use mcp_jsonrpc::{Config, Transport};
use serde_json::json;

use crate::common::{TestHandler, connect, probe, raw, recv_value, send_text, start, value};

#[tokio::test(start_paused = true)]
async fn dropping_a_request_cancels_the_handler_on_the_peer() {
    let (pa, _ea) = probe();
    let (pb, mut eb) = probe();
    let (a, _b) = connect(
        TestHandler(pa),
        Config::default(),
        TestHandler(pb),
        Config::default(),
        4,
    );
    let call = {
        let a = a.clone();
        tokio::spawn(async move { a.request("block", raw(json!({}))).await })
    };
    let started = eb.next().await;
    assert!(started.starts_with("started "), "{started}");
    call.abort();
    let id = started.trim_start_matches("started ");
    assert_eq!(eb.next().await, format!("dropped {id} cancelled=true"));
    // The connection carries on.
    let got = a.request("echo", raw(json!({"x": 1}))).await.unwrap();
    assert_eq!(value(&got), json!({"x": 1}));
}

#[tokio::test(start_paused = true)]
async fn an_inbound_cancel_aborts_the_handler_and_nothing_is_answered() {
    let (p, mut events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p), Config::default());
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":"c1","method":"block","params":{}}"#,
    )
    .await;
    assert_eq!(events.next().await, r#"started "c1""#);
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}"#,
    )
    .await;
    assert_eq!(events.next().await, r#"dropped "c1" cancelled=true"#);
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":2,"method":"echo","params":{"y":2}}"#,
    )
    .await;
    // The first thing written is the answer to 2: nothing for "c1".
    assert_eq!(
        recv_value(&mut remote).await,
        json!({"jsonrpc":"2.0","id":2,"result":{"y":2}})
    );
}

#[tokio::test(start_paused = true)]
async fn a_cancel_for_a_queued_request_removes_it() {
    let (p, mut events) = probe();
    let mut config = Config::default();
    config.max_concurrent_requests = 1;
    let (_peer, mut remote, _run) = start(TestHandler(p.clone()), config);
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":1,"method":"block","params":{}}"#,
    )
    .await;
    assert_eq!(events.next().await, "started 1");
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":2,"method":"echo","params":{}}"#,
    )
    .await;
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
    )
    .await;
    // Paused time only advances once every task is idle: the cancel has been read.
    tokio::time::sleep(Duration::from_millis(1)).await;
    p.gate.add_permits(1);
    assert_eq!(recv_value(&mut remote).await["id"], 1);
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":3,"method":"echo","params":{}}"#,
    )
    .await;
    assert_eq!(recv_value(&mut remote).await["id"], 3);
}

#[tokio::test(start_paused = true)]
async fn a_late_response_after_cancel_is_dropped() {
    let (peer, mut remote, _run) = start((), Config::default());
    let call = {
        let peer = peer.clone();
        tokio::spawn(async move { peer.request("slow", None).await })
    };
    let req = recv_value(&mut remote).await;
    call.abort();
    let cancel = recv_value(&mut remote).await;
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], req["id"]);
    assert_eq!(cancel["params"]["reason"], "request cancelled");
    // The peer answers anyway.
    let late = json!({"jsonrpc":"2.0","id": req["id"],"result":{}});
    send_text(&mut remote, &late.to_string()).await;
    // Still usable; the late answer reached nobody.
    let next = {
        let peer = peer.clone();
        tokio::spawn(async move { peer.request("again", None).await })
    };
    let req2 = recv_value(&mut remote).await;
    assert_ne!(req2["id"], req["id"]);
    let resp = json!({"jsonrpc":"2.0","id": req2["id"],"result":7});
    send_text(&mut remote, &resp.to_string()).await;
    assert_eq!(next.await.unwrap().unwrap().get(), "7");
}

#[tokio::test(start_paused = true)]
async fn a_request_dropped_before_it_is_sent_is_never_sent() {
    let mut config = Config::default();
    config.outbound_queue = 1;
    let (peer, mut remote, _run) = start((), config);
    // Fill the path with notifications nobody reads, then give up on a request.
    for i in 0..40 {
        let p = peer.clone();
        if tokio::time::timeout(
            Duration::from_millis(10),
            p.notify("fill", raw(json!({"i": i}))),
        )
        .await
        .is_err()
        {
            break;
        }
    }
    let gave_up =
        tokio::time::timeout(Duration::from_millis(10), peer.request("never", None)).await;
    assert!(gave_up.is_err());
    // Drain: only notifications, then no cancel and no request.
    let mut seen = Vec::new();
    while let Ok(Ok(Some(m))) = tokio::time::timeout(Duration::from_millis(50), remote.recv()).await
    {
        let v: serde_json::Value = serde_json::from_str(&m.to_json().unwrap()).unwrap();
        seen.push(v["method"].clone());
    }
    assert!(!seen.is_empty());
    assert!(seen.iter().all(|m| m == "fill"), "{seen:?}");
}
