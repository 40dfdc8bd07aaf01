//! A scripted fake server: a raw `mcp_jsonrpc` connection over the memory pair whose answers
//! each test programs, and which records everything the client sends.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_client::{Client, ClientBuilder, Result};
use mcp_jsonrpc::memory::{self, MemoryTransport};
use mcp_jsonrpc::{
    Config, ErrorObject, Handler, Notification, NotificationContext, Peer, Request, RequestContext,
    to_raw_value,
};
use mcp_types::{Initialize, Initialized, Notification as _, Request as _};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

pub(crate) type Reply = std::result::Result<Value, ErrorObject>;
type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;
type Route = Arc<dyn Fn(Value, RequestContext) -> BoxFuture<Reply> + Send + Sync>;

/// Something the client sent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Seen {
    Request { method: String, params: Value },
    Notification { method: String, params: Value },
}

impl Seen {
    pub(crate) fn method(&self) -> &str {
        match self {
            Seen::Request { method, .. } | Seen::Notification { method, .. } => method,
        }
    }

    pub(crate) fn params(&self) -> &Value {
        match self {
            Seen::Request { params, .. } | Seen::Notification { params, .. } => params,
        }
    }
}

/// Server capabilities with everything on.
pub(crate) fn all_capabilities() -> Value {
    json!({
        "tools": {"listChanged": true},
        "resources": {"subscribe": true, "listChanged": true},
        "prompts": {"listChanged": true},
        "logging": {},
        "completions": {}
    })
}

/// The default answer to `initialize`: the client's version, all capabilities.
pub(crate) fn init_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": all_capabilities(),
        "serverInfo": {"name": "fake", "version": "9.9"},
        "instructions": "be nice"
    })
}

/// The default answer to `server/discover`: 2026-07-28, all capabilities.
pub(crate) fn discover_result() -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": all_capabilities(),
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake", "version": "9.9"}},
        "instructions": "be nice",
        "ttlMs": 0,
        "cacheScope": "private"
    })
}

pub(crate) struct FakeServer {
    routes: HashMap<String, Route>,
}

impl FakeServer {
    pub(crate) fn new() -> Self {
        FakeServer {
            routes: HashMap::new(),
        }
        .route(Initialize::METHOD, |params, _| async move {
            let version = params["protocolVersion"].as_str().unwrap_or("2025-11-25");
            Ok(init_result(version))
        })
    }

    /// A server of the stateless era (2026-07-28): it answers `server/discover`, and not
    /// `initialize`.
    pub(crate) fn modern() -> Self {
        FakeServer {
            routes: HashMap::new(),
        }
        .answer("server/discover", discover_result())
    }

    /// Starts the server and connects `builder` to it over 2026-07-28; consumes the
    /// discover request (whose params become `init_params`).
    pub(crate) async fn connect_modern(self, builder: ClientBuilder) -> Harness {
        let (client_end, server) = self.start();
        let (client, connection) = builder.connect(client_end).await.expect("connect");
        let connection = tokio::spawn(connection);
        let mut h = Harness {
            client,
            connection,
            server,
            init_params: Value::Null,
        };
        let discover = h.server.next_seen().await;
        assert_eq!(discover.method(), "server/discover");
        h.init_params = discover.params().clone();
        h
    }

