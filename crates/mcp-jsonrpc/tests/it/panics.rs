//! A panicking handler is answered -32603 and the connection carries on.

use expect_test::expect;
use mcp_jsonrpc::Config;

use crate::common::{TestHandler, probe, recv_text, send_text, start};

#[tokio::test(start_paused = true)]
async fn a_panicking_request_handler_gets_internal_error() {
    let (p, _events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p), Config::default());
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":1,"method":"panic","params":{}}"#,
    )
    .await;
    expect![[
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"request handler panicked"}}"#
    ]]
    .assert_eq(&recv_text(&mut remote).await);
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":2,"method":"echo","params":{}}"#,
    )
    .await;
    expect![[r#"{"jsonrpc":"2.0","id":2,"result":{}}"#]].assert_eq(&recv_text(&mut remote).await);
}

#[tokio::test(start_paused = true)]
async fn a_panicking_notification_handler_does_not_stop_the_next() {
    let (p, mut events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p), Config::default());
    send_text(&mut remote, r#"{"jsonrpc":"2.0","method":"panic"}"#).await;
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","method":"after","params":[1]}"#,
    )
    .await;
    assert_eq!(events.next().await, "after [1]");
}
