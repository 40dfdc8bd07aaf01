//! Inbound batches: refused unless enabled, answered as one array when enabled.

use expect_test::expect;
use mcp_jsonrpc::Config;
use serde_json::Value;

use crate::common::{TestHandler, probe, recv_text, recv_value, send_text, start};

const BATCH: &str = r#"[
    {"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}},
    {"jsonrpc":"2.0","method":"note","params":{"n":2}},
    {"jsonrpc":"2.0","id":3,"method":"no/such"},
    {"jsonrpc":"2.0","id":4,"method":"sleep","params":{"ms":5,"value":4}},
    7
]"#;

/// The array's entries sorted by id, so completion order does not matter.
fn sorted(v: Value) -> String {
    let mut items = v.as_array().expect("an array").clone();
    items.sort_by_key(|i| i["id"].to_string());
    serde_json::to_string_pretty(&items).unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_batch_is_refused_when_batching_is_off() {
    let (p, _events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p), Config::default());
    send_text(&mut remote, BATCH).await;
    expect![[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not supported"}}"#]]
        .assert_eq(&recv_text(&mut remote).await);
}

#[tokio::test(start_paused = true)]
async fn a_batch_is_answered_with_one_array_once_enabled() {
    let (p, mut events) = probe();
    let (peer, mut remote, _run) = start(TestHandler(p), Config::default());
    assert!(!peer.batching());
    // Negotiation happens after the connection starts: switch at runtime.
    peer.set_batching(true);
    send_text(&mut remote, BATCH).await;
    expect![[r#"
        [
          {
            "id": 1,
            "jsonrpc": "2.0",
            "result": {
              "n": 1
            }
          },
          {
            "error": {
              "code": -32601,
              "message": "method not found: no/such"
            },
            "id": 3,
            "jsonrpc": "2.0"
          },
          {
            "id": 4,
            "jsonrpc": "2.0",
            "result": 4
          },
          {
            "error": {
              "code": -32600,
              "message": "invalid request: invalid type: integer `7`, expected struct Envelope at line 1 column 1"
            },
            "id": null,
            "jsonrpc": "2.0"
          }
        ]"#]]
    .assert_eq(&sorted(recv_value(&mut remote).await));
    assert_eq!(events.next().await, r#"note {"n":2}"#);

    peer.set_batching(false);
    send_text(&mut remote, BATCH).await;
    assert_eq!(recv_value(&mut remote).await["error"]["code"], -32600);
}

#[tokio::test(start_paused = true)]
async fn a_batch_of_notifications_gets_no_answer() {
    let (p, mut events) = probe();
    let mut config = Config::default();
    config.batching = true;
    let (_peer, mut remote, _run) = start(TestHandler(p), config);
    send_text(
        &mut remote,
        r#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]"#,
    )
    .await;
    assert_eq!(events.next().await, "a null");
    assert_eq!(events.next().await, "b null");
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":1,"method":"echo","params":[]}"#,
    )
    .await;
    expect![[r#"{"jsonrpc":"2.0","id":1,"result":[]}"#]].assert_eq(&recv_text(&mut remote).await);
}
