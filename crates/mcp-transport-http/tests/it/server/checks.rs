//! Header checks: protocol version, Origin/Host, Accept, Content-Type, body size.

use mcp_transport_http::server::StreamableHttpService;
use serde_json::json;

use super::{error_body, initialize_body, request, start};

#[tokio::test]
async fn unsupported_protocol_version_is_400() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server
        .post_with(
            Some(&id),
            request(1, "echo", json!({})),
            &[("mcp-protocol-version", "1999-01-01")],
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    error_body(res).await;
    // Absent: accepted (2025-03-26 assumed, or the negotiated revision).
    let res = server
        .client
        .post(&server.url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-session-id", &id)
        .body(request(2, "echo", json!({})).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn dns_rebinding_protection() {
    let server = start(StreamableHttpService::builder()).await;
    let port = server
        .url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    // The conformance probe: evil Host and Origin together.
    let res = server
        .post(None, initialize_body("2025-11-25"))
        .header("host", "evil.example.com")
        .header("origin", "http://evil.example.com")
        .header("mcp-method", "initialize")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    error_body(res).await;
    // Each alone.
    let res = server
        .post(None, initialize_body("2025-11-25"))
        .header("origin", "http://evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    let res = server
        .post(None, initialize_body("2025-11-25"))
        .header("host", format!("evil.example.com:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    // Localhost forms are fine.
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
    ] {
        let res = server
            .post(None, initialize_body("2025-11-25"))
            .header("host", &host)
            .header("origin", format!("http://{host}"))
            .header("mcp-method", "initialize")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{host}");
    }
}

#[tokio::test]
async fn custom_allow_lists() {
    let server = start(
        StreamableHttpService::builder()
            .allowed_hosts(["mcp.example"])
            .allowed_origins(["https://app.example"]),
    )
    .await;
    let res = server
        .post(None, initialize_body("2025-11-25"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403, "127.0.0.1 is no longer allowed");
    let res = server
        .post(None, initialize_body("2025-11-25"))
        .header("host", "mcp.example")
        .header("origin", "https://app.example")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn body_too_large_is_413() {
    let server = start(StreamableHttpService::builder().max_body_size(1024)).await;
    let id = server.initialize().await;
    let big = "x".repeat(2048);
    let res = server
        .post(Some(&id), request(1, "echo", json!({"big": big})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413);
    error_body(res).await;
    // Also when streamed without a Content-Length.
    let chunks: Vec<Result<String, std::io::Error>> =
        vec![Ok(
            request(1, "echo", json!({"big": "x".repeat(2048)})).to_string()
        )];
    let res = server
        .post(Some(&id), json!(null))
        .body(reqwest::Body::wrap_stream(futures::stream::iter(chunks)))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413);
}

#[tokio::test]
async fn wrong_accept_is_406_and_wrong_content_type_is_415() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    for accept in ["application/json", "text/event-stream", "text/html"] {
        let res = server
            .post_with(
                Some(&id),
                request(1, "echo", json!({})),
                &[("accept", accept)],
            )
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 406, "{accept}");
        error_body(res).await;
    }
    let res = server
        .client
        .get(&server.url)
        .header("accept", "application/json")
        .header("mcp-session-id", &id)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 406);
    let res = server
        .post_with(
            Some(&id),
            request(1, "echo", json!({})),
            &[("content-type", "text/plain")],
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 415);
    let res = server.client.put(&server.url).send().await.unwrap();
    assert_eq!(res.status(), 405);
}
