//! Both protocol eras against our servers, with real peers:
//!
//! - the Python SDK 2.3 client in its default `auto` mode probes `server/discover`, negotiates
//!   2026-07-28 with `everything-server` over stdio and over HTTP, and calls every fixture tool
//!   (the input-required ones through rounds its sampling, elicitation and roots callbacks
//!   answer), gets every prompt and reads every resource;
//! - the TypeScript SDK v2 client, pinned to 2026-07-28, does the same over HTTP;
//! - one tool that elicits and samples, served by one server, gives the same result to a
//!   legacy-era client (server-to-client requests) and to a 2026-07-28 client (input-required
//!   rounds).
//!
//! (`interop_python` and `http_interop` cover the same peers in the legacy era.)

use std::ffi::OsString;
use std::time::Duration;

use mcp_server::types::{
    CreateMessageRequestParams, ElicitRequestFormParams, ElicitValue, SamplingMessage,
};
use mcp_server::{Context, HandlerError, Server, Tool};
use mcp_transport_http::server::StreamableHttpService;
use serde_json::{Value, json};

use crate::fixture;
use crate::http_support::HttpServer;
use crate::support::bins::everything_server;
use crate::support::output_within;
use crate::support::peers::peers;
use crate::support::peers_dir;

/// The 2026-07-28 tools `everything-server` adds, in listing order.
const MODERN_TOOLS: [&str; 14] = [
    "test_missing_capability",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
    "test_streaming_elicitation",
    "test_logging_tool",
    "test_trigger_tool_change",
    "test_trigger_prompt_change",
    "test_custom_header",
];

/// Runs a peer client `program args...` and returns its JSON report, asserting that it
/// reported no error and exited 0.
async fn report(what: &str, program: &std::path::Path, args: Vec<OsString>) -> Value {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args).env("RUST_LOG", "warn");
    let output = output_within(what, Duration::from_secs(90), cmd).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON report ({e}); status {}\nstderr:\n{stderr}",
            output.status
        )
    });
    assert_eq!(report["errors"], json!([]), "{what} stderr:\n{stderr}");
    assert!(output.status.success(), "{what}: status {}", output.status);
    report
}

fn python_args(mode: &str, target: &[OsString]) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        peers_dir().join("python_client.py").into(),
        "--mode".into(),
        mode.into(),
        "--timeout".into(),
        "20".into(),
    ];
    args.extend(target.iter().cloned());
    args
}

/// The only text block of tool `name`'s result.
fn text<'a>(report: &'a Value, name: &str) -> &'a str {
    report["calls"][name]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{name}: no text in {}", report["calls"][name]))
}

/// What a client that answers elicitations with `answer` and sampling with `model_text`
/// must have seen from `everything-server` on 2026-07-28.
fn assert_modern_report(report: &Value, answer: &str, model_text: &str) {
    assert_eq!(report["server"]["protocolVersion"], "2026-07-28");
    assert_eq!(report["server"]["name"], "mcp-conformance-test-server");
    let expected: Vec<&str> = fixture::tool_names()
        .into_iter()
        .chain(MODERN_TOOLS)
        .collect();
    assert_eq!(report["tools"], json!(expected));
    assert_eq!(
        report["calls"].as_object().unwrap().len(),
        expected.len(),
        "every tool was called"
    );
    for name in &expected {
        let is_error = report["calls"][name]["isError"] == true;
        assert_eq!(is_error, *name == "test_error_handling", "{name}: isError");
    }
    for (name, _) in fixture::TOOLS {
        if let Some(content) = fixture::fixed_content(name) {
            assert_eq!(report["calls"][name]["content"], content, "{name}");
        }
    }
    let expected_texts = [
        ("test_sampling", format!("LLM response: {model_text}")),
        (
            "test_input_required_result_elicitation",
            format!("Hello, {answer}!"),
        ),
        (
            "test_input_required_result_sampling",
            format!("Sampling result: {model_text}"),
        ),
        (
            "test_input_required_result_list_roots",
            "Found 1 root(s)".to_owned(),
        ),
        (
            "test_input_required_result_request_state",
            "state-ok: requestState validated".to_owned(),
        ),
        (
            "test_input_required_result_multiple_inputs",
            format!("Name: {answer}; Greeting: {model_text}; Roots: 1"),
        ),
        (
            "test_input_required_result_multi_round",
            format!("Multi-round complete for {answer} who likes {answer}"),
        ),
        (
            "test_input_required_result_tampered_state",
            "integrity-ok: state verified".to_owned(),
        ),
        (
            "test_input_required_result_capabilities",
            "capabilities-ok: received elicit_input,sample_input".to_owned(),
        ),
        ("test_missing_capability", "Success".to_owned()),
        (
            "test_streaming_elicitation",
            "Streaming complete".to_owned(),
        ),
        ("test_logging_tool", "Logging evaluated".to_owned()),
        ("test_custom_header", "Region: hello".to_owned()),
    ];
    for (name, want) in expected_texts {
        assert_eq!(text(report, name), want, "{name}");
    }
    assert!(
        text(report, "test_elicitation").starts_with("User response: action=accept"),
        "{}",
        text(report, "test_elicitation")
    );
    // Every input request went through the client's own handlers.
    assert!(report["sampling"].as_array().is_some_and(|s| !s.is_empty()));
    assert!(
        report["elicitations"]
            .as_array()
            .is_some_and(|e| e.len() >= 8)
    );
    // Progress on the request's own stream.
    assert!(
        report["progress"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["tool"] == "test_tool_with_progress"),
        "{}",
        report["progress"]
    );
    // Prompts, the input-required one included, and resources.
    let prompt = &report["prompts"]["test_input_required_result_prompt"];
    assert_eq!(
        prompt["messages"][0]["content"]["text"],
        format!("Prompt with context: {answer}")
    );
    assert_eq!(report["prompts"].as_object().unwrap().len(), 5);
    assert_eq!(
        report["resources"]["test://static-text"]["contents"][0]["text"],
        "This is the content of the static text resource."
    );
}

