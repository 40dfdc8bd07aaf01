//! Our `mcp-client` in the 2026-07-28 era against `everything-server`, over stdio and over
//! Streamable HTTP: the revision's fixture tools and prompt answered through input-required
//! rounds by the same handlers that answer server requests in the handshake era, a
//! subscription, the per-request log level, `x-mcp-header` parameters mirrored into
//! `Mcp-Param-*`, and the refusal of an undeclared capability.

use std::sync::{Arc, Mutex};

use futures::StreamExt as _;
use mcp_client::{Client, ClientBuilder, EraChoice, ErrorObject, RequestContext};
use mcp_types::{
    CallToolRequestParams, ElicitRequestParams, ElicitResult, Era, GetPromptRequestParams,
    JsonObject, LoggingLevel, ProtocolVersion, Root, ServerNotification, SubscriptionFilter,
};
use serde_json::{Value, json};

use crate::client_support::{MODEL_TEXT, Running, everything, recording_sampler};
use crate::http_support::{HttpServer, close, connect};
use crate::support::client::within;

/// Answers each form with what its one field asks for: a name, a colour, a context, a
/// confirmation.
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
            "color" => json!("blue"),
            "ok" => json!(true),
            other => json!(format!("{other}-value")),
        };
        content.insert(field.clone(), value);
    }
    let content = serde_json::from_value(Value::Object(content))
        .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
    Ok(ElicitResult::accept(Some(content)))
}

/// A client that answers everything the fixture asks: elicitation, sampling, one root.
fn answering() -> (ClientBuilder, Arc<Mutex<Vec<Value>>>) {
    let (sampler, seen) = recording_sampler();
    let builder = Client::builder()
        .elicitation(answer_form)
        .sampling(sampler)
        .roots(vec![Root::new("file:///workspace")]);
    (builder, seen)
}

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

/// Every input-required tool and the prompt, answered in rounds.
async fn input_rounds(client: &Client, sampled: &Mutex<Vec<Value>>) {
    assert_eq!(client.era(), Era::Stateless);
    assert_eq!(*client.protocol_version(), ProtocolVersion::V2026_07_28);
    let empty = Value::Null;
    let cases = [
        (
            "test_input_required_result_elicitation",
            "Hello, Ada!".to_owned(),
        ),
        (
            "test_input_required_result_sampling",
            format!("Sampling result: {MODEL_TEXT}"),
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
            format!("Name: Ada; Greeting: {MODEL_TEXT}; Roots: 1"),
        ),
        (
            "test_input_required_result_multi_round",
            "Multi-round complete for Ada who likes blue".to_owned(),
        ),
    ];
    for (tool, expected) in cases {
        assert_eq!(text(client, tool, empty.clone()).await, expected, "{tool}");
    }
    assert_eq!(sampled.lock().unwrap().len(), 2, "two sampling rounds");
    let prompt = client
        .get_prompt(GetPromptRequestParams::new(
            "test_input_required_result_prompt",
        ))
        .await
        .unwrap();
    let message = serde_json::to_value(&prompt.messages[0]).unwrap();
    assert_eq!(
        message["content"]["text"],
        "Prompt with context: context-value"
    );
}

#[tokio::test]
async fn input_rounds_over_stdio() {
    let (builder, sampled) = answering();
    let running = Running::start(everything(), builder).await;
    input_rounds(&running.client, &sampled).await;
    running.close().await;
}

#[tokio::test]
async fn input_rounds_and_header_params_over_http() {
    let server = HttpServer::everything().await;
    let (builder, sampled) = answering();
    let (client, connection) = connect(&server.mcp_url(), builder.era(EraChoice::Modern)).await;
    input_rounds(&client, &sampled).await;
    // The server checks `Mcp-Param-Region` against the argument: the client learned the
    // header from the tool list (listed here, or on the refusal of an unlisted tool).
    let region = json!({"region": "eu-west-1"});
    assert_eq!(
        text(&client, "test_custom_header", region.clone()).await,
        "Region: eu-west-1"
    );
    client.list_tools(None).await.unwrap();
    let odd = json!({"region": " Zürich "});
    assert_eq!(
        text(&client, "test_custom_header", odd).await,
        "Region:  Zürich "
    );
    close(client, connection).await;
}

#[tokio::test]
async fn an_undeclared_capability_is_a_typed_refusal() {
    // No sampling handler, so no `sampling` capability in the request's `_meta`.
    let running = Running::start(everything(), Client::builder()).await;
    let err = running
        .client
        .call_tool(CallToolRequestParams::new("test_missing_capability"))
        .await
        .unwrap_err();
    match err {
        mcp_client::Error::MissingClientCapability { required, .. } => {
            assert_eq!(required, json!({"sampling": {}}));
        }
        other => panic!("expected MissingClientCapability, got {other:?}"),
    }
    running.close().await;
}

/// A subscription to tool list changes, and a tool that triggers one.
async fn subscription(client: &Client) {
    let filter = {
        let mut built = SubscriptionFilter::default();
        built.tools_list_changed = Some(true);
        built
    };
    let mut changes = client.listen(filter).await.unwrap();
    assert_eq!(changes.acknowledged().tools_list_changed, Some(true));
    assert_eq!(
        text(client, "test_trigger_tool_change", Value::Null).await,
        "Mutation triggered"
    );
    let change = within("the tool list change", changes.next())
        .await
        .expect("the subscription is open")
        .unwrap();
    assert!(matches!(change, ServerNotification::ToolListChanged(_)));
    changes.close().await.unwrap();
}

#[tokio::test]
async fn a_subscription_over_stdio_and_http() {
    let running = Running::start(everything(), Client::builder()).await;
    subscription(&running.client).await;
    running.close().await;

    let server = HttpServer::everything().await;
    let (client, connection) = connect(&server.mcp_url(), Client::builder()).await;
    assert_eq!(client.era(), Era::Stateless);
    subscription(&client).await;
    close(client, connection).await;
}

#[tokio::test]
async fn the_log_level_rides_on_each_request() {
    let mut running = Running::start(everything(), Client::builder()).await;
    assert_eq!(running.client.era(), Era::Stateless);
    running
        .client
        .set_logging_level(LoggingLevel::Info)
        .await
        .unwrap();
    assert_eq!(
        text(&running.client, "test_logging_tool", Value::Null).await,
        "Logging evaluated"
    );
    let log = running.next_log().await;
    assert_eq!(log.level, LoggingLevel::Info);
    assert_eq!(log.data, json!("Diagnostic trace logging activated"));
    running.close().await;
}
