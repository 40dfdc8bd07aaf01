//! Bodies and SSE events larger than `max_message_size`: the request fails at once with a
//! clear error, the transport reads (and holds) little more than the limit, and the
//! connection goes on.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use mcp_jsonrpc::ErrorObject;
use mcp_transport_http::client::StreamableHttpClientTransport;
use serde_json::json;

use super::support::*;

const LIMIT: usize = 1024 * 1024;
/// What the server would send: far more than the limit and than the socket buffers hold, so
/// that a client that stopped at the limit leaves most of it unsent.
const HUGE: usize = 256 * 1024 * 1024;
const CHUNK: usize = 64 * 1024;

/// Counts the bytes a body stream has produced.
#[derive(Clone, Default)]
struct Produced(Arc<AtomicUsize>);

impl Produced {
    fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    /// A body stream of `head`, then `x`s up to `total` bytes (endless with `None`), then
    /// `tail`, produced lazily and counted.
    fn body(
        &self,
        head: String,
        total: Option<usize>,
        tail: &'static str,
    ) -> impl futures::Stream<Item = Result<Bytes, Infallible>> + Send + 'static {
        let count = self.0.clone();
        let filler = Bytes::from(vec![b'x'; CHUNK]);
        let fill = futures::stream::repeat(filler);
        let fill = match total {
            Some(total) => fill.take(total / CHUNK).left_stream(),
            None => fill.right_stream(),
        };
        futures::stream::once(async move { Bytes::from(head) })
            .chain(fill)
            .chain(futures::stream::once(async move { Bytes::from(tail) }))
            .map(move |chunk| {
                count.fetch_add(chunk.len(), Ordering::Relaxed);
                Ok(chunk)
            })
    }
}

fn client(server: &TestServer) -> Client {
    Client::new(
        StreamableHttpClientTransport::builder(&server.url)
            .max_message_size(LIMIT)
            .build()
            .unwrap(),
    )
}

/// The JSON-RPC error of a failed call.
async fn failure(client: &Client, method: &'static str) -> ErrorObject {
    let call = tokio::time::timeout(Duration::from_secs(60), client.call(method, json!({})));
    match call.await.expect("the call hung") {
        Err(mcp_jsonrpc::Error::Rpc(e)) => e,
        other => panic!("expected an error response, got {other:?}"),
    }
}

/// The connection still works: a small request is answered.
async fn still_works(client: &Client) {
    let echoed = client.call("echo", json!({"ok": true})).await.unwrap();
    assert_eq!(echoed, json!({"ok": true}));
}

fn echo(rec: &Recorded) -> Response {
    json(StatusCode::OK, result(rec, rec.json()["params"].clone()))
}

