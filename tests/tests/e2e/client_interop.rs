//! Our `mcp-client` against the official SDKs' servers over stdio: `tests/peers/ts_server.mjs`
//! (TypeScript SDK), `tests/peers/python_server.py` (Python SDK) and the TypeScript SDK's
//! `@modelcontextprotocol/server-everything`.

use std::collections::BTreeMap;

use futures::TryStreamExt as _;
use mcp_client::{CallOptions, Client, ClientBuilder, EraChoice, RequestContext};
use mcp_transport_stdio::ChildProcessBuilder;
use mcp_types::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompletionContext,
    ElicitRequestParams, ElicitResult, ElicitValue, GetPromptRequestParams, JsonObject,
    LoggingLevel, PromptReference, ResourceTemplateReference,
};
use serde_json::{Value, json};

use crate::client_support::{
    MODEL_TEXT, Running, python_server, recording_sampler, server_everything, ts_server,
    ts_server_v2,
};
use crate::support::client::within;

fn args(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn texts(result: &CallToolResult) -> Vec<&str> {
    result.content.iter().filter_map(|c| c.as_text()).collect()
}

async fn call(running: &Running, name: &str, arguments: Value) -> CallToolResult {
    running
        .client
        .call_tool(CallToolRequestParams::with_arguments(name, args(arguments)))
        .await
        .unwrap_or_else(|e| {
            panic!(
                "tools/call {name}: {e}\nserver stderr:\n{}",
                running.stderr()
            )
        })
}

/// A client with sampling and an elicitation handler that answers `{answer: "forty-two"}`
/// (and, for other forms, `{name: "Ada", check: true}`).
fn full_client() -> (ClientBuilder, std::sync::Arc<std::sync::Mutex<Vec<Value>>>) {
    let (sampler, seen) = recording_sampler();
    let builder = Client::builder().sampling(sampler).elicitation(
        |params: ElicitRequestParams, _: RequestContext| async move {
            let content = if params.message() == "What is your answer?" {
                BTreeMap::from([("answer".to_owned(), ElicitValue::from("forty-two"))])
            } else {
                BTreeMap::from([
                    ("name".to_owned(), ElicitValue::from("Ada")),
                    ("check".to_owned(), ElicitValue::from(true)),
                ])
            };
            Ok(ElicitResult::accept(Some(content)))
        },
    );
    (builder, seen)
}

/// `ts_server.mjs`, `ts_server_v2.mjs` and `python_server.py` offer the same surface;
/// `language` is in their greeting ("Hello from TypeScript"). Our client connects in the era
/// choice `era` and must settle on `version`; every call then works alike (on 2026-07-28 the
/// elicitation and sampling come as input requests, the log level rides on `_meta`).
async fn same_surface(
    command: impl Fn() -> ChildProcessBuilder,
    name: &str,
    language: &str,
    eras: &[(EraChoice, &str)],
) {
    for (era, version) in eras {
        one_surface(command(), name, language, *era, version).await;
    }
}

async fn one_surface(
    command: ChildProcessBuilder,
    name: &str,
    language: &str,
    era: EraChoice,
    version: &str,
) {
    let (builder, sampled) = full_client();
    let mut running = Running::start(command, builder.era(era)).await;
    let client = &running.client;
    assert_eq!(client.protocol_version().as_str(), version, "{era:?}");
    assert_eq!(client.server_info().name, name);
    assert_eq!(client.server_info().version, "1.0.0");
    assert!(client.server_capabilities().logging.is_some());

    // Tools.
    let tools: Vec<_> = client.list_tools_stream().try_collect().await.unwrap();
    let mut names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["add", "ask_model", "ask_user", "echo", "fail", "slow"]
    );
    let add = tools.iter().find(|t| t.name == "add").unwrap();
    assert_eq!(
        add.output_schema.as_ref().map(|s| s["required"].clone()),
        Some(json!(["sum"]))
    );

    client.set_logging_level(LoggingLevel::Debug).await.unwrap();
    let echo = call(&running, "echo", json!({"message": "hello"})).await;
    assert_eq!(texts(&echo), ["Echo: hello"]);
    assert!(!echo.is_error());
    let log = running.next_log().await;
    assert_eq!(log.level, LoggingLevel::Info);
    assert_eq!(log.data, "echo called with: hello");
    let client = &running.client;

    // Structured output, checked by the client against the listed outputSchema.
    let sum = call(&running, "add", json!({"a": 2, "b": 3})).await;
    assert_eq!(texts(&sum), ["5"]);
    assert!(fixture_number_eq(
        &sum.structured_content.unwrap()["sum"],
        5.0
    ));

    // Progress.
    let (mut progress, slow) = client.call_tool_with_progress(
        CallToolRequestParams::with_arguments("slow", JsonObject::new()),
        CallOptions::new(),
    );
    let slow = within("slow", slow).await.unwrap();
    assert_eq!(texts(&slow), ["slow done"]);
    let mut steps = Vec::new();
    while let Some(p) = progress.recv().await {
        steps.push((p.progress, p.total, p.message.unwrap_or_default()));
    }
    assert_eq!(
        steps,
        [1.0, 2.0, 3.0].map(|i| (i, Some(3.0), format!("step {i} of 3")))
    );

    // Elicitation and sampling round trips.
    let asked = call(&running, "ask_user", json!({})).await;
    assert_eq!(texts(&asked), ["forty-two"]);
    let sampled_text = call(&running, "ask_model", json!({"prompt": "Say hi"})).await;
    assert_eq!(texts(&sampled_text), [MODEL_TEXT]);
    let request = sampled.lock().unwrap()[0].clone();
    assert_eq!(request["maxTokens"], 100);
    assert_eq!(request["messages"][0]["content"]["text"], "Say hi");

    let failed = call(&running, "fail", json!({})).await;
    assert!(failed.is_error());
    assert_eq!(texts(&failed), ["This tool always fails"]);

    // Resources and the template.
    let client = &running.client;
    let resources = serde_json::to_value(client.list_resources(None).await.unwrap()).unwrap();
    assert_eq!(resources["resources"][0]["uri"], "test://hello");
    assert_eq!(resources["resources"][0]["mimeType"], "text/plain");
    let hello = serde_json::to_value(client.read_resource("test://hello").await.unwrap()).unwrap();
    assert_eq!(
        hello["contents"],
        json!([{"uri": "test://hello", "mimeType": "text/plain", "text": format!("Hello from {language}")}])
    );
    let templates: Vec<_> = client
        .list_resource_templates_stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0].uri_template, "test://items/{id}");
    let item =
        serde_json::to_value(client.read_resource("test://items/42").await.unwrap()).unwrap();
    let text = item["contents"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        json!({"id": "42", "name": "Item 42"})
    );

    // Prompts.
    let prompts: Vec<_> = client.list_prompts_stream().try_collect().await.unwrap();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].name, "greet");
    let mut get = GetPromptRequestParams::new("greet");
    get.arguments = Some(BTreeMap::from([("name".to_owned(), "Ada".to_owned())]));
    let greeting = client.get_prompt(get).await.unwrap();
    assert_eq!(
        serde_json::to_value(&greeting.messages).unwrap(),
        json!([{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}])
    );

    // Completion, of a prompt argument and of a template variable.
    let done = client
        .complete(CompleteRequestParams::new(
            PromptReference::new("greet"),
            "name",
            "A",
        ))
        .await
        .unwrap();
    assert_eq!(done.completion.values, ["Alice"]);
    let done = client
        .complete(CompleteRequestParams::new(
            ResourceTemplateReference::new("test://items/{id}"),
            "id",
            "4",
        ))
        .await
        .unwrap();
    assert_eq!(done.completion.values, ["42"]);
    client.ping().await.unwrap();
    running.close().await;
}

