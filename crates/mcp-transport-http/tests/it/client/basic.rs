//! Requests, responses and headers.

use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::IntoResponse;
use futures::FutureExt;
use mcp_transport_http::client::StreamableHttpClientTransport;
use serde_json::json;

use super::support::*;

#[tokio::test]
async fn json_response() {
    let server = serve(|rec| match rec.rpc_method().as_deref() {
        Some("initialize") => json(StatusCode::OK, init_result(rec, "2025-11-25")),
        Some("echo") => json(StatusCode::OK, result(rec, rec.json()["params"].clone())),
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let client = Client::connect(&server);
    let init = client.initialize().await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    let echoed = client.call("echo", json!({"x": 1})).await.unwrap();
    assert_eq!(echoed, json!({"x": 1}));

    let post = &server.posts_of("echo")[0];
    assert_eq!(
        post.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(post.header("content-type"), Some("application/json"));
    assert_eq!(
        post.json(),
        json!({"jsonrpc": "2.0", "id": post.rpc_id(), "method": "echo", "params": {"x": 1}})
    );
    client.close().await;
}

#[tokio::test]
async fn sse_response_with_a_notification_before_the_response() {
    let server = serve(|rec| match rec.rpc_method().as_deref() {
        Some("tools/call") => {
            let progress = json!({
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "working"}
            });
            let response = result(rec, json!({"content": []}));
            sse(format!(
                "id: 1\ndata: \n\n{}{}",
                event(&progress),
                event(&response)
            ))
        }
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let mut client = Client::connect(&server);
    let result = client
        .call("tools/call", json!({"name": "t"}))
        .await
        .unwrap();
    assert_eq!(result, json!({"content": []}));
    let note = client.next_notification().await;
    assert_eq!(note.method, "notifications/message");
    assert_eq!(
        note.params::<serde_json::Value>().unwrap()["data"],
        "working"
    );
    client.close().await;
}

#[tokio::test]
async fn session_id_and_protocol_version_are_sent_after_initialize() {
    let server = serve(|rec| match rec.rpc_method().as_deref() {
        Some("initialize") => {
            let mut resp = json(StatusCode::OK, init_result(rec, "2025-06-18"));
            resp.headers_mut()
                .insert("mcp-session-id", "session-1".parse().unwrap());
            resp
        }
        Some("ping") => json(StatusCode::OK, result(rec, json!({}))),
        _ if rec.method == Method::GET => status(StatusCode::METHOD_NOT_ALLOWED),
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let client = Client::connect(&server);
    client.initialize().await;
    client.call("ping", json!({})).await.unwrap();

    let init = &server.posts_of("initialize")[0];
    assert_eq!(init.header("mcp-session-id"), None);
    assert_eq!(init.header("mcp-protocol-version"), None);
    for later in [
        &server.posts_of("notifications/initialized")[0],
        &server.posts_of("ping")[0],
    ] {
        assert_eq!(later.header("mcp-session-id"), Some("session-1"));
        assert_eq!(later.header("mcp-protocol-version"), Some("2025-06-18"));
    }
    client.close().await;
}

#[tokio::test]
async fn notifications_get_202() {
    let server = serve(|_| status(StatusCode::ACCEPTED)).await;
    let client = Client::connect(&server);
    client
        .peer
        .notify("notifications/roots/list_changed", None)
        .await
        .unwrap();
    server
        .wait_for("the notification", |log| {
            log.iter()
                .any(|r| r.rpc_method().as_deref() == Some("notifications/roots/list_changed"))
        })
        .await;
    // A notification's 202 is not an error: the connection is still up.
    assert!(!client.run.is_finished());
    client.close().await;
}

#[tokio::test]
async fn get_stream_delivers_server_notifications() {
    let server = serve(
        |rec| match (rec.method.clone(), rec.rpc_method().as_deref()) {
            (Method::POST, Some("initialize")) => {
                let mut resp = json(StatusCode::OK, init_result(rec, "2025-11-25"));
                resp.headers_mut()
                    .insert("mcp-session-id", "s".parse().unwrap());
                resp
            }
            (Method::GET, _) => {
                let note = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
                sse_open(format!("id: g1\ndata: \n\n{}", event(&note)))
            }
            _ => status(StatusCode::ACCEPTED),
        },
    )
    .await;
    let mut client = Client::connect(&server);
    client.initialize().await;
    let note = client.next_notification().await;
    assert_eq!(note.method, "notifications/tools/list_changed");

    let get = &server.requests(Method::GET)[0];
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("mcp-session-id"), Some("s"));
    assert_eq!(get.header("mcp-protocol-version"), Some("2025-11-25"));
    assert_eq!(get.header("last-event-id"), None);
    client.close().await;
}

#[tokio::test]
async fn delete_on_close() {
    let server = serve(|rec| match rec.rpc_method().as_deref() {
        Some("initialize") => {
            let mut resp = json(StatusCode::OK, init_result(rec, "2025-11-25"));
            resp.headers_mut()
                .insert("mcp-session-id", "to-delete".parse().unwrap());
            resp
        }
        _ if rec.method == Method::GET => status(StatusCode::METHOD_NOT_ALLOWED),
        _ if rec.method == Method::DELETE => status(StatusCode::OK),
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let client = Client::connect(&server);
    client.initialize().await;
    client.close().await;
    let deletes = server.requests(Method::DELETE);
    assert_eq!(deletes.len(), 1);
    assert_eq!(deletes[0].header("mcp-session-id"), Some("to-delete"));
    assert_eq!(
        deletes[0].header("mcp-protocol-version"),
        Some("2025-11-25")
    );
}

#[tokio::test]
async fn custom_headers_arrive_on_every_request() {
    let server = serve(
        |rec| match (rec.method.clone(), rec.rpc_method().as_deref()) {
            (Method::POST, Some("initialize")) => {
                json(StatusCode::OK, init_result(rec, "2025-11-25"))
            }
            (Method::GET, _) => sse_open("id: 1\ndata: \n\n"),
            _ => status(StatusCode::ACCEPTED),
        },
    )
    .await;
    let transport = StreamableHttpClientTransport::builder(&server.url)
        .header("x-custom", "static-value")
        .header_provider(|| {
            async {
                let mut headers = HeaderMap::new();
                headers.insert("authorization", HeaderValue::from_static("Bearer t0ken"));
                Ok(headers)
            }
            .boxed()
        })
        .build()
        .unwrap();
    let client = Client::new(transport);
    client.initialize().await;
    server
        .wait_for("the get stream", |log| {
            log.iter().any(|r| r.method == Method::GET)
        })
        .await;
    for rec in server.log() {
        assert_eq!(rec.header("x-custom"), Some("static-value"), "{rec:?}");
        assert_eq!(rec.header("authorization"), Some("Bearer t0ken"), "{rec:?}");
    }
    client.close().await;
}

#[tokio::test]
async fn an_http_error_fails_the_request_not_the_connection() {
    let server = serve(|rec| match rec.rpc_method().as_deref() {
        Some("broken") => (StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response(),
        Some("rpc-error") => json(
            StatusCode::BAD_REQUEST,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "bad thing"}}),
        ),
        Some("ok") => json(StatusCode::OK, result(rec, json!(true))),
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let client = Client::connect(&server);
    let err = client.call("broken", json!({})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "peer returned an error: http status 500 Internal Server Error: boom (-32603)"
    );
    let err = client.call("rpc-error", json!({})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "peer returned an error: bad thing (-32000)"
    );
    assert_eq!(client.call("ok", json!({})).await.unwrap(), json!(true));
    client.close().await;
}

#[tokio::test]
async fn a_get_stream_that_never_answers_does_not_hold_the_initialized_send() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    // POSTs are answered; every GET hangs before its headers.
    let gets = Arc::new(AtomicUsize::new(0));
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(|body: String| async move {
            let msg: serde_json::Value = serde_json::from_str(&body).unwrap();
            match msg["method"].as_str() {
                Some("initialize") => axum::Json(json!({
                    "jsonrpc": "2.0", "id": msg["id"],
                    "result": {
                        "protocolVersion": "2025-11-25", "capabilities": {},
                        "serverInfo": {"name": "s", "version": "1"},
                    },
                }))
                .into_response(),
                Some("ping") => {
                    axum::Json(json!({"jsonrpc": "2.0", "id": msg["id"], "result": {}}))
                        .into_response()
                }
                _ => StatusCode::ACCEPTED.into_response(),
            }
        })
        .get({
            let gets = gets.clone();
            move || {
                gets.fetch_add(1, Ordering::SeqCst);
                futures::future::pending::<StatusCode>()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let transport = StreamableHttpClientTransport::builder(&url)
        .timeout(std::time::Duration::from_millis(300))
        .build()
        .unwrap();
    let client = Client::new(transport);
    tokio::time::timeout(std::time::Duration::from_secs(10), async {
        client.initialize().await;
        assert_eq!(client.call("ping", json!({})).await.unwrap(), json!({}));
    })
    .await
    .expect("initialize, initialized and ping complete despite the hanging GET");
    assert!(gets.load(Ordering::SeqCst) >= 1);
    client.close().await;
}
