//! HTTP 404 on a request with a session id: a new session, and the old requests fail.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::http::{Method, StatusCode};
use serde_json::json;

use super::support::*;

#[tokio::test]
async fn session_expiry_fails_pending_requests_and_starts_a_new_session() {
    let inits = Arc::new(AtomicUsize::new(0));
    let expired = Arc::new(AtomicBool::new(false));
    let server = {
        let (inits, expired) = (inits.clone(), expired.clone());
        serve(move |rec| {
            let session = rec.header("mcp-session-id").map(str::to_owned);
            match (rec.method.clone(), rec.rpc_method().as_deref()) {
                (Method::POST, Some("initialize")) => {
                    let n = inits.fetch_add(1, Ordering::SeqCst) + 1;
                    let mut resp = json(StatusCode::OK, init_result(rec, "2025-11-25"));
                    resp.headers_mut()
                        .insert("mcp-session-id", format!("s{n}").parse().unwrap());
                    resp
                }
                // No GET stream: the 404 is found by the next POST.
                (Method::GET, _) => status(StatusCode::METHOD_NOT_ALLOWED),
                _ if session.as_deref() == Some("s1") && expired.load(Ordering::SeqCst) => {
                    status(StatusCode::NOT_FOUND)
                }
                (Method::POST, Some("slow")) => {
                    // Never answered: the session dies while it is pending.
                    expired.store(true, Ordering::SeqCst);
                    sse_open("id: x1\ndata: \n\n")
                }
                (Method::POST, Some("ping")) => json(StatusCode::OK, result(rec, json!({}))),
                _ => status(StatusCode::ACCEPTED),
            }
        })
        .await
    };
    let client = Client::connect(&server);
    client.initialize().await;

    let slow = {
        let peer = client.peer.clone();
        tokio::spawn(async move {
            let params = serde_json::value::to_raw_value(&json!({})).unwrap();
            peer.request("slow", Some(params)).await
        })
    };
    server
        .wait_for("the slow request", |log| {
            log.iter()
                .any(|r| r.rpc_method().as_deref() == Some("slow"))
        })
        .await;
    let expected =
        "peer returned an error: session expired; the request was not completed (-32603)";
    let err = client.call("ping", json!({})).await.unwrap_err();
    assert_eq!(err.to_string(), expected);
    let err = tokio::time::timeout(Duration::from_secs(10), slow)
        .await
        .expect("the pending request fails, it does not hang")
        .unwrap()
        .unwrap_err();
    assert_eq!(err.to_string(), expected);

    // A new session was started: the cached initialize, without a session id, then
    // initialized with the new one; later requests use it.
    let init_posts = server.posts_of("initialize");
    assert_eq!(init_posts.len(), 2);
    assert_eq!(init_posts[1].header("mcp-session-id"), None);
    assert_eq!(init_posts[1].json(), init_posts[0].json());
    let initialized = server.posts_of("notifications/initialized");
    assert_eq!(initialized.len(), 2);
    assert_eq!(initialized[1].header("mcp-session-id"), Some("s2"));
    assert_eq!(client.call("ping", json!({})).await.unwrap(), json!({}));
    let last_ping = server.posts_of("ping").pop().unwrap();
    assert_eq!(last_ping.header("mcp-session-id"), Some("s2"));
    assert_eq!(last_ping.header("mcp-protocol-version"), Some("2025-11-25"));
    client.close().await;
}

#[tokio::test]
async fn a_404_on_the_get_stream_also_starts_a_new_session() {
    let inits = Arc::new(AtomicUsize::new(0));
    let expired = Arc::new(AtomicBool::new(false));
    let server = {
        let (inits, expired) = (inits.clone(), expired.clone());
        serve(move |rec| {
            let session = rec.header("mcp-session-id").map(str::to_owned);
            match (rec.method.clone(), rec.rpc_method().as_deref()) {
                (Method::POST, Some("initialize")) => {
                    let n = inits.fetch_add(1, Ordering::SeqCst) + 1;
                    let mut resp = json(StatusCode::OK, init_result(rec, "2025-11-25"));
                    resp.headers_mut()
                        .insert("mcp-session-id", format!("s{n}").parse().unwrap());
                    resp
                }
                _ if session.as_deref() == Some("s1") && expired.load(Ordering::SeqCst) => {
                    status(StatusCode::NOT_FOUND)
                }
                (Method::POST, Some("slow")) => {
                    expired.store(true, Ordering::SeqCst);
                    sse_open("id: x1\ndata: \n\n")
                }
                // The first GET stream ends at once (retry 20 ms); reopening it finds the
                // session gone.
                (Method::GET, _) if session.as_deref() == Some("s1") => {
                    sse("id: g1\nretry: 20\ndata: \n\n")
                }
                (Method::GET, _) => sse_open("id: g2\ndata: \n\n"),
                _ => status(StatusCode::ACCEPTED),
            }
        })
        .await
    };
    let client = Client::connect(&server);
    client.initialize().await;
    let err = client.call("slow", json!({})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "peer returned an error: session expired; the request was not completed (-32603)"
    );
    server
        .wait_for("the get stream of the new session", |log| {
            log.iter()
                .any(|r| r.method == Method::GET && r.header("mcp-session-id") == Some("s2"))
        })
        .await;
    assert_eq!(inits.load(Ordering::SeqCst), 2);
    client.close().await;
    let deletes = server.requests(Method::DELETE);
    assert_eq!(deletes.len(), 1);
    assert_eq!(deletes[0].header("mcp-session-id"), Some("s2"));
}
