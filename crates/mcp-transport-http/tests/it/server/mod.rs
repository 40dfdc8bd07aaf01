//! Server tests: a `StreamableHttpService` on 127.0.0.1:0, a plain `mcp_jsonrpc::Connection`
//! as the "server", and reqwest as a raw HTTP client.

mod checks;
mod connection_info;
mod connections;
mod extensions;
mod lifecycle;
mod messages;
mod modern;
mod modes;
mod ownership;
mod scale_out;
mod streams;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_jsonrpc::{
    Config, Connection, ErrorObject, Handler, Peer, Request, RequestContext, to_raw_value,
};
use mcp_transport_http::server::{Builder, RequestStream, SessionHandle, StreamableHttpService};
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// The test "server": a few methods exercising the transport.
struct TestHandler {
    handle: SessionHandle,
    /// Counts `hang` calls dropped before they finished (cancelled).
    dropped: Arc<AtomicUsize>,
}

/// Counts into `.0` when dropped.
struct CountDrop(Arc<AtomicUsize>);

impl Drop for CountDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct Delay {
    ms: u64,
}

impl Handler for TestHandler {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        match &*request.method {
            "initialize" => {
                let params: Value = request.params()?;
                let version = params["protocolVersion"].as_str().unwrap_or("2025-11-25");
                to_raw_value(&json!({
                    "protocolVersion": version,
                    "capabilities": {},
                    "serverInfo": {"name": "test", "version": "1"},
                }))
            }
            "echo" => to_raw_value(&request.params::<Value>()?),
            // Reports progress twice around a delay, then answers.
            "progress" => {
                let delay: Delay = request.params().unwrap_or_default();
                let _ = ctx.report_progress(1.0, Some(2.0), Some("half")).await;
                tokio::time::sleep(Duration::from_millis(delay.ms)).await;
                let _ = ctx.report_progress(2.0, Some(2.0), None).await;
                to_raw_value(&json!({"token": ctx.progress_token().map(ToString::to_string)}))
            }
            // Sends a log notification first (routed by the single-in-flight rule); `log_echo`
            // then answers with its params.
            "log" | "log_echo" => {
                let _ = ctx
                    .peer()
                    .notify(
                        "notifications/message",
                        Some(to_raw_value(&json!({"level": "info", "data": "hi"}))?),
                    )
                    .await;
                if request.method == "log_echo" {
                    return to_raw_value(&request.params::<Value>()?);
                }
                to_raw_value(&"logged")
            }
            // Closes its own stream mid-call, then reports progress and answers.
            "reconnect" => {
                assert!(self.handle.close_request_stream(ctx.id()).await);
                tokio::time::sleep(Duration::from_millis(100)).await;
                let _ = ctx.report_progress(1.0, None, Some("after close")).await;
                to_raw_value(&"resumed")
            }
            // Like `reconnect`, through the `RequestStream` the transport attached.
            "poll" => {
                let stream = ctx
                    .extensions()
                    .get::<RequestStream>()
                    .ok_or_else(|| ErrorObject::internal_error("no RequestStream"))?;
                assert_eq!(stream.request_id(), ctx.id());
                assert!(stream.close().await);
                tokio::time::sleep(Duration::from_millis(100)).await;
                to_raw_value(&"polled")
            }
            // Asks the client (a server-to-client request) and returns its answer.
            "ask" => {
                let answer = ctx
                    .peer()
                    .request("ping", None)
                    .await
                    .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
                to_raw_value(&json!({"client said": answer}))
            }
            // What the transport attached for a 2026-07-28 request or a stateless POST.
            "attached" | "tools/call" => {
                let params = ctx.extensions().get::<mcp_types::McpParamHeaders>();
                let version = ctx.extensions().get::<mcp_types::ProtocolVersion>();
                to_raw_value(&json!({
                    "region": params.and_then(|p| p.get("region")),
                    "has_params": params.is_some(),
                    "version": version.map(|v| v.as_str().to_owned()),
                }))
            }
            // Fails with the code it is given.
            "fail" => {
                let code = request.params::<Value>()?["code"]
                    .as_i64()
                    .unwrap_or(-32603);
                Err(ErrorObject::new(
                    i32::try_from(code).unwrap_or(-32603),
                    "failed",
                ))
            }
            // Never answers; counts being dropped (cancelled). With `notify`, first sends a
            // notification, which makes the answer an SSE stream.
            "hang" => {
                let _guard = CountDrop(self.dropped.clone());
                if request.params::<Value>()?["notify"] == json!(true) {
                    let _ = ctx
                        .peer()
                        .notify(
                            "notifications/message",
                            Some(to_raw_value(&json!({"level": "info", "data": "hanging"}))?),
                        )
                        .await;
                }
                std::future::pending::<()>().await;
                to_raw_value(&"unreachable")
            }
            other => Err(ErrorObject::method_not_found(other)),
        }
    }
}

