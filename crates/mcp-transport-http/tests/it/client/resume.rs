//! Resuming a POST's SSE stream with GET + `Last-Event-ID` (the `sse-retry` scenario).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{Method, StatusCode};
use mcp_transport_http::client::{Reconnect, StreamableHttpClientTransport};
use serde_json::{Value, json};

use super::support::*;

#[tokio::test]
async fn a_closed_post_stream_is_resumed_with_get_after_the_retry_interval() {
    let call_id = Arc::new(Mutex::new(Value::Null));
    let server = serve(
        move |rec| match (rec.method.clone(), rec.rpc_method().as_deref()) {
            (Method::POST, Some("initialize")) => {
                let mut resp = json(StatusCode::OK, init_result(rec, "2025-11-25"));
                resp.headers_mut()
                    .insert("mcp-session-id", "s".parse().unwrap());
                resp
            }
            // The priming event, then the stream ends before the response.
            (Method::POST, Some("tools/call")) => {
                *call_id.lock().unwrap() = rec.rpc_id();
                sse("id: event-1\nretry: 200\ndata: \n\n")
            }
            (Method::GET, _) if rec.header("last-event-id") == Some("event-1") => {
                let id = call_id.lock().unwrap().clone();
                let response =
                    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [], "resumed": true}});
                sse(format!(
                    "id: event-2\nretry: 200\ndata: \n\n{}",
                    event(&response)
                ))
            }
            (Method::GET, _) => status(StatusCode::METHOD_NOT_ALLOWED),
            _ => status(StatusCode::ACCEPTED),
        },
    )
    .await;
    let client = Client::connect(&server);
    client.initialize().await;
    let call = client.call("tools/call", json!({"name": "test_reconnection"}));
    let result = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the response arrives on the resumed stream")
        .unwrap();
    assert_eq!(result["resumed"], true);

    let post = &server.posts_of("tools/call")[0];
    let resume: Vec<_> = server
        .requests(Method::GET)
        .into_iter()
        .filter(|r| r.header("last-event-id").is_some())
        .collect();
    assert_eq!(resume.len(), 1);
    assert_eq!(resume[0].header("last-event-id"), Some("event-1"));
    assert_eq!(resume[0].header("accept"), Some("text/event-stream"));
    assert_eq!(resume[0].header("mcp-session-id"), Some("s"));
    assert_eq!(resume[0].header("mcp-protocol-version"), Some("2025-11-25"));
    let waited = resume[0].at.duration_since(post.at);
    assert!(
        waited >= Duration::from_millis(200),
        "waited only {waited:?}"
    );
    assert!(waited < Duration::from_secs(5), "waited {waited:?}");
    client.close().await;
}

