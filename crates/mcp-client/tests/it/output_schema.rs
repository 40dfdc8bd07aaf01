//! `structuredContent` checked against the `outputSchema` of the last `tools/list`.

use mcp_client::{Client, Error};
use mcp_types::{CallTool, CallToolRequestParams, ListTools, Request as _};
use serde_json::{Value, json};

use crate::support::{FakeServer, Harness};

/// A server with tool `weather` (output schema: `{temp: number}` required) whose call returns
/// `structured` (`isError` when `structured` is null, no `structuredContent` when it is
/// `false`), and tool `free` without a schema.
async fn server(structured: Value, schema: Value) -> Harness {
    FakeServer::new()
        .answer(
            ListTools::METHOD,
            json!({"tools": [
                {"name": "weather", "inputSchema": {"type": "object"}, "outputSchema": schema},
                {"name": "free", "inputSchema": {"type": "object"}}
            ]}),
        )
        .route(CallTool::METHOD, move |params, _| {
            let structured = structured.clone();
            async move {
                let mut result = json!({"content": [{"type": "text", "text": "x"}]});
                if params["name"] == "weather" && structured.is_null() {
                    result["isError"] = json!(true);
                } else if !structured.is_null() && structured != json!(false) {
                    result["structuredContent"] = structured;
                }
                Ok(result)
            }
        })
        .connect(Client::builder())
        .await
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"temp": {"type": "number"}, "unit": {"enum": ["C", "F"]}},
        "required": ["temp"]
    })
}

#[tokio::test]
async fn matching_structured_content_passes() {
    let h = server(json!({"temp": 21.5, "unit": "C"}), schema()).await;
    // Before any tools/list the client knows no schema and checks nothing.
    h.client
        .call_tool(CallToolRequestParams::new("weather"))
        .await
        .unwrap();
    h.client.list_tools(None).await.unwrap();
    let result = h
        .client
        .call_tool(CallToolRequestParams::new("weather"))
        .await
        .unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"temp": 21.5, "unit": "C"}))
    );
}

#[cfg(feature = "jsonschema")]
#[tokio::test]
async fn a_mismatch_is_an_error() {
    let h = server(json!({"temp": "warm", "unit": "K"}), schema()).await;
    h.client.list_tools(None).await.unwrap();
    let err = h
        .client
        .call_tool(CallToolRequestParams::new("weather"))
        .await
        .unwrap_err();
    match &err {
        Error::OutputSchemaMismatch { tool, errors } => {
            assert_eq!(tool, "weather");
            assert_eq!(errors.len(), 2, "{errors:?}");
            assert!(errors.iter().any(|e| e.starts_with("/temp")), "{errors:?}");
            assert!(errors.iter().any(|e| e.starts_with("/unit")), "{errors:?}");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(
        err.to_string().starts_with(
            "structured content of tool \"weather\" does not match its output schema: "
        )
    );
    // A tool without a schema is not checked.
    h.client
        .call_tool(CallToolRequestParams::new("free"))
        .await
        .unwrap();
}

#[tokio::test]
async fn missing_structured_content_is_a_mismatch_but_tool_errors_are_not_checked() {
    let h = server(json!(false), schema()).await;
    h.client.list_tools(None).await.unwrap();
    let err = h
        .client
        .call_tool(CallToolRequestParams::new("weather"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::OutputSchemaMismatch { .. }), "{err:?}");

    let h = server(Value::Null, schema()).await;
    h.client.list_tools(None).await.unwrap();
    let result = h
        .client
        .call_tool(CallToolRequestParams::new("weather"))
        .await
        .unwrap();
    assert!(result.is_error());
}

#[cfg(not(feature = "jsonschema"))]
#[tokio::test]
async fn without_jsonschema_structured_content_is_not_validated() {
    let h = server(json!({"temp": "warm", "unit": "K"}), json!({"type": 12})).await;
    h.client.list_tools(None).await.unwrap();
    let result = h
        .client
        .call_tool(CallToolRequestParams::new("weather"))
        .await
        .unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"temp": "warm", "unit": "K"}))
    );
}

#[cfg(feature = "jsonschema")]
#[tokio::test]
async fn an_invalid_output_schema_is_reported() {
    let h = server(json!({"temp": 1}), json!({"type": 12})).await;
    h.client.list_tools(None).await.unwrap();
    let err = h
        .client
        .call_tool(CallToolRequestParams::new("weather"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidOutputSchema { ref tool, .. } if tool == "weather"),
        "{err:?}"
    );
}