/// A running test server.
struct TestServer {
    url: String,
    base: String,
    client: reqwest::Client,
    /// Each session's peer, by session id (to send server-initiated messages).
    peers: Arc<Mutex<HashMap<String, Peer>>>,
    /// How many sessions the factory was asked to run.
    sessions_started: Arc<AtomicUsize>,
    /// How many of their futures have finished.
    sessions_finished: Arc<AtomicUsize>,
    /// How many `hang` calls were dropped.
    dropped: Arc<AtomicUsize>,
    service: StreamableHttpService,
}

/// A change to the router served (`HttpServer::map_router`).
type MapRouter = Box<dyn FnOnce(axum::Router) -> axum::Router>;

/// A server on the service's own router: its POSTs take the runner's direct path.
async fn start(builder: Builder) -> TestServer {
    start_with(builder, None).await
}

/// Like [`start`], with `map` applied to the router served (to put a layer in front).
async fn start_mapped(
    builder: Builder,
    map: impl FnOnce(axum::Router) -> axum::Router + 'static,
) -> TestServer {
    start_with(builder, Some(Box::new(map))).await
}

async fn start_with(builder: Builder, map: Option<MapRouter>) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (server, running) = start_on(listener, |_| builder, map);
    drop(running);
    server
}

/// Like [`start_with`], on `listener`, with the builder made from the server's URL; also
/// returns the task serving connections (abort it and the instance is gone: connecting to it
/// fails, as when its process died).
fn start_on(
    listener: tokio::net::TcpListener,
    builder: impl FnOnce(&str) -> Builder,
    map: Option<MapRouter>,
) -> (TestServer, tokio::task::JoinHandle<()>) {
    let addr = listener.local_addr().unwrap();
    let url = format!("http://{addr}/mcp");
    let builder = builder(&url);
    let peers: Arc<Mutex<HashMap<String, Peer>>> = Arc::default();
    let started = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicUsize::new(0));
    let dropped = Arc::new(AtomicUsize::new(0));
    let (p, s, f, d) = (
        peers.clone(),
        started.clone(),
        finished.clone(),
        dropped.clone(),
    );
    let service = builder.build(move |transport, info| {
        s.fetch_add(1, Ordering::SeqCst);
        let mut config = Config::default();
        config.batching = info.protocol_version.as_deref() == Some("2025-03-26");
        let handler = TestHandler {
            handle: info.handle,
            dropped: d.clone(),
        };
        let (peer, connection) = Connection::new(transport, handler, config);
        if let Some(id) = &info.session_id {
            p.lock().unwrap().insert(id.to_string(), peer);
        }
        let f = f.clone();
        async move {
            let _ = connection.run().await;
            f.fetch_add(1, Ordering::SeqCst);
        }
    });
    let mut server = service.clone().listener(listener);
    if let Some(map) = map {
        server = server.map_router(map);
    }
    let running = tokio::spawn(async move {
        let _ = server.run().await;
    });
    let server = TestServer {
        url,
        base: format!("http://{addr}"),
        client: reqwest::Client::new(),
        peers,
        sessions_started: started,
        sessions_finished: finished,
        dropped,
        service,
    };
    (server, running)
}

const VERSION: &str = "2025-11-25";

impl TestServer {
    /// A POST with the standard headers.
    fn post(&self, session: Option<&str>, body: Value) -> reqwest::RequestBuilder {
        self.post_with(session, body, &[])
    }

