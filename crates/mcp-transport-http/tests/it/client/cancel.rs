//! `recv` driven directly, cancelled over and over while SSE events trickle in.

use std::time::Duration;

use axum::http::StatusCode;
use futures::StreamExt;
use mcp_jsonrpc::{Message, Request, Transport};
use mcp_transport_http::client::StreamableHttpClientTransport;
use serde_json::json;

use super::support::*;

#[tokio::test]
async fn recv_is_cancel_safe() {
    let server = serve(|rec| match rec.rpc_method().as_deref() {
        Some("count") => {
            let id = rec.rpc_id();
            let events = futures::stream::iter(0..20).then(move |i| {
                let id = id.clone();
                async move {
                    tokio::time::sleep(Duration::from_millis(3)).await;
                    // Split each event over two chunks, to cut a recv in mid-event.
                    let msg = if i < 19 {
                        json!({"jsonrpc": "2.0", "method": "tick", "params": {"i": i}})
                    } else {
                        json!({"jsonrpc": "2.0", "id": id, "result": "done"})
                    };
                    format!("id: {i}\ndata: {msg}\n\n")
                }
            });
            let chunks = events.flat_map(|e| {
                let (a, b) = e.split_at(e.len() / 2);
                futures::stream::iter([a.to_owned(), b.to_owned()])
            });
            sse_stream(chunks)
        }
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let mut transport = StreamableHttpClientTransport::new(&server.url).unwrap();
    transport
        .send(Message::Request(Request::new(7, "count", None)))
        .await
        .unwrap();
    let mut ticks = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        assert!(tokio::time::Instant::now() < deadline, "timed out");
        // Most of these time out, dropping the recv future mid-way.
        let Ok(msg) = tokio::time::timeout(Duration::from_micros(500), transport.recv()).await
        else {
            continue;
        };
        match msg.unwrap().unwrap() {
            Message::Notification(n) => {
                ticks.push(
                    n.params::<serde_json::Value>().unwrap()["i"]
                        .as_i64()
                        .unwrap(),
                );
            }
            Message::Response(r) => {
                assert_eq!(r.result.unwrap().get(), "\"done\"");
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(ticks, (0..19).collect::<Vec<_>>());
    transport.close().await.unwrap();
}