#[tokio::test]
async fn a_post_stream_without_event_ids_fails_its_request() {
    let server = serve(|rec| match rec.rpc_method().as_deref() {
        Some("slow") => sse(""),
        Some("ok") => json(StatusCode::OK, result(rec, json!("fine"))),
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let client = Client::connect(&server);
    let err = client.call("slow", json!({})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "peer returned an error: the sse stream ended before the response arrived \
         (the server sent no event id to resume from) (-32603)"
    );
    assert_eq!(client.call("ok", json!({})).await.unwrap(), json!("fine"));
    client.close().await;
}

#[tokio::test]
async fn a_stream_that_cannot_be_resumed_fails_its_request_after_the_attempts() {
    let server = serve(
        |rec| match (rec.method.clone(), rec.rpc_method().as_deref()) {
            (Method::POST, Some("slow")) => sse("id: a\nretry: 10\ndata: \n\n"),
            (Method::GET, _) => status(StatusCode::SERVICE_UNAVAILABLE),
            _ => status(StatusCode::ACCEPTED),
        },
    )
    .await;
    let mut reconnect = Reconnect::default();
    reconnect.initial_delay = Duration::from_millis(10);
    reconnect.max_attempts = 2;
    let transport = StreamableHttpClientTransport::builder(&server.url)
        .reconnect(reconnect)
        .build()
        .unwrap();
    let client = Client::new(transport);
    let err = client.call("slow", json!({})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "peer returned an error: the sse stream ended before the response arrived \
         (too many failed reconnection attempts) (-32603)"
    );
    // The first attempt and two retries, each with the last event id.
    let gets = server.requests(Method::GET);
    assert_eq!(gets.len(), 3);
    assert!(gets.iter().all(|g| g.header("last-event-id") == Some("a")));
    client.close().await;
}

#[tokio::test]
async fn the_get_stream_is_reopened_with_the_last_event_id() {
    let server = serve(|rec| match (rec.method.clone(), rec.rpc_method().as_deref()) {
        (Method::POST, Some("initialize")) => json(StatusCode::OK, init_result(rec, "2025-11-25")),
        (Method::GET, _) => {
            let n = match rec.header("last-event-id") {
                None => 1,
                Some("g1") => 2,
                Some(_) => return sse_open(""),
            };
            let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"n": n}});
            sse(format!("id: g{n}\nretry: 20\n{}", event(&note)))
        }
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let mut client = Client::connect(&server);
    client.initialize().await;
    for n in [1, 2] {
        let note = client.next_notification().await;
        assert_eq!(note.params::<Value>().unwrap(), json!({"n": n}));
    }
    let gets = server.requests(Method::GET);
    assert_eq!(gets[1].header("last-event-id"), Some("g1"));
    client.close().await;
}

#[tokio::test]
async fn a_post_stream_answered_410_fails_its_request_at_once_saying_why() {
    let gone_with_reason = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000,
        "message": "Gone: the server instance serving this stream stopped"}});
    // The server dropped the events after `a` (a bare 410), or says why in its body.
    for (body, why) in [
        (
            None,
            "the server no longer has the events to resume from (http 410)",
        ),
        (
            Some(gone_with_reason),
            "Gone: the server instance serving this stream stopped (http 410)",
        ),
    ] {
        let server = serve(
            move |rec| match (rec.method.clone(), rec.rpc_method().as_deref()) {
                (Method::POST, Some("slow")) => sse("id: a\nretry: 10\ndata: \n\n"),
                (Method::GET, _) => match &body {
                    None => status(StatusCode::GONE),
                    Some(body) => json(StatusCode::GONE, body.clone()),
                },
                _ => status(StatusCode::ACCEPTED),
            },
        )
        .await;
        let client = Client::connect(&server);
        let err = client.call("slow", json!({})).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "peer returned an error: the sse stream ended before the response arrived \
                 ({why}) (-32603)"
            )
        );
        // Asked once, not again with backoff.
        assert_eq!(server.requests(Method::GET).len(), 1);
        client.close().await;
    }
}

#[tokio::test]
async fn the_get_stream_starts_afresh_after_a_410() {
    let server = serve(|rec| match (rec.method.clone(), rec.rpc_method().as_deref()) {
        (Method::POST, Some("initialize")) => json(StatusCode::OK, init_result(rec, "2025-11-25")),
        (Method::GET, _) => match rec.header("last-event-id") {
            Some("g1") => status(StatusCode::GONE),
            Some(_) => sse_open(""),
            // Each fresh stream says hello and names its event `g1`.
            None => {
                let note =
                    json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"n": 1}});
                sse(format!("id: g1\nretry: 20\n{}", event(&note)))
            }
        },
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let mut client = Client::connect(&server);
    client.initialize().await;
    let first = client.next_notification().await;
    assert_eq!(first.params::<Value>().unwrap(), json!({"n": 1}));
    // After the 410 the stream is opened again without `Last-Event-ID`.
    let again = client.next_notification().await;
    assert_eq!(again.params::<Value>().unwrap(), json!({"n": 1}));
    let gets = server.requests(Method::GET);
    assert_eq!(gets[1].header("last-event-id"), Some("g1"));
    assert_eq!(gets[2].header("last-event-id"), None);
    client.close().await;
}