    /// Answers `method` with `f`.
    pub(crate) fn route<F, Fut>(mut self, method: &str, f: F) -> Self
    where
        F: Fn(Value, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Reply> + Send + 'static,
    {
        self.routes.insert(
            method.to_owned(),
            Arc::new(move |p, ctx| Box::pin(f(p, ctx))),
        );
        self
    }

    /// Answers `method` with a fixed value.
    pub(crate) fn answer(self, method: &str, value: Value) -> Self {
        self.route(method, move |_, _| {
            let value = value.clone();
            async move { Ok(value) }
        })
    }

    /// Answers `initialize` with protocol version `version`.
    pub(crate) fn version(self, version: &'static str) -> Self {
        self.answer(Initialize::METHOD, init_result(version))
    }

    /// Starts the server; returns the client's end of the transport.
    pub(crate) fn start(self) -> (MemoryTransport, ServerSide) {
        let (client_end, server_end) = memory::pair(64);
        let (seen_tx, seen) = mpsc::channel(256);
        let handler = ServerHandler {
            routes: self.routes,
            seen: seen_tx,
        };
        let (peer, conn) = mcp_jsonrpc::Connection::new(server_end, handler, Config::default());
        let task = tokio::spawn(conn.run());
        (client_end, ServerSide { peer, seen, task })
    }

    /// Starts the server and connects `builder` to it; consumes the handshake's messages.
    pub(crate) async fn connect(self, builder: ClientBuilder) -> Harness {
        self.try_connect(builder).await.expect("connect")
    }

    pub(crate) async fn try_connect(self, builder: ClientBuilder) -> Result<Harness> {
        let (client_end, server) = self.start();
        let (client, connection) = builder.connect(client_end).await?;
        let connection = tokio::spawn(connection);
        let mut h = Harness {
            client,
            connection,
            server,
            init_params: Value::Null,
        };
        let mut init = h.server.next_seen().await;
        if init.method() == "server/discover" {
            // The dual-era probe, which this server of the handshake era does not know.
            init = h.server.next_seen().await;
        }
        assert_eq!(init.method(), Initialize::METHOD);
        h.init_params = init.params().clone();
        let initialized = h.server.next_seen().await;
        assert_eq!(initialized.method(), Initialized::METHOD);
        Ok(h)
    }
}

pub(crate) struct ServerSide {
    /// The server's handle: notifications and requests to the client.
    pub(crate) peer: Peer,
    pub(crate) seen: mpsc::Receiver<Seen>,
    pub(crate) task: JoinHandle<mcp_jsonrpc::Result<()>>,
}

impl ServerSide {
    pub(crate) async fn next_seen(&mut self) -> Seen {
        self.seen.recv().await.expect("server still running")
    }

    /// The next message with `method`, skipping others.
    pub(crate) async fn next_with(&mut self, method: &str) -> Seen {
        loop {
            let seen = self.next_seen().await;
            if seen.method() == method {
                return seen;
            }
        }
    }

    /// Sends a typed notification to the client.
    pub(crate) async fn notify<N: mcp_types::Notification>(&self, params: N::Params) {
        let raw = serde_json::value::to_raw_value(&params).unwrap();
        self.peer.notify(N::METHOD, Some(raw)).await.unwrap();
    }

    /// Sends a request to the client; the raw result or error.
    /// (`Value::Null` sends no params at all.)
    pub(crate) async fn request(&self, method: &'static str, params: Value) -> Reply {
        let raw = (!params.is_null()).then(|| serde_json::value::to_raw_value(&params).unwrap());
        match self.peer.request(method, raw).await {
            Ok(raw) => Ok(serde_json::from_str(raw.get()).unwrap()),
            Err(mcp_jsonrpc::Error::Rpc(e)) => Err(e),
            Err(e) => panic!("request failed: {e}"),
        }
    }
}

pub(crate) struct Harness {
    pub(crate) client: Client,
    pub(crate) connection: JoinHandle<Result<()>>,
    pub(crate) server: ServerSide,
    pub(crate) init_params: Value,
}

struct ServerHandler {
    routes: HashMap<String, Route>,
    seen: mpsc::Sender<Seen>,
}

fn value_of(raw: Option<&RawValue>) -> Value {
    raw.map_or(Value::Null, |r| serde_json::from_str(r.get()).unwrap())
}

impl Handler for ServerHandler {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> std::result::Result<Box<RawValue>, ErrorObject> {
        let params = value_of(request.params.as_deref());
        let _ = self
            .seen
            .send(Seen::Request {
                method: request.method.to_string(),
                params: params.clone(),
            })
            .await;
        let Some(route) = self.routes.get(&*request.method) else {
            return Err(ErrorObject::method_not_found(&request.method));
        };
        let value = route(params, ctx).await?;
        to_raw_value(&value)
    }

    async fn handle_notification(&self, notification: Notification, _ctx: NotificationContext) {
        let _ = self
            .seen
            .send(Seen::Notification {
                method: notification.method.to_string(),
                params: value_of(notification.params.as_deref()),
            })
            .await;
    }
}