fn fixture_number_eq(value: &Value, expected: f64) -> bool {
    value.as_f64() == Some(expected)
}

/// Auto, then each era pinned, against a server of both eras.
const BOTH_ERAS: &[(EraChoice, &str)] = &[
    (EraChoice::Auto, "2026-07-28"),
    (EraChoice::Modern, "2026-07-28"),
    (EraChoice::Legacy, "2025-11-25"),
];

#[tokio::test]
async fn client_against_the_typescript_sdk_server() {
    // A server of the handshake era only: auto falls back to `initialize`.
    let eras = [
        (EraChoice::Auto, "2025-11-25"),
        (EraChoice::Legacy, "2025-11-25"),
    ];
    same_surface(ts_server, "ts-interop-server", "TypeScript", &eras).await;
}

#[tokio::test]
async fn client_against_the_typescript_sdk_v2_server() {
    same_surface(
        ts_server_v2,
        "ts-v2-interop-server",
        "TypeScript v2",
        BOTH_ERAS,
    )
    .await;
}

#[tokio::test]
async fn client_against_the_python_sdk_server() {
    same_surface(python_server, "python-interop-server", "Python", BOTH_ERAS).await;
}

#[tokio::test]
async fn client_against_server_everything() {
    let (builder, sampled) = full_client();
    let mut running = Running::start(server_everything(), builder).await;
    // The tools that depend on the client's capabilities are added after `initialized`.
    running.tool_list_changed().await;
    let client = &running.client;
    let tools: Vec<_> = client.list_tools_stream().try_collect().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in [
        "echo",
        "get-sum",
        "get-structured-content",
        "trigger-long-running-operation",
        "trigger-sampling-request",
        "trigger-elicitation-request",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }

    assert_eq!(
        texts(&call(&running, "echo", json!({"message": "hello"})).await),
        ["Echo: hello"]
    );
    assert_eq!(
        texts(&call(&running, "get-sum", json!({"a": 2, "b": 3})).await),
        ["The sum of 2 and 3 is 5."]
    );
    // Checked against its outputSchema by the client (the tools were listed above).
    let weather = call(
        &running,
        "get-structured-content",
        json!({"location": "New York"}),
    )
    .await;
    assert_eq!(
        weather.structured_content,
        Some(json!({"temperature": 33, "conditions": "Cloudy", "humidity": 82}))
    );

    let (mut progress, long) = running.client.call_tool_with_progress(
        CallToolRequestParams::with_arguments(
            "trigger-long-running-operation",
            args(json!({"duration": 0.3, "steps": 3})),
        ),
        CallOptions::new(),
    );
    let long = within("trigger-long-running-operation", long)
        .await
        .unwrap();
    assert_eq!(
        texts(&long),
        ["Long running operation completed. Duration: 0.3 seconds, Steps: 3."]
    );
    let mut steps = Vec::new();
    while let Some(p) = progress.recv().await {
        steps.push((p.progress, p.total));
    }
    assert_eq!(
        steps,
        [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
    );

    let sampling = call(
        &running,
        "trigger-sampling-request",
        json!({"prompt": "Hi"}),
    )
    .await;
    let text = texts(&sampling).join("\n");
    assert!(
        text.contains(MODEL_TEXT) && text.contains("e2e-model"),
        "{text}"
    );
    assert_eq!(
        sampled.lock().unwrap()[0]["messages"][0]["content"]["text"],
        "Resource trigger-sampling-request context: Hi"
    );
    let elicited = call(&running, "trigger-elicitation-request", json!({})).await;
    let text = texts(&elicited).join("\n");
    assert!(
        text.contains("- Name: Ada") && text.contains("- Agreed to terms: true"),
        "{text}"
    );

    let client = &running.client;
    let resources = serde_json::to_value(client.list_resources(None).await.unwrap()).unwrap();
    let uri = "demo://resource/static/document/architecture.md";
    assert!(
        resources["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == uri && r["mimeType"] == "text/markdown"),
        "{resources}"
    );
    let doc = serde_json::to_value(client.read_resource(uri).await.unwrap()).unwrap();
    assert!(!doc["contents"][0]["text"].as_str().unwrap().is_empty());
    let dynamic = serde_json::to_value(
        client
            .read_resource("demo://resource/dynamic/text/7")
            .await
            .unwrap(),
    )
    .unwrap();
    let text = dynamic["contents"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Resource 7: This is a plaintext resource"),
        "{text}"
    );

    let mut get = GetPromptRequestParams::new("args-prompt");
    get.arguments = Some(BTreeMap::from([
        ("city".to_owned(), "Paris".to_owned()),
        ("state".to_owned(), "TX".to_owned()),
    ]));
    let prompt = client.get_prompt(get).await.unwrap();
    assert_eq!(
        serde_json::to_value(&prompt.messages).unwrap(),
        json!([{"role": "user", "content": {"type": "text", "text": "What's weather in Paris, TX?"}}])
    );

    let department = client
        .complete(CompleteRequestParams::new(
            PromptReference::new("completable-prompt"),
            "department",
            "E",
        ))
        .await
        .unwrap();
    assert_eq!(department.completion.values, ["Engineering"]);
    let mut member =
        CompleteRequestParams::new(PromptReference::new("completable-prompt"), "name", "");
    member.context = Some({
        let mut built = CompletionContext::default();
        built.arguments = Some(BTreeMap::from([(
            "department".to_owned(),
            "Engineering".to_owned(),
        )]));
        built
    });
    let member = client.complete(member).await.unwrap();
    assert_eq!(member.completion.values, ["Alice", "Bob", "Charlie"]);
    running.close().await;
}
