//! Stateless and hybrid modes, and the legacy HTTP+SSE transport.

use std::sync::atomic::Ordering;

use mcp_transport_http::server::{SessionMode, StreamableHttpService};
use serde_json::{Value, json};

use super::{Sse, initialize_body, request, start};

#[tokio::test]
async fn stateless_posts_are_independent() {
    let server = start(StreamableHttpService::builder().session_mode(SessionMode::Stateless)).await;
    let res = server
        .post(None, initialize_body("2025-11-25"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers().get("mcp-session-id").is_none());
    let res = server
        .post(None, request(1, "echo", json!({"n": 1})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body: Value = super::json_body(res).await;
    assert_eq!(body["result"], json!({"n": 1}));
    // Streams work too, per POST.
    let res = server
        .post(
            None,
            request(2, "progress", json!({"_meta": {"progressToken": 1}})),
        )
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    assert_eq!(
        sse.next().await.unwrap().json()["method"],
        "notifications/progress"
    );
    assert_eq!(
        sse.next().await.unwrap().json()["method"],
        "notifications/progress"
    );
    assert_eq!(sse.next().await.unwrap().json()["id"], 2);
    assert!(sse.next().await.is_none());
    // Notifications are acknowledged without a session.
    let res = server
        .post(
            None,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    assert_eq!(server.sessions_started.load(Ordering::SeqCst), 3);
    // Each stateless session ends once it has answered.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(server.sessions_finished.load(Ordering::SeqCst), 3);
    assert_eq!(server.service.session_count(), 0);
    // No GET stream, no DELETE.
    let res = server
        .client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);
    let res = server.client.delete(&server.url).send().await.unwrap();
    assert_eq!(res.status(), 405);
}

#[tokio::test]
async fn hybrid_serves_sessions_and_sessionless_posts() {
    let server = start(StreamableHttpService::builder().session_mode(SessionMode::Hybrid)).await;
    let id = server.initialize().await;
    let res = server
        .post(Some(&id), request(1, "echo", json!([1])))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let res = server
        .post(None, request(2, "echo", json!([2])))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(super::json_body(res).await["result"], json!([2]));
    assert_eq!(server.service.session_count(), 1);
}

#[tokio::test]
async fn legacy_sse_endpoint_then_post() {
    let server = start(StreamableHttpService::builder().legacy_sse("/sse", "/messages")).await;
    let res = server
        .client
        .get(format!("{}/sse", server.base))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut sse = Sse::new(res);
    let endpoint = sse.next().await.unwrap();
    assert_eq!(endpoint.event.as_deref(), Some("endpoint"));
    assert!(
        endpoint.data.starts_with("/messages?sessionId="),
        "{}",
        endpoint.data
    );
    let post_url = format!("{}{}", server.base, endpoint.data);

    for (id, body) in [
        (0, initialize_body("2024-11-05")),
        (1, request(1, "echo", json!({"legacy": true}))),
    ] {
        let res = server
            .client
            .post(&post_url)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 202);
        let ev = sse.next().await.unwrap();
        assert_eq!(ev.event.as_deref(), Some("message"));
        assert_eq!(ev.json()["id"], id);
    }
    assert_eq!(server.service.session_count(), 1);
    // Closing the SSE stream ends the session.
    drop(sse);
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(server.service.session_count(), 0);
    let res = server
        .client
        .post(&post_url)
        .header("content-type", "application/json")
        .body(request(2, "echo", json!({})).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
}