const PYTHON_ANSWER: &str = "python client answer";
const PYTHON_MODEL: &str = "This is a test response from the Python client";

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_auto_mode_negotiates_2026_over_stdio() {
    let peers = peers();
    let target = ["--".into(), everything_server().into()];
    let report = report(
        "python_client.py --mode auto (stdio)",
        &peers.python,
        python_args("auto", &target),
    )
    .await;
    assert_modern_report(&report, PYTHON_ANSWER, PYTHON_MODEL);
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_auto_mode_negotiates_2026_over_http() {
    let peers = peers();
    let server = HttpServer::everything().await;
    let target = ["--http".into(), server.mcp_url().into()];
    let report = report(
        "python_client.py --mode auto (http)",
        &peers.python,
        python_args("auto", &target),
    )
    .await;
    assert_modern_report(&report, PYTHON_ANSWER, PYTHON_MODEL);
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_sdk_v2_client_in_modern_mode() {
    let peers = peers();
    let server = HttpServer::everything().await;
    let args: Vec<OsString> = vec![
        peers_dir().join("ts_client_v2.mjs").into(),
        "--timeout".into(),
        "20".into(),
        "--http".into(),
        server.mcp_url().into(),
    ];
    let report = report("ts_client_v2.mjs", &peers.node, args).await;
    assert_modern_report(
        &report,
        "ts v2 client answer",
        "This is a test response from the TypeScript v2 client",
    );
}

/// Asks the user for a name, then the model for a greeting: written once.
async fn greet(cx: Context) -> Result<String, HandlerError> {
    let form: ElicitRequestFormParams = serde_json::from_value(json!({
        "message": "What is your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                            "required": ["name"]},
    }))?;
    let answer = cx.elicit(form).await?;
    let name = match answer.content.as_ref().and_then(|c| c.get("name")) {
        Some(ElicitValue::String(name)) => name.clone(),
        _ => "nobody".to_owned(),
    };
    let question = format!("Greet {name}");
    let reply = cx
        .sample(CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text(question)],
            20,
        ))
        .await?;
    Ok(format!(
        "{name} / {}",
        reply.content.first_text().unwrap_or("")
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn one_eliciting_and_sampling_tool_gives_the_same_result_in_both_eras() {
    let server = Server::builder().tool(Tool::new("greet", greet)).build();
    let service = StreamableHttpService::builder().build(server.session_factory());
    let http = service.bind_localhost(0).await.expect("bind 127.0.0.1:0");
    let url = format!("http://{}/mcp", http.local_addr().expect("local addr"));
    let running = tokio::spawn(http.run());

    let python = &peers().python;
    let target = ["--http".into(), url.clone().into()];
    let legacy = report(
        "python_client.py --mode legacy",
        python,
        python_args("legacy", &target),
    )
    .await;
    let modern = report(
        "python_client.py --mode auto",
        python,
        python_args("auto", &target),
    )
    .await;
    running.abort();

    assert_eq!(legacy["server"]["protocolVersion"], "2025-11-25");
    assert_eq!(modern["server"]["protocolVersion"], "2026-07-28");
    let expected = format!("{PYTHON_ANSWER} / {PYTHON_MODEL}");
    assert_eq!(text(&legacy, "greet"), expected);
    assert_eq!(text(&modern, "greet"), expected);
    // The same handler asked the same things, by a request in one era and in a round in the
    // other.
    assert_eq!(legacy["elicitations"], modern["elicitations"]);
    assert_eq!(legacy["sampling"].as_array().map(Vec::len), Some(1));
    assert_eq!(modern["sampling"].as_array().map(Vec::len), Some(1));
}
