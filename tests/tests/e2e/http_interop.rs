//! Interop over Streamable HTTP (and the legacy HTTP+SSE transport):
//!
//! - the Python SDK client (`tests/peers/python_client.py --http`) and the TypeScript SDK
//!   client (`tests/peers/ts_client.mjs --http`) drive `everything-server --http`, including
//!   `test_reconnection`, whose SSE stream the server closes mid-call;
//! - our client (`mcp-client` over `StreamableHttpClientTransport`) against the TypeScript
//!   and Python SDK servers (`ts_server.mjs --http`, `python_server.py --http`);
//! - our client against our server through the legacy HTTP+SSE endpoint (`/sse`), reached
//!   by the client transport's fallback.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::time::Duration;

use mcp_client::{Client, EraChoice, ErrorObject, RequestContext};
use mcp_types::{
    CallToolRequestParams, ElicitRequestParams, ElicitResult, ElicitValue, GetPromptRequestParams,
};
use serde_json::{Value, json};

use crate::fixture;
use crate::http_support::{HttpServer, MODEL_TEXT, close, connect, recording_sampler};
use crate::support::output_within;
use crate::support::peers::peers;
use crate::support::peers_dir;

/// `test_reconnection`'s text: it arrives only if the client resumed the closed stream.
const RECONNECTED: &str = "Reconnection test completed successfully. If you received this, \
    the client properly reconnected after stream closure.";

/// Runs a peer client script against `server` and returns its JSON report (asserting that
/// it reported no error and exited 0).
async fn peer_report(what: &str, mut cmd: tokio::process::Command, server: &HttpServer) -> Value {
    cmd.args(["--timeout", "10", "--http", &server.mcp_url()]);
    let output = output_within(what, Duration::from_secs(60), cmd).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON report ({e}); status {}\nstderr:\n{stderr}\nserver:\n{}",
            output.status,
            server.stderr()
        )
    });
    assert_eq!(
        report["errors"],
        json!([]),
        "{what} stderr:\n{stderr}\nserver:\n{}",
        server.stderr()
    );
    assert!(output.status.success(), "{what}: status {}", output.status);
    report
}

