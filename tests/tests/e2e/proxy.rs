//! `mcp proxy` (the `mcp` command line): stdio servers served over Streamable HTTP to clients
//! of both eras, and a remote server offered on stdio.
//!
//! - A handshake-era client gets a process of its own per session (relayed verbatim: log
//!   messages, elicitation, the end of the session ending the process).
//! - A 2026-07-28 client reaches `everything-server` (which speaks 2026-07-28: forwarded)
//!   with input-required rounds, a subscription, its log level, progress and the
//!   `Mcp-Param-*` headers the proxy checks; and, bridged (`--server-era legacy`), its
//!   handshake-era side: its requests to the client become input-required rounds.
//! - The issue's "done when": the Python SDK 2.3 client in auto mode negotiates 2026-07-28
//!   with the proxy in front of a Python SDK 1.x server (`tests/peers/python_mcp1_server.py`,
//!   its own venv) and calls its eliciting tool.
//! - Subscriptions of a bridged server: list changes and resource updates relayed.
//! - `mcp proxy --url`: `everything-server --http` offered on stdio, in both eras.
//! - Bad input (garbage JSON, an unknown session, a header mismatch, a forged
//!   `requestState`) gets its status and error, and the proxy keeps serving.
//! - A server process that exits is reported, and the next request gets a new one.

use std::ffi::OsString;
use std::time::Duration;

use futures::StreamExt as _;
use mcp_client::{CallOptions, Client, ClientBuilder, EraChoice, ErrorObject, RequestContext};
use mcp_transport_stdio::ChildProcessTransport;
use mcp_types::{
    CallToolRequestParams, ElicitRequestParams, ElicitResult, Era, JsonObject, LoggingLevel,
    ProtocolVersion, Root, ServerNotification, SubscriptionFilter,
};
use serde_json::{Value, json};
use tokio::process::Command;
use tokio::sync::mpsc;

use crate::client_support::Running;
use crate::fixture;
use crate::http_support::{HttpServer, MODEL_TEXT, close, connect, recording_sampler};
use crate::support::bins::{everything_server, mcp_cli};
use crate::support::client::within;
use crate::support::output_within;
use crate::support::peers::{peers, tools_setting};
use crate::support::peers_dir;

/// `mcp proxy --listen 127.0.0.1:0 <flags> -- <server...>`, once it is listening. The stdio
/// server logs at `info`, so its start and end show in the proxy's stderr.
async fn proxy(flags: &[&str], server: Vec<OsString>) -> HttpServer {
    let mut command = Command::new(mcp_cli());
    command
        .args(["proxy", "--listen", "127.0.0.1:0"])
        .args(flags)
        .arg("--")
        .args(server)
        .env("RUST_LOG", "info");
    HttpServer::announced("mcp proxy", command).await
}

/// `everything-server` on stdio.
fn everything() -> Vec<OsString> {
    vec![everything_server().into()]
}