#[tokio::test]
async fn a_json_body_over_the_limit_fails_the_request() {
    let produced = Produced::default();
    let p = produced.clone();
    let server = serve(move |rec| match rec.rpc_method().as_deref() {
        Some("declared" | "chunked") => {
            let head = format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{{"pad":""#,
                rec.rpc_id()
            );
            let body = Body::from_stream(p.body(head.clone(), Some(HUGE), "\"}}"));
            let mut resp = (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response();
            if rec.rpc_method().as_deref() == Some("declared") {
                let len = head.len() + HUGE / CHUNK * CHUNK + 3;
                resp.headers_mut()
                    .insert(header::CONTENT_LENGTH, len.to_string().parse().unwrap());
            }
            resp
        }
        Some("echo") => echo(rec),
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let client = client(&server);

    // With a Content-Length: refused before reading the body.
    let error = failure(&client, "declared").await;
    assert_eq!(
        error.message,
        "the response body (by its content-length) exceeds the limit of 1048576 bytes"
    );
    assert_eq!(error.data, Some(json!({"limit": LIMIT})));
    assert!(produced.get() < HUGE / 4, "{} bytes sent", produced.get());
    still_works(&client).await;

    // Without: read up to the limit, no further.
    let before = produced.get();
    let error = failure(&client, "chunked").await;
    assert_eq!(
        error.message,
        "the response body exceeds the limit of 1048576 bytes"
    );
    let sent = produced.get() - before;
    assert!(sent < HUGE / 4, "{sent} bytes sent");
    still_works(&client).await;
    client.close().await;
}

#[tokio::test]
async fn a_huge_error_body_is_cut_at_the_limit() {
    let produced = Produced::default();
    let p = produced.clone();
    let server = serve(move |rec| match rec.rpc_method().as_deref() {
        Some("fail") => {
            let body = Body::from_stream(p.body("upstream broke: ".into(), Some(HUGE), ""));
            (StatusCode::BAD_GATEWAY, body).into_response()
        }
        Some("echo") => echo(rec),
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let client = client(&server);
    let error = failure(&client, "fail").await;
    assert!(
        error
            .message
            .starts_with("http status 502 Bad Gateway: upstream broke: xxx"),
        "{}",
        &error.message[..100]
    );
    assert!(error.message.len() < 1024, "the error keeps a snippet");
    assert_eq!(error.data, Some(json!({"status": 502})));
    assert!(produced.get() < HUGE / 4, "{} bytes sent", produced.get());
    still_works(&client).await;
    client.close().await;
}

/// An SSE response: a priming event, then one `data:` line of `total` bytes (endless with
/// `None`), then the end of the response.
fn sse_body(produced: &Produced, rec: &Recorded, total: Option<usize>) -> Response {
    let head = format!(
        "id: 1\ndata: \n\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"pad\":\"",
        rec.rpc_id()
    );
    let body = Body::from_stream(produced.body(head, total, "\"}}\n\n"));
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/event-stream")],
        body,
    )
        .into_response()
}

#[tokio::test]
async fn an_sse_event_over_the_limit_fails_the_request_before_the_server_is_done() {
    let produced = Produced::default();
    let p = produced.clone();
    let server = serve(move |rec| match rec.rpc_method().as_deref() {
        Some("big") => sse_body(&p, rec, Some(HUGE)),
        Some("endless") => sse_body(&p, rec, None),
        Some("many-lines") => {
            let head = "id: 1\ndata: \n\n".to_owned();
            let lines = futures::stream::repeat(Bytes::from_static(b"data: 0123456789\n"));
            let count = p.0.clone();
            let body = futures::stream::once(async move { Bytes::from(head) })
                .chain(lines)
                .map(move |chunk| {
                    count.fetch_add(chunk.len(), Ordering::Relaxed);
                    Ok::<_, Infallible>(chunk)
                });
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "text/event-stream")],
                Body::from_stream(body),
            )
                .into_response()
        }
        Some("echo") => echo(rec),
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let client = client(&server);
    for (method, what) in [
        ("big", "an sse line"),
        ("endless", "an sse line"),
        ("many-lines", "an sse event"),
    ] {
        let before = produced.get();
        let error = failure(&client, method).await;
        assert_eq!(
            error.message,
            format!("{what} exceeds the limit of 1048576 bytes"),
            "{method}"
        );
        assert_eq!(error.data, Some(json!({"limit": LIMIT})));
        let sent = produced.get() - before;
        assert!(sent < HUGE / 4, "{method}: {sent} bytes sent");
        // Not resumed: the stream that carried it is dropped.
        assert!(server.requests(axum::http::Method::GET).is_empty());
        still_works(&client).await;
    }
    client.close().await;
}

/// An event just under the default limit (16 MiB) but as large as the connection takes
/// (8 MiB): it arrives whole, and in time (parsing used to take time quadratic in its
/// size).
#[tokio::test]
async fn a_large_event_under_the_limit_arrives() {
    const SIZE: usize = 7 * 1024 * 1024;
    let produced = Produced::default();
    let p = produced.clone();
    let server = serve(move |rec| match rec.rpc_method().as_deref() {
        Some("big") => sse_body(&p, rec, Some(SIZE)),
        _ => status(StatusCode::ACCEPTED),
    })
    .await;
    let client = Client::connect(&server);
    let call = tokio::time::timeout(Duration::from_secs(120), client.call("big", json!({})));
    let result = call
        .await
        .expect("the 7 MiB event took over 120 s")
        .unwrap();
    assert_eq!(result["pad"].as_str().unwrap().len(), SIZE);
    client.close().await;
}