/// What both SDK clients must have seen from `everything-server` over HTTP.
fn assert_everything_report(report: &Value) {
    assert_eq!(report["server"]["protocolVersion"], "2025-11-25");
    assert_eq!(report["server"]["name"], "mcp-conformance-test-server");
    assert_eq!(
        report["server"]["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(report["tools"], json!(fixture::tool_names()));
    for (name, _) in fixture::TOOLS {
        let call = &report["calls"][name];
        assert!(call.is_object(), "{name} was not called: {report}");
        assert_eq!(
            call["isError"] == true,
            name == "test_error_handling",
            "{name}: {call}"
        );
        if let Some(content) = fixture::fixed_content(name) {
            assert_eq!(call["content"], content, "{name}");
        }
    }
    // The server closed this call's SSE stream; the result came on the resumed GET.
    assert_eq!(
        report["calls"]["test_reconnection"]["content"],
        json!([{"type": "text", "text": RECONNECTED}])
    );
    let defaults = report["calls"]["test_elicitation_sep1034_defaults"]["content"][0]["text"]
        .as_str()
        .expect("sep1034 text");
    let defaults: Value = serde_json::from_str(
        defaults
            .strip_prefix("Elicitation completed: action=accept, content=")
            .expect("sep1034 prefix"),
    )
    .expect("sep1034 JSON");
    assert!(
        fixture::same_json(
            &defaults,
            &json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active",
                "verified": true})
        ),
        "{defaults}"
    );
    // Logging and progress came over the request streams.
    let logs: Vec<&Value> = report["logs"]
        .as_array()
        .expect("logs")
        .iter()
        .map(|l| &l["data"])
        .collect();
    for message in fixture::LOG_MESSAGES {
        assert!(logs.iter().any(|d| **d == message), "{message}: {logs:?}");
    }
    assert!(
        report["progress"].as_array().expect("progress").len() >= 3,
        "{}",
        report["progress"]
    );
    // Resources, the template and prompts.
    for uri in ["test://static-text", "test://template/42/data"] {
        assert_eq!(
            report["resources"][uri]["contents"],
            fixture::read_contents(uri),
            "{uri}"
        );
    }
    assert_eq!(
        report["prompts"]["test_prompt_with_arguments"]["messages"],
        fixture::prompt_messages(
            "test_prompt_with_arguments",
            "testValue1",
            "testValue2",
            "test://example-resource"
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_client_exercises_everything_server_over_http() {
    let server = HttpServer::everything().await;
    let mut cmd = tokio::process::Command::new(&peers().python);
    cmd.arg(peers_dir().join("python_client.py"));
    let report = peer_report("python_client.py --http", cmd, &server).await;
    assert_everything_report(&report);
    assert_eq!(
        report["calls"]["test_sampling"]["content"][0]["text"],
        "LLM response: This is a test response from the Python client"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_sdk_client_exercises_everything_server_over_http() {
    let peers = peers();
    let server = HttpServer::everything().await;
    let mut cmd = tokio::process::Command::new(&peers.node);
    cmd.arg(peers_dir().join("ts_client.mjs"));
    let report = peer_report("ts_client.mjs --http", cmd, &server).await;
    assert_everything_report(&report);
    assert_eq!(
        report["calls"]["test_sampling"]["content"][0]["text"],
        "LLM response: This is a test response from the TypeScript client"
    );
    assert_eq!(
        report["sampling"][0]["messages"][0]["content"]["text"],
        "Test prompt for sampling"
    );
}

/// Our client answers `ask_user` with this.
const ANSWER: &str = "forty-two";

/// Our client against a peer server over HTTP in the era choice `era`, expecting to settle on
/// `version`: every tool (`ask_user` answered by our elicitation handler, `ask_model` by our
/// sampling handler, in either era), the resource, the template, the prompt; `language` names
/// the SDK in its texts.
async fn our_client_against(
    server: &HttpServer,
    name: &str,
    language: &str,
    era: EraChoice,
    version: &str,
) {
    let (sampler, sampled) = recording_sampler();
    let elicit = |params: ElicitRequestParams, _cx: RequestContext| async move {
        assert_eq!(params.message(), "What is your answer?");
        let content = BTreeMap::from([("answer".to_owned(), ElicitValue::String(ANSWER.into()))]);
        Ok::<_, ErrorObject>(ElicitResult::accept(Some(content)))
    };
    let builder = Client::builder()
        .sampling(sampler)
        .elicitation(elicit)
        .era(era);
    let (client, connection) = connect(&server.mcp_url(), builder).await;
    assert_eq!(client.server_info().name, name);
    assert_eq!(client.protocol_version().as_str(), version, "{era:?}");

    let mut tools: Vec<String> = client
        .list_tools(None)
        .await
        .expect("tools/list")
        .tools
        .into_iter()
        .map(|t| t.name)
        .collect();
    tools.sort();
    assert_eq!(
        tools,
        ["add", "ask_model", "ask_user", "echo", "fail", "slow"]
    );

    let call = |name: &str, args: Value| {
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        client.call_tool(CallToolRequestParams::with_arguments(name, args))
    };
    let echo = call("echo", json!({"message": "hello over http"}))
        .await
        .expect("echo");
    assert_eq!(
        serde_json::to_value(&echo.content).unwrap(),
        json!([{"type": "text", "text": "Echo: hello over http"}])
    );
    let add = call("add", json!({"a": 2, "b": 3})).await.expect("add");
    assert_eq!(add.structured_content, Some(json!({"sum": 5})));
    let fail = call("fail", json!({})).await.expect("fail");
    assert_eq!(fail.is_error, Some(true));
    assert_eq!(
        serde_json::to_value(&fail.content).unwrap(),
        json!([{"type": "text", "text": "This tool always fails"}])
    );
    let slow = call("slow", json!({})).await.expect("slow");
    assert_eq!(
        serde_json::to_value(&slow.content).unwrap(),
        json!([{"type": "text", "text": "slow done"}])
    );
    let asked = call("ask_user", json!({})).await.expect("ask_user");
    assert_eq!(
        serde_json::to_value(&asked.content).unwrap(),
        json!([{"type": "text", "text": ANSWER}])
    );
    let sampled_call = call("ask_model", json!({"prompt": "Say hi"}))
        .await
        .expect("ask_model");
    assert_eq!(
        serde_json::to_value(&sampled_call.content).unwrap(),
        json!([{"type": "text", "text": MODEL_TEXT}])
    );
    let requests = sampled.lock().expect("sampling lock").clone();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["messages"][0]["content"]["text"], "Say hi");

    let read = client.read_resource("test://hello").await.expect("read");
    assert_eq!(
        serde_json::to_value(&read.contents).unwrap(),
        json!([{"uri": "test://hello", "mimeType": "text/plain",
            "text": format!("Hello from {language}")}])
    );
    let item = client.read_resource("test://items/7").await.expect("item");
    let text = serde_json::to_value(&item.contents).unwrap()[0]["text"].clone();
    assert_eq!(
        serde_json::from_str::<Value>(text.as_str().expect("item text")).unwrap(),
        json!({"id": "7", "name": "Item 7"})
    );
    let mut greet = GetPromptRequestParams::new("greet");
    greet.arguments = Some(BTreeMap::from([("name".to_owned(), "Ada".to_owned())]));
    let prompt = client.get_prompt(greet).await.expect("prompts/get");
    assert_eq!(
        serde_json::to_value(&prompt.messages).unwrap(),
        json!([{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}])
    );
    close(client, connection).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_against_the_typescript_sdk_server_over_http() {
    let peers = peers();
    let script = peers_dir().join("ts_server.mjs");
    let server = HttpServer::peer(&peers.node, &[script.as_os_str()]).await;
    // A server of the handshake era only: auto falls back to `initialize`.
    for era in [EraChoice::Legacy, EraChoice::Auto] {
        our_client_against(
            &server,
            "ts-interop-server",
            "TypeScript",
            era,
            "2025-11-25",
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_against_the_typescript_sdk_v2_server_over_http() {
    let peers = peers();
    let script = peers_dir().join("ts_server_v2.mjs");
    let server = HttpServer::peer(&peers.node, &[script.as_os_str()]).await;
    for (era, version) in [
        (EraChoice::Auto, "2026-07-28"),
        (EraChoice::Modern, "2026-07-28"),
        (EraChoice::Legacy, "2025-11-25"),
    ] {
        let (name, language) = ("ts-v2-interop-server", "TypeScript v2");
        our_client_against(&server, name, language, era, version).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_against_the_python_sdk_server_over_http() {
    let peers = peers();
    let script = peers_dir().join("python_server.py");
    let server = HttpServer::peer(&peers.python, &[OsStr::new(&script)]).await;
    for (era, version) in [
        (EraChoice::Auto, "2026-07-28"),
        (EraChoice::Modern, "2026-07-28"),
        (EraChoice::Legacy, "2025-11-25"),
    ] {
        our_client_against(&server, "python-interop-server", "Python", era, version).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_against_our_server_over_legacy_http_sse() {
    let server = HttpServer::everything().await;
    // `/sse` answers only GET: the POST of `initialize` gets 405, and the transport falls
    // back to the legacy HTTP+SSE transport (GET /sse, then POSTs to its `endpoint`).
    let url = format!("{}/sse", server.base);
    let (sampler, _) = recording_sampler();
    let builder = Client::builder().sampling(sampler);
    let (client, connection) = connect(&url, builder).await;
    assert_eq!(client.server_info().name, "mcp-conformance-test-server");

    let tools = client.list_tools(None).await.expect("tools/list");
    let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, fixture::tool_names());
    let text = client
        .call_tool(CallToolRequestParams::new("test_simple_text"))
        .await
        .expect("test_simple_text");
    assert_eq!(
        serde_json::to_value(&text.content).unwrap(),
        fixture::fixed_content("test_simple_text").expect("fixed content")
    );
    // A server-to-client request in the middle of a call, over the one SSE stream.
    let Value::Object(args) = json!({"prompt": "Test prompt for sampling"}) else {
        unreachable!()
    };
    let sampled = client
        .call_tool(CallToolRequestParams::with_arguments("test_sampling", args))
        .await
        .expect("test_sampling");
    assert_eq!(
        serde_json::to_value(&sampled.content).unwrap(),
        json!([{"type": "text",
            "text": format!("LLM response: {}", MODEL_TEXT)}])
    );
    let read = client
        .read_resource("test://static-text")
        .await
        .expect("resources/read");
    assert_eq!(
        serde_json::to_value(&read.contents).unwrap(),
        fixture::read_contents("test://static-text")
    );
    close(client, connection).await;
}
