//! Scripted HTTP servers on 127.0.0.1:0 and a client connection to drive against them.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use mcp_jsonrpc::{
    Config, Connection, ErrorObject, Handler, Notification, NotificationContext, Peer, Request,
    RequestContext,
};
use mcp_transport_http::client::StreamableHttpClientTransport;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// One request the server received.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub(crate) method: Method,
    pub(crate) uri: Uri,
    pub(crate) headers: HeaderMap,
    pub(crate) body: String,
    pub(crate) at: Instant,
}

impl Recorded {
    /// A header's value, if present.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as JSON (`Null` if it is not JSON).
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The JSON-RPC method of the body, if any.
    pub(crate) fn rpc_method(&self) -> Option<String> {
        self.json()["method"].as_str().map(str::to_owned)
    }

    /// The JSON-RPC id of the body (`Null` if none).
    pub(crate) fn rpc_id(&self) -> Value {
        self.json()["id"].clone()
    }
}

/// A running scripted server.
pub(crate) struct TestServer {
    pub(crate) url: String,
    log: Arc<Mutex<Vec<Recorded>>>,
}

impl TestServer {
    /// Every request received so far.
    pub(crate) fn log(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().clone()
    }

    /// The requests received so far with this HTTP method.
    pub(crate) fn requests(&self, method: Method) -> Vec<Recorded> {
        self.log()
            .into_iter()
            .filter(|r| r.method == method)
            .collect()
    }

    /// The POSTs received so far whose JSON-RPC method is `rpc`.
    pub(crate) fn posts_of(&self, rpc: &str) -> Vec<Recorded> {
        self.requests(Method::POST)
            .into_iter()
            .filter(|r| r.rpc_method().as_deref() == Some(rpc))
            .collect()
    }

    /// Waits (up to 10 s) until `pred` holds for the log.
    pub(crate) async fn wait_for(&self, what: &str, pred: impl Fn(&[Recorded]) -> bool) {
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        loop {
            if pred(&self.log()) {
                return;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
}

/// Serves `script` at `/mcp` (and every other path) on 127.0.0.1:0.
pub(crate) async fn serve(
    script: impl Fn(&Recorded) -> Response + Send + Sync + 'static,
) -> TestServer {
    let log = Arc::new(Mutex::new(Vec::new()));
    let script = Arc::new(script);
    let app = {
        let log = log.clone();
        Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let log = log.clone();
                let script = script.clone();
                async move {
                    let rec = Recorded {
                        method,
                        uri,
                        headers,
                        body: String::from_utf8_lossy(&body).into_owned(),
                        at: Instant::now(),
                    };
                    log.lock().unwrap().push(rec.clone());
                    script(&rec)
                }
            },
        )
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    TestServer {
        url: format!("http://{addr}/mcp"),
        log,
    }
}

/// A JSON response.
pub(crate) fn json(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// A JSON-RPC result for the request `rec`.
pub(crate) fn result(rec: &Recorded, result: Value) -> Value {
    serde_json::json!({ "jsonrpc": "2.0", "id": rec.rpc_id(), "result": result })
}

/// An `initialize` result with this protocol version.
pub(crate) fn init_result(rec: &Recorded, version: &str) -> Value {
    result(
        rec,
        serde_json::json!({
            "protocolVersion": version,
            "capabilities": {},
            "serverInfo": { "name": "scripted", "version": "0.0.0" }
        }),
    )
}

/// An SSE response whose body is `text`, ending after it.
pub(crate) fn sse(text: impl Into<String>) -> Response {
    sse_stream(futures::stream::iter([text.into()]))
}

/// An SSE response whose body is `text`, then stays open.
pub(crate) fn sse_open(text: impl Into<String>) -> Response {
    sse_stream(futures::stream::iter([text.into()]).chain(futures::stream::pending()))
}

/// An SSE response with this body stream.
pub(crate) fn sse_stream(chunks: impl Stream<Item = String> + Send + 'static) -> Response {
    let body = Body::from_stream(chunks.map(Ok::<_, Infallible>));
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// One SSE `message` event carrying `msg`.
pub(crate) fn event(msg: &Value) -> String {
    format!("event: message\ndata: {msg}\n\n")
}

/// An empty response with this status.
pub(crate) fn status(status: StatusCode) -> Response {
    status.into_response()
}

/// Records the notifications it gets; answers requests "method not found".
struct Recorder(mpsc::UnboundedSender<Notification>);

impl Handler for Recorder {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        Err(ErrorObject::method_not_found(&request.method))
    }

    async fn handle_notification(&self, notification: Notification, _ctx: NotificationContext) {
        let _ = self.0.send(notification);
    }
}

/// A client connection over a transport, run on a task.
pub(crate) struct Client {
    pub(crate) peer: Peer,
    pub(crate) notifications: mpsc::UnboundedReceiver<Notification>,
    pub(crate) run: JoinHandle<mcp_jsonrpc::Result<()>>,
}

impl Client {
    pub(crate) fn new(transport: StreamableHttpClientTransport) -> Client {
        let (tx, rx) = mpsc::unbounded_channel();
        let (peer, connection) = Connection::new(transport, Recorder(tx), Config::default());
        Client {
            peer,
            notifications: rx,
            run: tokio::spawn(connection.run()),
        }
    }

    /// Connects to `server` with the default options.
    pub(crate) fn connect(server: &TestServer) -> Client {
        Client::new(StreamableHttpClientTransport::new(&server.url).unwrap())
    }

    /// Sends a request and returns its result as JSON.
    pub(crate) async fn call(
        &self,
        method: &'static str,
        params: Value,
    ) -> mcp_jsonrpc::Result<Value> {
        let params = serde_json::value::to_raw_value(&params).unwrap();
        let raw = self.peer.request(method, Some(params)).await?;
        Ok(serde_json::from_str(raw.get()).unwrap())
    }

    /// Runs the `initialize` request and the `initialized` notification.
    pub(crate) async fn initialize(&self) -> Value {
        let result = self
            .call(
                "initialize",
                serde_json::json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": { "name": "test", "version": "0.0.0" }
                }),
            )
            .await
            .expect("initialize");
        self.peer
            .notify("notifications/initialized", None)
            .await
            .expect("initialized");
        result
    }

    /// The next notification (within 10 s).
    pub(crate) async fn next_notification(&mut self) -> Notification {
        tokio::time::timeout(
            std::time::Duration::from_secs(10),
            self.notifications.recv(),
        )
        .await
        .expect("timed out waiting for a notification")
        .expect("connection ended")
    }

    /// Closes the connection and waits for it to end.
    pub(crate) async fn close(self) {
        self.peer.close();
        tokio::time::timeout(std::time::Duration::from_secs(10), self.run)
            .await
            .expect("timed out closing")
            .unwrap()
            .unwrap();
    }
}
