//! Methods the protocol does not define, served by the fallback.

use mcp_server::{Context, Error, McpRequest, Server, State};
use serde_json::json;

use crate::support::{Client, rpc_error};

#[derive(serde::Deserialize)]
struct Echo {
    text: String,
}

fn server() -> Server {
    Server::builder()
        .state("build-42")
        .fallback(
            |req: McpRequest, cx: Context, State(build): State<&'static str>| async move {
                match req.method() {
                    "acme/version" => Ok(json!({"build": build})),
                    "acme/echo" => {
                        let echo: Echo = req.params_as()?;
                        let meta = cx.meta().and_then(|m| m.get("trace")).cloned();
                        Ok(json!({"text": echo.text, "trace": meta}))
                    }
                    other => Err(Error::method_not_found(other)),
                }
            },
        )
        .build()
}

#[tokio::test(start_paused = true)]
async fn the_fallback_serves_custom_methods() {
    let server = server();
    let client = Client::connect_full(&server).await;
    let version = client.raw("acme/version", json!({})).await.unwrap();
    assert_eq!(version, json!({"build": "build-42"}));
    let echo = client
        .raw("acme/echo", json!({"text": "hi", "_meta": {"trace": "t1"}}))
        .await
        .unwrap();
    assert_eq!(echo, json!({"text": "hi", "trace": "t1"}));

    let bad = rpc_error(
        client
            .raw("acme/echo", json!({"text": 5}))
            .await
            .unwrap_err(),
    );
    assert_eq!(bad.code.0, -32602);
    let unknown = rpc_error(client.raw("acme/other", json!({})).await.unwrap_err());
    assert_eq!(
        (unknown.code.0, unknown.message.as_str()),
        (-32601, "method not found: acme/other")
    );
    // Protocol methods still go to the router.
    client.raw("ping", json!({})).await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn without_a_fallback_custom_methods_are_not_found() {
    let server = Server::builder().build();
    let client = Client::connect_full(&server).await;
    let err = rpc_error(client.raw("acme/version", json!({})).await.unwrap_err());
    assert_eq!(err.code.0, -32601);
}