/// Waits until the proxy's stderr has `needle` (the stdio servers write there too).
async fn stderr_shows(server: &HttpServer, needle: &str) {
    let shown = async {
        while !server.stderr().contains(needle) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    if tokio::time::timeout(Duration::from_secs(20), shown)
        .await
        .is_err()
    {
        panic!(
            "{needle:?} is not in the proxy's stderr:\n{}",
            server.stderr()
        );
    }
}

/// Answers each form with `<field>-value` (a name with "Ada").
async fn answer_form(
    params: ElicitRequestParams,
    _cx: RequestContext,
) -> Result<ElicitResult, ErrorObject> {
    let ElicitRequestParams::Form(form) = params else {
        return Ok(ElicitResult::decline());
    };
    let mut content = JsonObject::new();
    for field in form.requested_schema.properties.keys() {
        let value = match field.as_str() {
            "name" => json!("Ada"),
            other => json!(format!("{other}-value")),
        };
        content.insert(field.clone(), value);
    }
    let content = serde_json::from_value(Value::Object(content))
        .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
    Ok(ElicitResult::accept(Some(content)))
}

/// A client answering elicitation, sampling and roots, its notifications in the receiver.
fn answering(era: EraChoice) -> (ClientBuilder, mpsc::Receiver<ServerNotification>) {
    let (sampler, _) = recording_sampler();
    let (tx, rx) = mpsc::channel(256);
    let builder = Client::builder()
        .era(era)
        .elicitation(answer_form)
        .sampling(sampler)
        .roots(vec![Root::new("file:///workspace")])
        .handler(tx);
    (builder, rx)
}

/// The only text block of a call of `name` with `arguments`.
async fn text(client: &Client, name: &str, arguments: Value) -> String {
    let arguments = match arguments {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    let result = client
        .call_tool(CallToolRequestParams::with_arguments(name, arguments))
        .await
        .unwrap_or_else(|e| panic!("tools/call {name}: {e}"));
    assert_ne!(result.is_error, Some(true), "{name}: {result:?}");
    result.content[0]
        .as_text()
        .unwrap_or_else(|| panic!("{name}: not text: {result:?}"))
        .to_owned()
}

/// The next log message among `notifications`.
async fn next_log(notifications: &mut mpsc::Receiver<ServerNotification>) -> Value {
    loop {
        let n = within("a log message", notifications.recv())
            .await
            .expect("the connection ended");
        if let ServerNotification::LoggingMessage(log) = n {
            return serde_json::to_value(log).expect("log params");
        }
    }
}

/// Calls `name` with progress and returns how many progress notifications came.
async fn progress_count(client: &Client, name: &str) -> usize {
    let (mut progress, call) = client.call_tool_with_progress(name, CallOptions::new());
    let count = async {
        let mut n = 0;
        while progress.recv().await.is_some() {
            n += 1;
        }
        n
    };
    let (result, n) = tokio::join!(call, count);
    result.unwrap_or_else(|e| panic!("tools/call {name}: {e}"));
    n
}

#[tokio::test(flavor = "multi_thread")]
async fn a_handshake_era_client_gets_a_server_process_of_its_own() {
    let server = proxy(&[], everything()).await;
    let (builder, mut notifications) = answering(EraChoice::Legacy);
    let (client, connection) = connect(&server.mcp_url(), builder).await;
    assert_eq!(*client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.server_info().name, "mcp-conformance-test-server");
    let tools = client.list_tools(None).await.unwrap();
    let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, fixture::tool_names());
    assert_eq!(
        text(&client, "test_simple_text", Value::Null).await,
        "This is a simple text response for testing."
    );
    // Log messages on the request's stream, at the level the session set.
    client.set_logging_level(LoggingLevel::Info).await.unwrap();
    text(&client, "test_tool_with_logging", Value::Null).await;
    assert_eq!(
        next_log(&mut notifications).await["data"],
        "Tool execution started"
    );
    // The server's request to the client, relayed both ways.
    let answer = text(&client, "test_elicitation", json!({"message": "Who?"})).await;
    assert!(
        answer.starts_with("User response: action=accept"),
        "{answer}"
    );
    assert!(progress_count(&client, "test_tool_with_progress").await >= 1);
    // The session's process, and the one serving 2026-07-28 requests.
    assert_eq!(server.stderr().matches("serving MCP on stdio").count(), 2);
    // Ending the session (DELETE) ends its process.
    close(client, connection).await;
    stderr_shows(&server, "stdin closed; exiting").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_client_is_forwarded_to_a_2026_server() {
    let server = proxy(&[], everything()).await;
    assert!(
        server
            .stderr()
            .contains("2026-07-28 server: requests forwarded")
    );
    let (builder, mut notifications) = answering(EraChoice::Modern);
    let (client, connection) = connect(&server.mcp_url(), builder).await;
    assert_eq!(client.era(), Era::Stateless);
    // The server's own input-required rounds (its sealed requestState) pass through.
    assert_eq!(
        text(
            &client,
            "test_input_required_result_elicitation",
            Value::Null
        )
        .await,
        "Hello, Ada!"
    );
    assert_eq!(
        text(
            &client,
            "test_input_required_result_multi_round",
            Value::Null
        )
        .await,
        "Multi-round complete for Ada who likes color-value"
    );
    // The proxy checks `Mcp-Param-Region` against the argument (the client sends it).
    assert_eq!(
        text(
            &client,
            "test_custom_header",
            json!({"region": "eu-west-1"})
        )
        .await,
        "Region: eu-west-1"
    );
    // The request's log level and progress token, translated and back.
    client.set_logging_level(LoggingLevel::Info).await.unwrap();
    assert_eq!(
        text(&client, "test_logging_tool", Value::Null).await,
        "Logging evaluated"
    );
    assert_eq!(
        next_log(&mut notifications).await["data"],
        "Diagnostic trace logging activated"
    );
    assert!(progress_count(&client, "test_tool_with_progress").await >= 1);
    // A subscription, under the client's own id.
    let mut filter = SubscriptionFilter::default();
    filter.tools_list_changed = Some(true);
    let mut changes = client.listen(filter).await.unwrap();
    assert_eq!(changes.acknowledged().tools_list_changed, Some(true));
    assert_eq!(
        text(&client, "test_trigger_tool_change", Value::Null).await,
        "Mutation triggered"
    );
    let change = within("the tool list change", changes.next())
        .await
        .expect("the subscription is open")
        .unwrap();
    assert!(matches!(change, ServerNotification::ToolListChanged(_)));
    changes.close().await.unwrap();
    close(client, connection).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_client_reaches_the_handshake_era_through_the_bridge() {
    let server = proxy(&["--server-era", "legacy"], everything()).await;
    assert!(server.stderr().contains("requests bridged"));
    let (builder, mut notifications) = answering(EraChoice::Auto);
    let (client, connection) = connect(&server.mcp_url(), builder).await;
    assert_eq!(client.era(), Era::Stateless);
    assert_eq!(*client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(client.server_info().name, "mcp-conformance-test-server");
    // The server was initialized at 2025-11-25: its handshake-era fixture.
    let tools = client.list_tools(None).await.unwrap();
    let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, fixture::tool_names());
    // Its elicitation and sampling requests became input-required rounds.
    let answer = text(&client, "test_elicitation", json!({"message": "Who?"})).await;
    assert_eq!(
        answer,
        r#"User response: action=accept, content={"response":"response-value"}"#
    );
    assert_eq!(
        text(&client, "test_sampling", json!({"prompt": "Hi"})).await,
        format!("LLM response: {MODEL_TEXT}")
    );
    // Log messages at the request's level, progress under its token.
    client.set_logging_level(LoggingLevel::Info).await.unwrap();
    text(&client, "test_tool_with_logging", Value::Null).await;
    assert_eq!(
        next_log(&mut notifications).await["data"],
        "Tool execution started"
    );
    assert!(progress_count(&client, "test_tool_with_progress").await >= 1);
    // Resources and prompts, with the revision's envelope.
    let read = client.read_resource("test://static-text").await.unwrap();
    assert_eq!(read.ttl_ms, Some(0));
    let prompts = client.list_prompts(None).await.unwrap();
    assert!(!prompts.prompts.is_empty());
    close(client, connection).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_auto_client_negotiates_2026_with_a_python_1x_server() {
    let python1 = tools_setting("MCP_TEST_PYTHON_MCP1")
        .filter(|p| p.exists())
        .expect(
            "run `cargo xtask setup` first: MCP_TEST_PYTHON_MCP1 (.tools/venv-mcp1) is missing",
        );
    let server = proxy(
        &[],
        vec![
            python1.into(),
            peers_dir().join("python_mcp1_server.py").into(),
        ],
    )
    .await;
    assert!(
        server.stderr().contains("requests bridged"),
        "{}",
        server.stderr()
    );
    let mut cmd = Command::new(&peers().python);
    cmd.arg(peers_dir().join("python_client.py"))
        .args(["--mode", "auto", "--timeout", "20", "--skip", "crash"])
        .arg("--http")
        .arg(server.mcp_url());
    let output = output_within("python_client.py --mode auto", Duration::from_secs(90), cmd).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stderr:\n{stderr}"));
    assert_eq!(report["errors"], json!([]), "stderr:\n{stderr}");
    assert!(output.status.success());
    assert_eq!(report["server"]["protocolVersion"], "2026-07-28");
    assert_eq!(report["server"]["name"], "python-mcp1-server");
    assert_eq!(
        report["tools"],
        json!(["echo", "add", "ask_user", "slow", "chatty", "crash"])
    );
    // The tool that elicits: the Python client's callback answered the bridged round.
    assert_eq!(
        report["calls"]["ask_user"]["content"][0]["text"],
        "You answered: python client answer"
    );
    assert_eq!(report["elicitations"][0]["message"], "What is your answer?");
    assert_eq!(report["elicitations"].as_array().map(Vec::len), Some(1));
    assert_eq!(report["calls"]["echo"]["content"][0]["text"], "Echo: hello");
    let progress = report["progress"].as_array().unwrap();
    assert_eq!(progress.len(), 3, "{progress:?}");
    assert_eq!(
        report["resources"]["test://hello"]["contents"][0]["text"],
        "Hello from the Python SDK 1.x"
    );
    assert!(report["prompts"]["greet"].is_object());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_process_that_exits_is_reported_and_replaced() {
    let python1 = tools_setting("MCP_TEST_PYTHON_MCP1")
        .filter(|p| p.exists())
        .expect(
            "run `cargo xtask setup` first: MCP_TEST_PYTHON_MCP1 (.tools/venv-mcp1) is missing",
        );
    let server = proxy(
        &[],
        vec![
            python1.into(),
            peers_dir().join("python_mcp1_server.py").into(),
        ],
    )
    .await;
    // 2026-07-28 (bridged): the call fails cleanly, the next one gets a new process.
    let (builder, _notifications) = answering(EraChoice::Modern);
    let (client, connection) = connect(&server.mcp_url(), builder).await;
    let err = client.call_tool("crash").await.unwrap_err();
    assert!(err.to_string().contains("the stdio server"), "{err}");
    stderr_shows(&server, "ended (exit status: 3)").await;
    assert_eq!(
        text(&client, "echo", json!({"message": "again"})).await,
        "Echo: again"
    );
    assert_eq!(
        text(&client, "ask_user", Value::Null).await,
        "You answered: answer-value"
    );
    close(client, connection).await;

    // The handshake era: the process of the session exits, the session ends with it (the
    // next request naming it gets 404), and the client starts a new session, with a new
    // process (our client's transport fails the request that found the session gone).
    let (builder, _notifications) = answering(EraChoice::Legacy);
    let (client, connection) = connect(&server.mcp_url(), builder).await;
    assert!(client.call_tool("crash").await.is_err());
    stderr_shows(&server, "the session is ended").await;
    let first = client
        .call_tool(CallToolRequestParams::with_arguments(
            "echo",
            json!({"message": "still"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        ))
        .await;
    if let Err(e) = first {
        assert!(e.to_string().contains("session expired"), "{e}");
    }
    assert_eq!(
        text(&client, "echo", json!({"message": "still"})).await,
        "Echo: still"
    );
    close(client, connection).await;
}

/// A stdio server of the handshake era, as a `sh` script: declares list changes and resource
/// subscriptions; the tool `change` sends a tool list change and an update of `test://r`.
fn changing_server() -> Vec<OsString> {
    let script = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([^,}]*\).*/\1/p')
  case "$line" in
    *'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true}},"serverInfo":{"name":"changing","version":"0"}}}\n' "$id";;
    *'"resources/subscribe"'*|*'"resources/unsubscribe"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id";;
    *'"name":"change"'*) printf '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://r"}}\n{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"changed"}]}}\n' "$id";;
    *'"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"change","inputSchema":{"type":"object"}}]}}\n' "$id";;
    *'"id":'*) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id";;
  esac
done
"#;
    vec!["sh".into(), "-c".into(), script.into()]
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bridged_servers_list_changes_and_updates_reach_subscriptions() {
    let server = proxy(&[], changing_server()).await;
    assert!(
        server.stderr().contains("requests bridged"),
        "{}",
        server.stderr()
    );
    let (builder, _notifications) = answering(EraChoice::Modern);
    let (client, connection) = connect(&server.mcp_url(), builder).await;
    let mut filter = SubscriptionFilter::default();
    filter.tools_list_changed = Some(true);
    // Not declared by the server: not acknowledged.
    filter.prompts_list_changed = Some(true);
    filter.resource_subscriptions = Some(vec!["test://r".to_owned()]);
    let mut changes = client.listen(filter).await.unwrap();
    let acknowledged = changes.acknowledged();
    assert_eq!(acknowledged.tools_list_changed, Some(true));
    assert_eq!(acknowledged.prompts_list_changed, None);
    assert_eq!(
        acknowledged.resource_subscriptions,
        Some(vec!["test://r".to_owned()])
    );
    assert_eq!(text(&client, "change", Value::Null).await, "changed");
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let n = within("a list change or update", changes.next())
            .await
            .expect("the subscription is open")
            .unwrap();
        seen.push(n);
    }
    assert!(
        seen.iter()
            .any(|n| matches!(n, ServerNotification::ToolListChanged(_)))
    );
    assert!(seen.iter().any(|n| matches!(
        n,
        ServerNotification::ResourceUpdated(p) if p.uri == "test://r"
    )));
    changes.close().await.unwrap();
    close(client, connection).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reverse_direction_offers_an_http_server_on_stdio() {
    let remote = HttpServer::everything().await;
    let command = || {
        ChildProcessTransport::builder(mcp_cli())
            .args(["proxy", "--url"])
            .arg(remote.mcp_url())
    };
    // A handshake-era host.
    let running = Running::start(command(), Client::builder().era(EraChoice::Legacy)).await;
    assert_eq!(
        *running.client.protocol_version(),
        ProtocolVersion::V2025_11_25
    );
    assert_eq!(
        text(&running.client, "test_simple_text", Value::Null).await,
        "This is a simple text response for testing."
    );
    let process = running.close().await;
    assert!(process.exit_status().is_some_and(|s| s.success()));
    // A 2026-07-28 host (auto): the remote server's era passes through, rounds included, and
    // the proxy adds the `Mcp-Param-*` headers the host cannot send on stdio.
    let (builder, _notifications) = answering(EraChoice::Auto);
    let running = Running::start(command(), builder).await;
    assert_eq!(running.client.era(), Era::Stateless);
    assert_eq!(
        text(
            &running.client,
            "test_input_required_result_elicitation",
            Value::Null
        )
        .await,
        "Hello, Ada!"
    );
    running.client.list_tools(None).await.unwrap();
    assert_eq!(
        text(
            &running.client,
            "test_custom_header",
            json!({"region": "ap-1"})
        )
        .await,
        "Region: ap-1"
    );
    running.close().await;
}

/// POSTs `body` to `url` with `headers` (and the usual `Accept` and `Content-Type`).
async fn post(url: &str, headers: &[(&str, &str)], body: &str) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("POST");
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A 2026-07-28 `tools/call` of `name`, with `extra` params, and its headers.
fn modern_call(name: &str, extra: Value) -> String {
    let mut params = json!({"name": name, "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}});
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        params.extend(extra);
    }
    json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_gets_its_status_and_the_proxy_keeps_serving() {
    let server = proxy(&["--server-era", "legacy"], everything()).await;
    let url = server.mcp_url();
    let modern = |name: &'static str| {
        [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name),
        ]
    };
    // Not JSON.
    let (status, body) = post(&url, &[], "{not json").await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], -32700, "{body}");
    // A session that does not exist.
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let (status, _) = post(
        &url,
        &[
            ("mcp-session-id", "00000000000000000000000000000000"),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        list,
    )
    .await;
    assert_eq!(status, 404);
    // No session, and not of 2026-07-28.
    let (status, _) = post(&url, &[], list).await;
    assert_eq!(status, 400);
    // A header that does not match the body.
    let (status, body) = post(
        &url,
        &modern("other_tool"),
        &modern_call("test_simple_text", Value::Null),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], -32020, "{body}");
    // A requestState the proxy never issued.
    let (status, body) = post(
        &url,
        &modern("test_elicitation"),
        &modern_call(
            "test_elicitation",
            json!({"requestState": "mcp-proxy.0123", "inputResponses": {}}),
        ),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["error"]["code"], -32602, "{body}");
    // An input round issued for one tool, retried as another: refused, and the call is
    // still there for the right retry.
    let (_, first) = post(
        &url,
        &modern("test_elicitation"),
        &modern_call("test_elicitation", json!({"arguments": {"message": "?"}})),
    )
    .await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let answers = json!({"elicit-0": {"action": "accept", "content": {"response": "yes"}}});
    let retry = |name: &'static str| {
        modern_call(
            name,
            json!({"requestState": state, "inputResponses": answers}),
        )
    };
    let (_, wrong) = post(
        &url,
        &modern("test_simple_text"),
        &retry("test_simple_text"),
    )
    .await;
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    let (status, right) = post(
        &url,
        &modern("test_elicitation"),
        &retry("test_elicitation"),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        right["result"]["content"][0]["text"],
        r#"User response: action=accept, content={"response":"yes"}"#
    );
    // And the proxy still serves.
    let (status, body) = post(
        &url,
        &modern("test_simple_text"),
        &modern_call("test_simple_text", Value::Null),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        body["result"]["content"][0]["text"],
        "This is a simple text response for testing."
    );
    assert_eq!(body["result"]["resultType"], "complete");
}

/// The `Mcp-Session-Id` header of an `initialize` POST's answer, and its status.
async fn initialize(url: &str) -> (u16, String) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
        .send()
        .await
        .expect("POST initialize");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (response.status().as_u16(), session)
}

#[tokio::test(flavor = "multi_thread")]
async fn instances_sharing_redis_serve_each_others_sessions_and_rounds() {
    let redis = tokio::task::spawn_blocking(testkit::RedisServer::start)
        .await
        .expect("redis task")
        .expect("starting redis-server");
    let flags = ["--server-era", "legacy", "--redis", &redis.url()];
    let a = proxy(&flags, everything()).await;
    let b = proxy(&flags, everything()).await;
    let modern = |name: &'static str| {
        [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name),
        ]
    };
    // A bridged round begun on A and finished on B: B forwards the retry to A, which holds
    // the call.
    let (_, first) = post(
        &a.mcp_url(),
        &modern("test_elicitation"),
        &modern_call("test_elicitation", json!({"arguments": {"message": "?"}})),
    )
    .await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = modern_call(
        "test_elicitation",
        json!({"requestState": state,
               "inputResponses": {"elicit-0": {"action": "accept", "content": {"response": "b"}}}}),
    );
    let (status, answer) = post(&b.mcp_url(), &modern("test_elicitation"), &retry).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        r#"User response: action=accept, content={"response":"b"}"#
    );
    // A handshake-era session opened on A, taken over by B once A is gone: B starts a new
    // process and replays what the session agreed before relaying.
    let (status, session) = initialize(&a.mcp_url()).await;
    assert_eq!(status, 200);
    let session_headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let (status, _) = post(&a.mcp_url(), &session_headers, initialized).await;
    assert_eq!(status, 202);
    // The snapshot is saved as the session goes; give it a moment, then end A.
    tokio::time::sleep(Duration::from_millis(500)).await;
    drop(a);
    let call =
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text"}}"#;
    let (status, body) = post(&b.mcp_url(), &session_headers, call).await;
    assert_eq!(status, 200, "{body}\n{}", b.stderr());
    assert_eq!(
        body["result"]["content"][0]["text"],
        "This is a simple text response for testing."
    );
}
