//! Session lifecycle: ids, 400/404, DELETE, limits, idle expiry.

use std::time::Duration;

use mcp_transport_http::server::StreamableHttpService;
use serde_json::json;

use super::{error_body, initialize_body, request, start};

#[tokio::test]
async fn initialize_assigns_a_secure_visible_ascii_session_id() {
    let server = start(StreamableHttpService::builder()).await;
    let a = server.initialize().await;
    let b = server.initialize().await;
    assert_ne!(a, b);
    for id in [&a, &b] {
        assert!(id.len() >= 32, "{id}: at least 128 bits as hex");
        assert!(id.bytes().all(|c| (0x21..=0x7e).contains(&c)), "{id}");
    }
    assert_eq!(server.service.session_count(), 2);
}

#[tokio::test]
async fn request_without_session_id_is_400() {
    let server = start(StreamableHttpService::builder()).await;
    server.initialize().await;
    let res = server
        .post(None, request(1, "echo", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let body = error_body(res).await;
    assert_eq!(body["id"], serde_json::Value::Null);
    assert_eq!(body["error"]["code"], -32000);
}

#[tokio::test]
async fn unknown_session_is_404() {
    let server = start(StreamableHttpService::builder()).await;
    let res = server
        .post(
            Some("0123456789abcdef0123456789abcdef"),
            request(1, "echo", json!({})),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    assert_eq!(error_body(res).await["error"]["code"], -32001);
    let res = server.get("nope").send().await.unwrap();
    assert_eq!(res.status(), 404);
    let res = server.delete("nope").send().await.unwrap();
    assert_eq!(res.status(), 404);
}

#[tokio::test]
async fn delete_ends_the_session() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server.delete(&id).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let res = server
        .post(Some(&id), request(2, "echo", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let res = server.delete(&id).send().await.unwrap();
    assert_eq!(res.status(), 404);
    assert_eq!(server.service.session_count(), 0);
    // The connection over the session's transport ends too.
    let peer = server.peer(&id);
    tokio::time::timeout(Duration::from_secs(5), peer.closed())
        .await
        .unwrap();
}

#[tokio::test]
async fn session_limit_refuses_new_sessions_with_503() {
    let server = start(StreamableHttpService::builder().max_sessions(1)).await;
    let first = server.initialize().await;
    let res = server
        .post(None, initialize_body("2025-11-25"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 503);
    error_body(res).await;
    server.delete(&first).send().await.unwrap();
    server.initialize().await;
}

#[tokio::test]
async fn idle_sessions_expire() {
    let server =
        start(StreamableHttpService::builder().idle_timeout(Some(Duration::from_millis(200))))
            .await;
    let idle = server.initialize().await;
    let busy = server.initialize().await;
    // An open stream keeps a session alive.
    let stream = server.get(&busy).send().await.unwrap();
    assert_eq!(stream.status(), 200);
    tokio::time::sleep(Duration::from_millis(600)).await;
    let res = server
        .post(Some(&idle), request(1, "echo", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let res = server
        .post(Some(&busy), request(1, "echo", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(server.service.session_count(), 1);
    drop(stream);
}
