//! Message size and concurrency limits.

use std::sync::atomic::Ordering;

use expect_test::expect;
use mcp_jsonrpc::{Config, Error};
use serde_json::json;

use crate::common::{TestHandler, probe, recv_text, recv_value, send_text, start};

fn limited() -> Config {
    let mut config = Config::default();
    config.max_message_size = 200;
    config
}

#[tokio::test(start_paused = true)]
async fn an_oversized_request_is_refused_with_its_id() {
    let (p, _events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p), limited());
    let big = json!({"jsonrpc":"2.0","id":"big","method":"echo","params":{"x":"a".repeat(300)}});
    send_text(&mut remote, &big.to_string()).await;
    expect![[r#"{"jsonrpc":"2.0","id":"big","error":{"code":-32600,"message":"message of 360 bytes exceeds the limit of 200 bytes"}}"#]]
        .assert_eq(&recv_text(&mut remote).await);
    // Oversized notifications are dropped; small messages still work.
    let note = json!({"jsonrpc":"2.0","method":"note","params":{"x":"a".repeat(300)}});
    send_text(&mut remote, &note.to_string()).await;
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}"#,
    )
    .await;
    expect![[r#"{"jsonrpc":"2.0","id":1,"result":{}}"#]].assert_eq(&recv_text(&mut remote).await);
}

#[tokio::test(start_paused = true)]
async fn an_oversized_response_fails_the_request() {
    let (peer, mut remote, _run) = start((), limited());
    let call = {
        let peer = peer.clone();
        tokio::spawn(async move { peer.request("get", None).await })
    };
    let req = recv_value(&mut remote).await;
    let resp = json!({"jsonrpc":"2.0","id":req["id"],"result":"a".repeat(300)});
    send_text(&mut remote, &resp.to_string()).await;
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(err, Error::MessageTooLarge { limit: 200, .. }),
        "{err:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn concurrency_is_capped_and_the_backlog_is_served_later() {
    let (p, _events) = probe();
    let mut config = Config::default();
    config.max_concurrent_requests = 3;
    let (_peer, mut remote, _run) = start(TestHandler(p.clone()), config);
    for i in 0..10 {
        let req = json!({"jsonrpc":"2.0","id":i,"method":"block","params":{}});
        send_text(&mut remote, &req.to_string()).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    assert_eq!(p.running.load(Ordering::SeqCst), 3);
    p.gate.add_permits(10);
    let mut ids = Vec::new();
    for _ in 0..10 {
        ids.push(recv_value(&mut remote).await["id"].as_u64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, (0..10).collect::<Vec<_>>());
    assert_eq!(p.max_running.load(Ordering::SeqCst), 3);
}
