//! A server that asks the client something on the GET stream and answers the client's POST
//! only once it has the client's answer: the transport must not hold the connection's sends
//! behind the open POST.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcp_jsonrpc::{Config, Connection, ErrorObject, Handler, Request, RequestContext};
use mcp_transport_http::client::StreamableHttpClientTransport;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::support::{event, json};

/// The scripted server's state.
#[derive(Default)]
struct Script {
    /// Events for the GET stream (the receiver is taken by the GET).
    get_tx: Option<mpsc::UnboundedSender<String>>,
    get_rx: Option<mpsc::UnboundedReceiver<String>>,
    /// Completed with the client's answer to the server's request.
    answer: Option<oneshot::Sender<Value>>,
}

async fn endpoint(
    script: Arc<Mutex<Script>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let session_ok = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) == Some("s-1");
    if method == Method::GET {
        let Some(rx) = script.lock().unwrap().get_rx.take() else {
            return StatusCode::CONFLICT.into_response();
        };
        let events = futures::stream::unfold(rx, |mut rx| async move {
            let text = rx.recv().await?;
            Some((Ok::<_, std::convert::Infallible>(text), rx))
        });
        return (
            [(header::CONTENT_TYPE, "text/event-stream")],
            Body::from_stream(events),
        )
            .into_response();
    }
    if method != Method::POST {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let msg: Value = serde_json::from_slice(&body).unwrap();
    let rec_id = msg["id"].clone();
    match msg["method"].as_str() {
        Some("initialize") => {
            let result = json!({"jsonrpc": "2.0", "id": rec_id, "result": init_result_body()});
            let mut res = json(StatusCode::OK, result);
            res.headers_mut()
                .insert("mcp-session-id", "s-1".parse().unwrap());
            res
        }
        // Every later POST must carry the session id of the initialize response.
        _ if !session_ok => StatusCode::BAD_REQUEST.into_response(),
        Some("notifications/initialized") => StatusCode::ACCEPTED.into_response(),
        Some("tools/call") => {
            // Ask the client first, on the GET stream; answer this POST (plain JSON) only
            // once the client has answered.
            let (tx, rx) = oneshot::channel();
            let get_tx = {
                let mut st = script.lock().unwrap();
                st.answer = Some(tx);
                st.get_tx.clone().unwrap()
            };
            let ask = json!({"jsonrpc": "2.0", "id": "srv-1", "method": "sampling/createMessage",
                "params": {"messages": [], "maxTokens": 1}});
            get_tx.send(event(&ask)).unwrap();
            let answer = rx.await.unwrap();
            json(
                StatusCode::OK,
                json!({"jsonrpc": "2.0", "id": rec_id, "result": {"client said": answer}}),
            )
        }
        Some("ping") => json(
            StatusCode::OK,
            json!({"jsonrpc": "2.0", "id": rec_id, "result": {}}),
        ),
        None if msg["id"] == "srv-1" => {
            if let Some(tx) = script.lock().unwrap().answer.take() {
                let _ = tx.send(msg["result"].clone());
            }
            StatusCode::ACCEPTED.into_response()
        }
        _ => StatusCode::ACCEPTED.into_response(),
    }
}

fn init_result_body() -> Value {
    json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "serverInfo": {"name": "scripted", "version": "0.0.0"}
    })
}

/// Answers the server's sampling request.
struct Sampler;

impl Handler for Sampler {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        assert_eq!(request.method, "sampling/createMessage");
        mcp_jsonrpc::to_raw_value(&json!({"role": "assistant", "model": "m",
            "content": {"type": "text", "text": "hello"}}))
    }
}

#[tokio::test]
async fn a_pending_post_does_not_block_the_answer_to_a_server_request() {
    let (get_tx, get_rx) = mpsc::unbounded_channel();
    let script = Arc::new(Mutex::new(Script {
        get_tx: Some(get_tx),
        get_rx: Some(get_rx),
        answer: None,
    }));
    let app = Router::new()
        .fallback(move |method, headers, body| endpoint(script.clone(), method, headers, body));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let transport = StreamableHttpClientTransport::new(&url).unwrap();
    let (peer, connection) = Connection::new(transport, Sampler, Config::default());
    let run = tokio::spawn(connection.run());
    let init = serde_json::value::to_raw_value(&json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"sampling": {}},
        "clientInfo": {"name": "test", "version": "0.0.0"}
    }))
    .unwrap();
    peer.request("initialize", Some(init)).await.unwrap();
    peer.notify("notifications/initialized", None)
        .await
        .unwrap();

    let call = serde_json::value::to_raw_value(&json!({"name": "ask"})).unwrap();
    let result = tokio::time::timeout(
        Duration::from_secs(10),
        peer.request("tools/call", Some(call)),
    )
    .await
    .expect("the client answered the server's request while its POST was pending")
    .unwrap();
    let result: Value = serde_json::from_str(result.get()).unwrap();
    assert_eq!(result["client said"]["content"]["text"], "hello");

    // Other requests still flow, each on its own POST.
    let pings = futures::future::join_all((0..3).map(|_| peer.request("ping", None)));
    let pings = tokio::time::timeout(Duration::from_secs(10), pings)
        .await
        .unwrap();
    assert!(
        pings
            .iter()
            .all(|p| p.as_ref().is_ok_and(|r| r.get() == "{}"))
    );
    peer.close();
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}
