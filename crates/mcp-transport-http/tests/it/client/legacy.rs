//! Falling back to the legacy HTTP+SSE transport (2024-11-05).

use std::sync::{Arc, Mutex};

use axum::http::{Method, StatusCode};
use mcp_transport_http::client::StreamableHttpClientTransport;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_stream_shim::ReceiverStream;

use super::support::*;

/// `tokio_stream` is not a dependency: a tiny `Stream` over an unbounded receiver.
pub(super) mod tokio_stream_shim {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::sync::mpsc;

    pub(crate) struct ReceiverStream(pub(crate) mpsc::UnboundedReceiver<String>);

    impl futures::Stream for ReceiverStream {
        type Item = String;

        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<String>> {
            self.0.poll_recv(cx)
        }
    }
}

#[tokio::test]
async fn falls_back_to_http_sse_when_post_is_refused() {
    let (events_tx, events_rx) = mpsc::unbounded_channel::<String>();
    let events_rx = Arc::new(Mutex::new(Some(events_rx)));
    let server = serve(move |rec| match (rec.method.clone(), rec.uri.path()) {
        (Method::POST, "/mcp") => status(StatusCode::METHOD_NOT_ALLOWED),
        (Method::GET, "/mcp") => {
            let Some(rx) = events_rx.lock().unwrap().take() else {
                return status(StatusCode::CONFLICT);
            };
            events_tx
                .send("event: endpoint\ndata: /messages?session=abc\n\n".into())
                .unwrap();
            sse_stream(ReceiverStream(rx))
        }
        (Method::POST, "/messages") => {
            if rec.rpc_id().is_null() {
                return status(StatusCode::ACCEPTED);
            }
            let response = match rec.rpc_method().as_deref() {
                Some("initialize") => init_result(rec, "2024-11-05"),
                _ => result(rec, json!({"tools": []})),
            };
            events_tx.send(event(&response)).unwrap();
            status(StatusCode::ACCEPTED)
        }
        _ => status(StatusCode::NOT_FOUND),
    })
    .await;
    let client = Client::new(StreamableHttpClientTransport::new(&server.url).unwrap());
    let init = client.initialize().await;
    assert_eq!(init["protocolVersion"], "2024-11-05");
    let tools = client.call("tools/list", json!({})).await.unwrap();
    assert_eq!(tools, json!({"tools": []}));

    let posts: Vec<_> = server
        .requests(Method::POST)
        .into_iter()
        .filter(|r| r.uri.path() == "/messages")
        .collect();
    let methods: Vec<_> = posts.iter().filter_map(|r| r.rpc_method()).collect();
    assert_eq!(
        methods,
        ["initialize", "notifications/initialized", "tools/list"]
    );
    assert!(posts.iter().all(|r| r.uri.query() == Some("session=abc")));
    assert!(posts.iter().all(|r| r.header("mcp-session-id").is_none()));
    let gets = server.requests(Method::GET);
    assert_eq!(gets.len(), 1, "no streamable get stream in legacy mode");
    assert_eq!(gets[0].header("accept"), Some("text/event-stream"));
    client.close().await;
    assert!(server.requests(Method::DELETE).is_empty());
}

#[tokio::test]
async fn without_fallback_the_refused_initialize_fails() {
    let server = serve(|_| status(StatusCode::NOT_FOUND)).await;
    let transport = StreamableHttpClientTransport::builder(&server.url)
        .legacy_fallback(false)
        .build()
        .unwrap();
    let client = Client::new(transport);
    let err = client
        .call("initialize", json!({"protocolVersion": "2025-11-25"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "peer returned an error: http status 404 Not Found (-32603)"
    );
    assert!(server.requests(Method::GET).is_empty());
    client.close().await;
}

#[tokio::test]
async fn a_failed_fallback_reports_both_errors() {
    let server = serve(|_| status(StatusCode::METHOD_NOT_ALLOWED)).await;
    let client = Client::connect(&server);
    let err = client
        .call("initialize", json!({"protocolVersion": "2025-11-25"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "peer returned an error: http status 405 Method Not Allowed; legacy http+sse \
         fallback failed: http status 405 Method Not Allowed (-32603)"
    );
    client.close().await;
}
