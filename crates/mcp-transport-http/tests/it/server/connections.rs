//! Hostile connections: slowloris headers, idle keep-alive connections, the connection limit,
//! stalled bodies, and a second `Origin` header.

use std::net::SocketAddr;
use std::time::Duration;

use mcp_transport_http::server::StreamableHttpService;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{TestServer, error_body, initialize_body, request, start};

/// A failure guard, never the thing measured: generous for a loaded 2-core machine.
const GUARD: Duration = Duration::from_secs(20);

fn addr(server: &TestServer) -> SocketAddr {
    server.base.trim_start_matches("http://").parse().unwrap()
}

/// Reads until the server closes the connection; returns what it sent. Panics if it is
/// still open after [`GUARD`].
async fn read_until_closed(tcp: &mut TcpStream) -> String {
    let mut out = Vec::new();
    tokio::time::timeout(GUARD, async {
        let mut buf = [0u8; 4096];
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .expect("the server kept the connection open");
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn a_slowloris_client_is_disconnected_after_the_header_read_timeout() {
    let server = start(
        StreamableHttpService::builder().header_read_timeout(Some(Duration::from_millis(300))),
    )
    .await;
    let mut slow = TcpStream::connect(addr(&server)).await.unwrap();
    // Half a request head, then nothing.
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: appl")
        .await
        .unwrap();
    read_until_closed(&mut slow).await;
    // Others are served meanwhile and after.
    server.initialize().await;
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_header_read_timeout() {
    let server = start(
        StreamableHttpService::builder().header_read_timeout(Some(Duration::from_millis(300))),
    )
    .await;
    let mut idle = TcpStream::connect(addr(&server)).await.unwrap();
    // Complete requests (405: PUT is not served), then the connection sits idle. Each
    // request head's timer reuses the one before it (`ConnectionTimer`), and the last one
    // still fires.
    let put = "PUT /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n";
    for _ in 0..3 {
        idle.write_all(put.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let answered = read_until_closed(&mut idle).await;
    assert_eq!(answered.matches("HTTP/1.1 405").count(), 3, "{answered}");
}

/// `run_until`: once told to stop, the runner stops accepting, closes its connections (an
/// idle keep-alive one after its answers, one that never sent a request) and returns; the
/// signal reaches every connection open at the time, however many came and went before.
#[tokio::test]
async fn run_until_closes_every_open_connection_and_returns() {
    let server = start(StreamableHttpService::builder()).await;
    let runner = server.service.clone().bind_localhost(0).await.unwrap();
    let addr = runner.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(runner.run_until(async {
        let _ = stopped.await;
    }));
    let put = "PUT /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n";
    // Connections that come and go before the stop leave nothing behind to signal.
    for _ in 0..3 {
        let mut gone = TcpStream::connect(addr).await.unwrap();
        gone.write_all(put.as_bytes()).await.unwrap();
        gone.shutdown().await.unwrap();
        assert!(
            read_until_closed(&mut gone)
                .await
                .starts_with("HTTP/1.1 405")
        );
    }
    // Connected first: the runner accepts in order, so once `answered` has its answers,
    // `silent` has a connection task too (and is not just in the listener's backlog).
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let mut answered = TcpStream::connect(addr).await.unwrap();
    for _ in 0..2 {
        answered.write_all(put.as_bytes()).await.unwrap();
    }
    // Both answers are in before the stop (so the connection is idle when it comes).
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while String::from_utf8_lossy(&seen)
        .matches("HTTP/1.1 405")
        .count()
        < 2
    {
        let n = tokio::time::timeout(GUARD, answered.read(&mut buf))
            .await
            .expect("no answer")
            .unwrap();
        assert_ne!(n, 0, "closed before answering");
        seen.extend_from_slice(&buf[..n]);
    }
    stop.send(()).unwrap();
    assert_eq!(read_until_closed(&mut answered).await, "");
    assert_eq!(read_until_closed(&mut silent).await, "");
    tokio::time::timeout(GUARD, running)
        .await
        .expect("run_until did not return")
        .unwrap()
        .unwrap();
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "still accepting after the stop"
    );
}

#[tokio::test]
async fn connections_over_the_limit_wait_until_one_closes() {
    let server = start(StreamableHttpService::builder().max_connections(2)).await;
    let first = TcpStream::connect(addr(&server)).await.unwrap();
    let second = TcpStream::connect(addr(&server)).await.unwrap();
    // Both idle connections are held: a third client waits in the backlog...
    let third = tokio::spawn({
        let req = server.post(None, initialize_body("2025-11-25"));
        async move { req.send().await.map(|res| res.status()) }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!third.is_finished(), "served beyond the connection limit");
    // ...until one of them goes away.
    drop(first);
    let status = tokio::time::timeout(GUARD, third)
        .await
        .expect("still waiting after a connection closed")
        .unwrap()
        .unwrap();
    assert_eq!(status, 200);
    drop(second);
}

#[tokio::test]
async fn a_stalled_body_is_answered_408() {
    let server =
        start(StreamableHttpService::builder().body_read_timeout(Some(Duration::from_millis(300))))
            .await;
    let mut tcp = TcpStream::connect(addr(&server)).await.unwrap();
    let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n";
    tcp.write_all(head.as_bytes()).await.unwrap();
    // Ten bytes of the hundred announced, then nothing.
    tcp.write_all(b"{\"jsonrpc\"").await.unwrap();
    let answer = read_until_closed(&mut tcp).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("Request Timeout"), "{answer}");
}

/// A body in several chunks (written apart, chunked encoding) is joined; one in a single
/// chunk is taken as it is.
#[tokio::test]
async fn a_body_in_several_chunks_is_read_whole() {
    let server = start(StreamableHttpService::builder()).await;
    let body = initialize_body("2025-11-25").to_string();
    let (a, rest) = body.split_at(7);
    let (b, c) = rest.split_at(rest.len() / 2);
    let mut tcp = TcpStream::connect(addr(&server)).await.unwrap();
    let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\
                Connection: close\r\n\r\n";
    tcp.write_all(head.as_bytes()).await.unwrap();
    for part in [a, b, c] {
        let chunk = format!("{:x}\r\n{part}\r\n", part.len());
        tcp.write_all(chunk.as_bytes()).await.unwrap();
        tcp.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tcp.write_all(b"0\r\n\r\n").await.unwrap();
    let answer = read_until_closed(&mut tcp).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains("\"protocolVersion\":\"2025-11-25\""),
        "{answer}"
    );
}

#[tokio::test]
async fn every_origin_header_is_checked() {
    let server = start(StreamableHttpService::builder()).await;
    for origins in [
        ["http://localhost", "http://evil.example.com"],
        ["http://evil.example.com", "http://localhost"],
    ] {
        let res = server
            .post(None, initialize_body("2025-11-25"))
            .header("origin", origins[0])
            .header("origin", origins[1])
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 403, "{origins:?}");
        error_body(res).await;
    }
    // Two allowed ones pass.
    let id = server.initialize().await;
    let res = server
        .post(Some(&id), request(1, "echo", json!({})))
        .header("origin", "http://localhost:1")
        .header("origin", "http://127.0.0.1")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

/// The runner answers a POST to the MCP path without axum's routing while the router is the
/// service's own: the answers are those the router gives, for good and bad requests alike,
/// and once `map_router` changes the router, its layers see every POST.
#[tokio::test]
async fn posts_are_answered_the_same_without_the_router_and_layers_still_see_them() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let direct = start(StreamableHttpService::builder()).await;
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let routed = super::start_mapped(StreamableHttpService::builder(), move |router| {
        router.layer(axum::middleware::map_request(
            move |req: axum::extract::Request| {
                counter.fetch_add(1, Ordering::SeqCst);
                async move { req }
            },
        ))
    })
    .await;

    async fn answers(server: &TestServer) -> Vec<(u16, String)> {
        let mut out = Vec::new();
        let id = server.initialize().await;
        let cases = [
            server.post(Some(&id), request(1, "echo", json!({"x": 1}))),
            server.post(Some("no-such-session"), request(2, "echo", json!({}))),
            server.post_with(
                Some(&id),
                json!({"x": 1}),
                &[("content-type", "text/plain")],
            ),
            server.post_with(
                Some(&id),
                request(3, "echo", json!({})),
                &[("host", "evil.example")],
            ),
            server
                .client
                .post(format!("{}/elsewhere", server.base))
                .body("{}"),
            server.client.post(&server.url).body("not json"),
        ];
        for case in cases {
            let res = case.send().await.unwrap();
            let status = res.status().as_u16();
            let mut body = res.text().await.unwrap();
            // Session ids differ between the servers; nothing else does.
            body = body.replace(&id, "<session>");
            out.push((status, body));
        }
        out
    }

    let (d, r) = (answers(&direct).await, answers(&routed).await);
    assert_eq!(d, r);
    assert_eq!(
        d.iter().map(|(status, _)| *status).collect::<Vec<_>>(),
        [200, 404, 415, 403, 404, 415]
    );
    // The initialize POST, `notifications/initialized` and the six cases.
    assert_eq!(seen.load(Ordering::SeqCst), 8);
}