    /// A POST with the standard headers, except those in `overrides` (which replace them).
    fn post_with(
        &self,
        session: Option<&str>,
        body: Value,
        overrides: &[(&str, &str)],
    ) -> reqwest::RequestBuilder {
        let mut req = self.client.post(&self.url).body(body.to_string());
        let defaults = [
            ("accept", "application/json, text/event-stream"),
            ("content-type", "application/json"),
            ("mcp-protocol-version", VERSION),
        ];
        for (name, value) in defaults {
            if !overrides.iter().any(|(n, _)| *n == name) {
                req = req.header(name, value);
            }
        }
        for (name, value) in overrides {
            req = req.header(*name, *value);
        }
        if let Some(id) = session {
            req = req.header("mcp-session-id", id);
        }
        req
    }

    fn get(&self, session: &str) -> reqwest::RequestBuilder {
        self.client
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header("mcp-protocol-version", VERSION)
            .header("mcp-session-id", session)
    }

    fn delete(&self, session: &str) -> reqwest::RequestBuilder {
        self.client
            .delete(&self.url)
            .header("mcp-protocol-version", VERSION)
            .header("mcp-session-id", session)
    }

    /// Initializes a session at `version`; returns its id.
    async fn initialize_at(&self, version: &str) -> String {
        let res = self
            .post_with(
                None,
                initialize_body(version),
                &[("mcp-protocol-version", version)],
            )
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let id = res.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let body: Value = json_body(res).await;
        assert_eq!(body["result"]["protocolVersion"], version);
        let res = self
            .post_with(
                Some(&id),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                &[("mcp-protocol-version", version)],
            )
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 202);
        id
    }

    /// Waits (5 s at most) until `count` `hang` calls have been dropped.
    async fn wait_dropped(&self, count: usize) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while self.dropped.load(Ordering::SeqCst) < count {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{count} handlers are dropped"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn initialize(&self) -> String {
        self.initialize_at(VERSION).await
    }

    fn peer(&self, session: &str) -> Peer {
        self.peers.lock().unwrap()[session].clone()
    }
}

fn initialize_body(version: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    })
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// One parsed SSE event.
#[derive(Debug, Default, Clone)]
struct Event {
    id: Option<String>,
    retry: Option<u64>,
    event: Option<String>,
    data: String,
}

impl Event {
    fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("{e}: {:?}", self.data))
    }
}

/// Reads SSE events from a response body.
struct Sse {
    res: reqwest::Response,
    buf: String,
}

impl Sse {
    fn new(res: reqwest::Response) -> Self {
        assert_eq!(res.headers()["content-type"], "text/event-stream");
        Sse {
            res,
            buf: String::new(),
        }
    }

    /// The next event (blocks with only a `retry` or comment are skipped), `None` at the end
    /// of the stream. Panics after 5 s.
    async fn next(&mut self) -> Option<Event> {
        tokio::time::timeout(Duration::from_secs(5), self.next_inner())
            .await
            .expect("timed out waiting for an SSE event")
    }

    async fn next_inner(&mut self) -> Option<Event> {
        loop {
            while let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let mut ev = Event::default();
                let mut data = Vec::new();
                for line in block.lines() {
                    let (field, value) = line.split_once(':').unwrap_or((line, ""));
                    let value = value.strip_prefix(' ').unwrap_or(value);
                    match field {
                        "id" => ev.id = Some(value.to_owned()),
                        "retry" => ev.retry = value.parse().ok(),
                        "event" => ev.event = Some(value.to_owned()),
                        "data" => data.push(value.to_owned()),
                        _ => {}
                    }
                }
                if data.is_empty() {
                    continue;
                }
                ev.data = data.join("\n");
                return Some(ev);
            }
            match self.res.chunk().await.unwrap() {
                Some(chunk) => self.buf.push_str(std::str::from_utf8(&chunk).unwrap()),
                None => return None,
            }
        }
    }
}

/// The JSON-RPC error body of a rejected request.
async fn error_body(res: reqwest::Response) -> Value {
    assert_eq!(res.headers()["content-type"], "application/json");
    let body: Value = json_body(res).await;
    assert_eq!(body["jsonrpc"], "2.0");
    assert!(body["error"]["code"].is_i64(), "{body}");
    body
}

/// The response body as JSON.
async fn json_body(res: reqwest::Response) -> Value {
    let bytes = res.bytes().await.unwrap();
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}: {bytes:?}"))
}
