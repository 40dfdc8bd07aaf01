//! Handler errors keep their JSON-RPC code through `anyhow`, `HandlerError` and error enums.

use mcp_server::types::ErrorCode;
use mcp_server::{
    Error, HandlerError, IntoHandlerError, Prompt, ResourceTemplate, Server, Tool, UriParams,
};
use serde_json::json;

use crate::support::{Client, rpc_error};

/// An application's error enum: its `Missing` variant means "resource not found".
#[derive(Debug, thiserror::Error)]
enum StoreError {
    #[error("no such key: {0}")]
    Missing(String),
    #[error("store offline")]
    Offline,
    /// Non-transparent: the `Error` is this variant's source, so the chain finds it.
    #[error("lookup failed")]
    Mcp(#[from] Error),
}

impl IntoHandlerError for StoreError {
    fn into_handler_error(self) -> HandlerError {
        match self {
            StoreError::Missing(key) => Error::resource_not_found(format!("store://{key}")).into(),
            other => HandlerError::new(other),
        }
    }
}

fn server() -> Server {
    Server::builder()
        .resource_template(
            ResourceTemplate::new("store://{key}", "store", |p: UriParams| async move {
                match p.get("key") {
                    Some("present") => Ok("value".to_owned()),
                    Some("offline") => Err(StoreError::Offline),
                    Some("wrapped") => Err(StoreError::Mcp(Error::rpc(-32050, "custom"))),
                    Some(key) => Err(StoreError::Missing(key.to_owned())),
                    None => unreachable!("the template has the variable"),
                }
            })
            .unwrap(),
        )
        .resource_template(
            ResourceTemplate::new("boxed://{key}", "boxed", |p: UriParams| async move {
                let e: HandlerError = Error::resource_not_found(p.uri()).into();
                Err::<String, _>(e)
            })
            .unwrap(),
        )
        .prompt(Prompt::new("broken", || async {
            Err::<String, _>("the template is missing")
        }))
        .tool(Tool::new("fails", || async {
            Err::<String, _>(StoreError::Offline)
        }))
        .tool(Tool::new("needs_url", || async {
            Err::<String, _>(Error::rpc(
                ErrorCode::URL_ELICITATION_REQUIRED,
                "Open the link first",
            ))
        }))
        .build()
}

#[tokio::test(start_paused = true)]
async fn error_enums_and_handler_errors_keep_their_codes() {
    let server = server();
    let client = Client::connect_full(&server).await;
    let read = |uri: &'static str| {
        let client = &client;
        async move {
            rpc_error(
                client
                    .raw("resources/read", json!({"uri": uri}))
                    .await
                    .unwrap_err(),
            )
        }
    };
    let missing = read("store://gone").await;
    assert_eq!(missing.code, ErrorCode::RESOURCE_NOT_FOUND);
    assert_eq!(missing.data, Some(json!({"uri": "store://gone"})));
    let offline = read("store://offline").await;
    assert_eq!(
        (offline.code, offline.message.as_str()),
        (ErrorCode::INTERNAL_ERROR, "store offline")
    );
    let wrapped = read("store://wrapped").await;
    assert_eq!(
        (wrapped.code.0, wrapped.message.as_str()),
        (-32050, "custom")
    );
    let boxed = read("boxed://x").await;
    assert_eq!(boxed.code, ErrorCode::RESOURCE_NOT_FOUND);

    let prompt = rpc_error(
        client
            .raw("prompts/get", json!({"name": "broken"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (prompt.code, prompt.message.as_str()),
        (ErrorCode::INTERNAL_ERROR, "the template is missing")
    );
}

#[tokio::test(start_paused = true)]
async fn a_tool_error_is_a_result_except_url_elicitation_required() {
    let server = server();
    let client = Client::connect_full(&server).await;
    let failed = client
        .raw("tools/call", json!({"name": "fails"}))
        .await
        .unwrap();
    assert_eq!(failed["isError"], true);
    assert_eq!(failed["content"][0]["text"], "store offline");
    let err = rpc_error(
        client
            .raw("tools/call", json!({"name": "needs_url"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code, ErrorCode::URL_ELICITATION_REQUIRED);
}

#[cfg(feature = "anyhow")]
#[tokio::test(start_paused = true)]
async fn an_anyhow_error_keeps_the_code_of_the_error_inside() {
    use anyhow::Context as _;

    let server = Server::builder()
        .resource_template(
            ResourceTemplate::new("file:///{name}", "file", |p: UriParams| async move {
                let name = p.get("name").unwrap_or_default().to_owned();
                match name.as_str() {
                    "plain" => Err(anyhow::Error::from(Error::resource_not_found(p.uri()))),
                    "context" => Err(Error::resource_not_found(p.uri()))
                        .with_context(|| format!("reading {name}")),
                    "other" => Err(anyhow::anyhow!("disk on fire")),
                    _ => Ok::<_, anyhow::Error>("contents".to_owned()),
                }
            })
            .unwrap(),
        )
        .tool(Tool::new("anyhow_tool", || async {
            anyhow::ensure!(1 + 1 == 3, "arithmetic is broken");
            Ok("fine")
        }))
        .build();
    let client = Client::connect_full(&server).await;
    for uri in ["file:///plain", "file:///context"] {
        let err = rpc_error(
            client
                .raw("resources/read", json!({"uri": uri}))
                .await
                .unwrap_err(),
        );
        assert_eq!(err.code, ErrorCode::RESOURCE_NOT_FOUND, "{uri}");
        assert_eq!(err.code.0, -32002);
        assert_eq!(err.data, Some(json!({"uri": uri})));
    }
    let err = rpc_error(
        client
            .raw("resources/read", json!({"uri": "file:///other"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (err.code, err.message.as_str()),
        (ErrorCode::INTERNAL_ERROR, "disk on fire")
    );
    let tool = client
        .raw("tools/call", json!({"name": "anyhow_tool"}))
        .await
        .unwrap();
    assert_eq!(tool["isError"], true);
    assert_eq!(tool["content"][0]["text"], "arithmetic is broken");
}
