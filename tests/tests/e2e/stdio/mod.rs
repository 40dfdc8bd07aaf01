//! `everything-server` over stdio, driven by our own raw JSON-RPC client: the lifecycle,
//! utilities, framing errors and shutdown here; tools, resources and prompts in submodules.

mod prompts;
mod resources;
mod tools;

use std::process::Stdio;

use mcp_jsonrpc::ErrorCode;
use mcp_transport_stdio::ShutdownOutcome;
use mcp_types::{Complete, Ping, SetLevel};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::fixture;
use crate::support::bins::everything_server;
use crate::support::client::{PROTOCOL_VERSION, Session, within};

/// Spawns the server and runs the handshake.
pub(crate) async fn connect() -> Session {
    let (session, _init) = Session::connect(everything_server())
        .await
        .expect("connecting to everything-server");
    session
}

#[tokio::test]
async fn initialize_negotiates_and_declares_the_fixture_capabilities() {
    let (session, init) = Session::connect(everything_server()).await.unwrap();
    assert_eq!(
        init,
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {
                "tools": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "prompts": {"listChanged": true},
                "logging": {},
                "completions": {}
            },
            "serverInfo": {"name": "mcp-conformance-test-server", "version": "1.0.0"}
        })
    );
    let (status, outcome) = session.close().await;
    assert!(status.success(), "exit status {status}");
    assert_eq!(outcome, Some(ShutdownOutcome::StdinClosed));
}

#[tokio::test]
async fn ping_set_level_and_completion_answer_as_the_fixture_does() {
    let session = connect().await;
    assert_eq!(session.call::<Ping>(json!({})).await.unwrap(), json!({}));
    for level in ["debug", "info", "warning", "error"] {
        assert_eq!(
            session
                .call::<SetLevel>(json!({"level": level}))
                .await
                .unwrap(),
            json!({}),
            "logging/setLevel {level}"
        );
    }
    // The conformance scenario's request, and a template variable: the fixture completes
    // nothing but answers with an empty list.
    let prompt_ref = json!({
        "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
        "argument": {"name": "arg1", "value": "test"}
    });
    let template_ref = json!({
        "ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
        "argument": {"name": "id", "value": "1"}
    });
    for params in [prompt_ref, template_ref] {
        let result = session.call::<Complete>(params).await.unwrap();
        assert_eq!(result, json!({"completion": fixture::empty_completion()}));
    }
    let err = session
        .call_err::<Complete>(json!({
            "ref": {"type": "ref/prompt", "name": "no_such_prompt"},
            "argument": {"name": "arg1", "value": "x"}
        }))
        .await;
    assert_eq!(err.code, ErrorCode(-32602));
    session.close().await;
}

/// Reads one line of JSON from the server's stdout, with a timeout.
async fn read_json(lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>) -> Value {
    let line = within("a line from the server", lines.next_line())
        .await
        .expect("reading the server's stdout")
        .expect("the server closed its stdout");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

#[tokio::test]
async fn a_garbage_line_gets_a_parse_error_and_the_session_continues() {
    let mut child = tokio::process::Command::new(everything_server())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let script = format!(
        "{init}\n{}\nthis is not json\n{}\n",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    );
    stdin.write_all(script.as_bytes()).await.unwrap();
    stdin.flush().await.unwrap();

    let first = read_json(&mut lines).await;
    assert_eq!(first["id"], 1);
    assert_eq!(first["result"]["protocolVersion"], PROTOCOL_VERSION);
    let parse_error = read_json(&mut lines).await;
    assert_eq!(parse_error["jsonrpc"], "2.0");
    assert_eq!(parse_error["id"], Value::Null);
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    assert_eq!(
        read_json(&mut lines).await,
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
    // Still serving: a tool call after the bad line.
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "test_simple_text"}});
    stdin
        .write_all(format!("{call}\n").as_bytes())
        .await
        .unwrap();
    let reply = read_json(&mut lines).await;
    assert_eq!(reply["id"], 3);
    assert_eq!(
        reply["result"]["content"],
        fixture::fixed_content("test_simple_text").unwrap()
    );

    // Closing stdin ends the server cleanly.
    drop(stdin);
    let status = within("the server to exit", child.wait()).await.unwrap();
    assert!(status.success(), "exit status {status}");
    assert!(
        within("stdout to close", lines.next_line())
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn closing_stdin_mid_session_exits_with_status_0() {
    let session = connect().await;
    session.call_tool("test_simple_text", Value::Null).await;
    let (status, outcome) = session.close().await;
    assert_eq!(status.code(), Some(0));
    assert_eq!(outcome, Some(ShutdownOutcome::StdinClosed));
}
