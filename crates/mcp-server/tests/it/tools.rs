use mcp_server::types::{
    CallTool, CallToolRequestParams, JsonObject, ListTools, PaginatedRequestParams,
};
use serde_json::{Value, json};

use crate::support::{Client, rpc_error};
use crate::{fixture, schema_2020_12};

fn args(v: Value) -> JsonObject {
    v.as_object().unwrap().clone()
}

#[tokio::test(start_paused = true)]
async fn lists_tools_with_derived_and_verbatim_schemas() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let list = client.raw("tools/list", json!({})).await.unwrap();
    let tools = list["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "sum", "fail", "contact", "mixed"]);
    assert!(list.get("nextCursor").is_none());

    let add = &tools[0];
    assert_eq!(add["title"], "Add");
    assert_eq!(add["description"], "Adds two numbers");
    assert_eq!(add["annotations"], json!({"readOnlyHint": true}));
    assert_eq!(add["inputSchema"]["type"], "object");
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(
        add["inputSchema"]["properties"]["a"]["description"],
        "The first number."
    );
    assert!(add.get("outputSchema").is_none());

    let sum = &tools[1];
    assert_eq!(sum["outputSchema"]["type"], "object");
    assert_eq!(sum["outputSchema"]["required"], json!(["sum"]));

    // The raw schema is kept verbatim, 2020-12 keywords included.
    assert_eq!(tools[3]["inputSchema"], schema_2020_12());
    // A tool without arguments.
    assert_eq!(
        tools[4]["inputSchema"],
        json!({"type": "object", "properties": {}})
    );
}

#[tokio::test(start_paused = true)]
async fn calls_typed_tools_and_validates_arguments() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let r = client
        .call::<CallTool>(CallToolRequestParams::with_arguments(
            "add",
            args(json!({"a": 2, "b": 40})),
        ))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"content": [{"type": "text", "text": "42"}]})
    );

    let err = rpc_error(
        client
            .call::<CallTool>(CallToolRequestParams::with_arguments(
                "add",
                args(json!({"a": "x", "b": 1})),
            ))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32602);
    assert!(
        err.message.starts_with("Invalid arguments for tool add: "),
        "{}",
        err.message
    );

    // Missing arguments altogether.
    let err = rpc_error(
        client
            .call::<CallTool>(CallToolRequestParams::new("add"))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32602);
    assert!(err.message.contains("missing field `a`"), "{}", err.message);

    let err = rpc_error(
        client
            .call::<CallTool>(CallToolRequestParams::new("nope"))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32602);
    assert_eq!(err.message, "Unknown tool: nope");
}

#[tokio::test(start_paused = true)]
async fn handler_errors_become_is_error_results() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let r = client
        .raw(
            "tools/call",
            json!({"name": "fail", "arguments": {"reason": "on purpose"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        r,
        json!({"content": [{"type": "text", "text": "failed: on purpose"}], "isError": true})
    );
}

#[tokio::test(start_paused = true)]
async fn structured_output_has_structured_content_and_a_text_block() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let r = client
        .raw(
            "tools/call",
            json!({"name": "sum", "arguments": {"a": 1, "b": 2}}),
        )
        .await
        .unwrap();
    assert_eq!(
        r,
        json!({"content": [{"type": "text", "text": "{\"sum\":3}"}], "structuredContent": {"sum": 3}})
    );
}

#[cfg(feature = "jsonschema")]
#[tokio::test(start_paused = true)]
async fn raw_schema_tools_validate_against_the_schema() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let ok = client
        .raw("tools/call", json!({"name": "contact", "arguments": {"name": "A", "contactMethod": "phone", "phone": "1"}}))
        .await
        .unwrap();
    assert_eq!(
        ok["content"][0]["text"],
        r#"contact {"contactMethod":"phone","name":"A","phone":"1"}"#
    );
    for bad in [
        json!({"name": "A"}),                            // neither phone nor email
        json!({"contactMethod": "phone", "email": "e"}), // if/then: phone required
        json!({"email": "e", "unexpected": true}),       // additionalProperties: false
        json!({"email": "e", "address": {"street": 5}}), // $ref into $defs
    ] {
        let err = rpc_error(
            client
                .raw("tools/call", json!({"name": "contact", "arguments": bad}))
                .await
                .unwrap_err(),
        );
        assert_eq!(err.code.0, -32602);
        assert!(
            err.message
                .starts_with("Invalid arguments for tool contact: "),
            "{}",
            err.message
        );
    }
}

#[tokio::test(start_paused = true)]
async fn returns_every_content_kind() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let r = client
        .raw("tools/call", json!({"name": "mixed"}))
        .await
        .unwrap();
    let kinds: Vec<&str> = r["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["text", "image", "audio", "resource"]);
    assert_eq!(r["content"][2]["mimeType"], "audio/wav");
    assert_eq!(r["content"][3]["resource"]["uri"], "test://embedded");
}

#[cfg(not(feature = "jsonschema"))]
#[tokio::test(start_paused = true)]
async fn without_jsonschema_raw_tools_get_their_arguments_unchecked() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    // Neither phone nor email: the schema refuses it, but nothing checks the schema.
    let r = client
        .raw(
            "tools/call",
            json!({"name": "contact", "arguments": {"name": "A"}}),
        )
        .await
        .unwrap();
    assert_eq!(r["content"][0]["text"], r#"contact {"name":"A"}"#);
}

#[test]
fn invalid_raw_schemas_are_refused() {
    #[cfg(feature = "jsonschema")]
    {
        let err = mcp_server::Tool::raw("bad", json!({"type": 12}), |_a: JsonObject| async { "" })
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("invalid json schema for tool bad"),
            "{err}"
        );
    }
    let err = mcp_server::Tool::raw("bad", json!(true), |_a: JsonObject| async { "" }).unwrap_err();
    assert!(matches!(err, mcp_server::Error::InvalidSchema { .. }));
}

#[tokio::test(start_paused = true)]
async fn list_results_use_pagination_params() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let list = client
        .call::<ListTools>(PaginatedRequestParams::default())
        .await
        .unwrap();
    assert_eq!(list.tools.len(), 5);
}
