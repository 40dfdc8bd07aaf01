//! Bad input gets an error reply, and the connection continues.

use expect_test::{Expect, expect};
use mcp_jsonrpc::Config;

use crate::common::{TestHandler, probe, recv_text, recv_value, send_text, start};

async fn check(input: &str, expected: Expect) {
    let (p, _events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p), Config::default());
    send_text(&mut remote, input).await;
    expected.assert_eq(&recv_text(&mut remote).await);
    // Still serving.
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":"after","method":"echo","params":[true]}"#,
    )
    .await;
    expect![[r#"{"jsonrpc":"2.0","id":"after","result":[true]}"#]]
        .assert_eq(&recv_text(&mut remote).await);
}

#[tokio::test(start_paused = true)]
async fn invalid_json_gets_parse_error_with_null_id() {
    check(
        r#"{"jsonrpc":"2.0","id":1,"method":"#,
        expect![[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: EOF while parsing a value at line 1 column 33"}}"#]],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_malformed_envelope_gets_invalid_request_with_its_id() {
    check(
        r#"{"jsonrpc":"2.0","id":5,"method":"echo","params":"text"}"#,
        expect![[r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"params must be an object or an array"}}"#]],
    )
    .await;
    check(
        r#"{"id":6,"method":"echo"}"#,
        expect![[r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"jsonrpc must be \"2.0\""}}"#]],
    )
    .await;
    check(
        r#"{"jsonrpc":"2.0","id":{},"method":"echo"}"#,
        expect![[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id must be a string or an integer"}}"#]],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn an_unknown_method_gets_method_not_found() {
    check(
        r#"{"jsonrpc":"2.0","id":7,"method":"no/such"}"#,
        expect![[r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"method not found: no/such"}}"#]],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn bad_params_get_invalid_params() {
    check(
        r#"{"jsonrpc":"2.0","id":8,"method":"typed","params":{"a":"x"}}"#,
        expect![[r#"{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"invalid params: invalid type: string \"x\", expected u32 at line 1 column 8"}}"#]],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_duplicate_id_of_a_running_request_is_refused() {
    let (p, mut events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p), Config::default());
    send_text(&mut remote, r#"{"jsonrpc":"2.0","id":1,"method":"block"}"#).await;
    assert_eq!(events.next().await, "started 1");
    send_text(&mut remote, r#"{"jsonrpc":"2.0","id":1,"method":"echo"}"#).await;
    expect![[
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"duplicate request id"}}"#
    ]]
    .assert_eq(&recv_text(&mut remote).await);
}

#[tokio::test(start_paused = true)]
async fn a_duplicate_id_of_a_waiting_request_is_refused_and_freed_once_it_ran() {
    let (p, mut events) = probe();
    let mut config = Config::default();
    config.max_concurrent_requests = 1;
    let (_peer, mut remote, _run) = start(TestHandler(p.clone()), config);
    send_text(&mut remote, r#"{"jsonrpc":"2.0","id":1,"method":"block"}"#).await;
    assert_eq!(events.next().await, "started 1");
    // 2 waits in the backlog behind 1; a second 2 is a duplicate of it.
    send_text(&mut remote, r#"{"jsonrpc":"2.0","id":2,"method":"block"}"#).await;
    send_text(&mut remote, r#"{"jsonrpc":"2.0","id":2,"method":"echo"}"#).await;
    expect![[
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"duplicate request id"}}"#
    ]]
    .assert_eq(&recv_text(&mut remote).await);
    // 1 ends, 2 starts and ends: id 2 is free again.
    p.gate.add_permits(1);
    assert_eq!(recv_value(&mut remote).await["id"], 1);
    assert_eq!(events.next().await, "started 2");
    p.gate.add_permits(1);
    assert_eq!(recv_value(&mut remote).await["id"], 2);
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":2,"method":"echo","params":{}}"#,
    )
    .await;
    expect![[r#"{"jsonrpc":"2.0","id":2,"result":{}}"#]].assert_eq(&recv_text(&mut remote).await);
}

#[tokio::test(start_paused = true)]
async fn stray_responses_are_not_answered() {
    let (p, _events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p), Config::default());
    send_text(&mut remote, r#"{"jsonrpc":"2.0","id":99,"result":{}}"#).await;
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
    )
    .await;
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}"#,
    )
    .await;
    // The first thing written is the answer to 1.
    expect![[r#"{"jsonrpc":"2.0","id":1,"result":{}}"#]].assert_eq(&recv_text(&mut remote).await);
}
