//! The test client: a raw `mcp_jsonrpc` connection over the memory pair, with a handler that
//! answers the server's sampling, elicitation and roots requests.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_jsonrpc::{
    Config, Connection, ErrorObject, Handler, Message, Notification, NotificationContext, Peer,
    Request, RequestContext, Transport, memory, to_raw_value,
};
use mcp_server::types::{
    CreateMessage, CreateMessageResult, Elicit, ElicitRequestParams, ElicitResult, ElicitValue,
    Implementation, Initialize, InitializeRequestParams, InitializeResult, ListRoots,
    ListRootsResult, ProtocolVersion, Request as _, Root, SamplingContent,
};
use mcp_server::{ServeOptions, Server};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// What the client was asked, in order: `(method, params)`.
pub(crate) type Asked = Arc<Mutex<Vec<(String, Value)>>>;

struct ClientHandler {
    notifications: mpsc::Sender<(String, Value)>,
    asked: Asked,
}

impl Handler for ClientHandler {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let params: Value = request.params()?;
        self.asked
            .lock()
            .unwrap()
            .push((request.method.to_string(), params.clone()));
        match &*request.method {
            CreateMessage::METHOD => {
                let text = params["messages"][0]["content"]["text"]
                    .as_str()
                    .unwrap_or("");
                to_raw_value(&CreateMessageResult::new(
                    "test-model",
                    SamplingContent::text(format!("echo: {text}")),
                ))
            }
            Elicit::METHOD => {
                let p: ElicitRequestParams = request.params()?;
                match p {
                    ElicitRequestParams::Form(_) => to_raw_value(&ElicitResult::accept(Some(
                        [("name".to_owned(), ElicitValue::from("Alice"))].into(),
                    ))),
                    _ => to_raw_value(&ElicitResult::accept(None)),
                }
            }
            ListRoots::METHOD => to_raw_value(&ListRootsResult::new(vec![
                Root::new("file:///work").with_name("work"),
            ])),
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    async fn handle_notification(&self, notification: Notification, _ctx: NotificationContext) {
        let params = notification.params::<Value>().unwrap_or(Value::Null);
        let _ = self
            .notifications
            .send((notification.method.to_string(), params))
            .await;
    }
}

/// A connected test client.
pub(crate) struct Client {
    pub(crate) peer: Peer,
    pub(crate) asked: Asked,
    notifications: mpsc::Receiver<(String, Value)>,
    pub(crate) server_task: JoinHandle<mcp_server::Result<()>>,
}

impl Client {
    /// Connects to `server` without initializing.
    pub(crate) fn connect_raw(server: &Server) -> Client {
        Client::connect_raw_with(server, ())
    }

    /// Connects without initializing, over a transport that attaches `extension` to every
    /// request it delivers to the server (as an HTTP transport attaches an auth layer's
    /// principal).
    pub(crate) fn connect_raw_with<X: Clone + Send + Sync + 'static>(
        server: &Server,
        extension: X,
    ) -> Client {
        Client::connect_raw_serving(server, extension, ServeOptions::default())
    }

    /// Connects without initializing, to a session served with `options`.
    pub(crate) fn connect_raw_serving<X: Clone + Send + Sync + 'static>(
        server: &Server,
        extension: X,
        options: ServeOptions,
    ) -> Client {
        let (client_end, server_end) = memory::pair(64);
        let server_end = Attaching {
            inner: server_end,
            extension,
        };
        let server = server.clone();
        let server_task = tokio::spawn(async move { server.serve_with(server_end, options).await });
        let (tx, rx) = mpsc::channel(1024);
        let asked = Asked::default();
        let handler = ClientHandler {
            notifications: tx,
            asked: asked.clone(),
        };
        let (peer, conn) = Connection::new(client_end, handler, Config::default());
        tokio::spawn(conn.run());
        Client {
            peer,
            asked,
            notifications: rx,
            server_task,
        }
    }

    /// Connects and initializes with `version` and client `capabilities`.
    pub(crate) async fn connect(
        server: &Server,
        version: &str,
        capabilities: Value,
    ) -> (Client, InitializeResult) {
        let client = Client::connect_raw(server);
        let init = client.initialize(version, capabilities).await.unwrap();
        client.notify("notifications/initialized", json!({})).await;
        (client, init)
    }

    /// Connects and initializes at 2025-11-25, over a transport attaching `extension` to every
    /// request.
    pub(crate) async fn connect_with<X: Clone + Send + Sync + 'static>(
        server: &Server,
        extension: X,
    ) -> Client {
        let client = Client::connect_raw_with(server, extension);
        client.initialize("2025-11-25", json!({})).await.unwrap();
        client.notify("notifications/initialized", json!({})).await;
        client
    }

    /// Connects at 2025-11-25 with sampling, elicitation (form and URL) and roots.
    pub(crate) async fn connect_full(server: &Server) -> Client {
        let caps = json!({"sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": true}});
        Client::connect(server, "2025-11-25", caps).await.0
    }

    pub(crate) async fn initialize(
        &self,
        version: &str,
        capabilities: Value,
    ) -> Result<InitializeResult, mcp_jsonrpc::Error> {
        let params = InitializeRequestParams::new(
            ProtocolVersion::from(version),
            serde_json::from_value(capabilities).unwrap(),
            Implementation::new("test-client", "0.0.1"),
        );
        self.call::<Initialize>(params).await
    }

    /// Sends a typed request and decodes its result.
    pub(crate) async fn call<M: mcp_server::types::Request>(
        &self,
        params: M::Params,
    ) -> Result<M::Result, mcp_jsonrpc::Error> {
        let raw = to_raw_value(&params).unwrap();
        let result = self.peer.request(M::METHOD, Some(raw)).await?;
        Ok(serde_json::from_str(result.get()).expect("result decodes"))
    }

    /// Sends a request with JSON params and returns the raw JSON result.
    pub(crate) async fn raw(
        &self,
        method: &'static str,
        params: Value,
    ) -> Result<Value, mcp_jsonrpc::Error> {
        let raw = to_raw_value(&params).unwrap();
        let result = self.peer.request(method, Some(raw)).await?;
        Ok(serde_json::from_str(result.get()).unwrap())
    }

    /// Sends a 2026-07-28 request: `params` with the per-request `_meta` (version, client info,
    /// `capabilities`) added to whatever `_meta` it has.
    pub(crate) async fn modern(
        &self,
        method: &'static str,
        mut params: Value,
        capabilities: Value,
    ) -> Result<Value, mcp_jsonrpc::Error> {
        let meta = params
            .as_object_mut()
            .expect("params are an object")
            .entry("_meta")
            .or_insert_with(|| json!({}));
        meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
        meta["io.modelcontextprotocol/clientInfo"] = json!({"name": "modern", "version": "1"});
        meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
        self.raw(method, params).await
    }

    pub(crate) async fn notify(&self, method: &'static str, params: Value) {
        self.peer
            .notify(method, Some(to_raw_value(&params).unwrap()))
            .await
            .unwrap();
    }

    /// The next notification (panics after 5 s of simulated time).
    pub(crate) async fn notification(&mut self) -> (String, Value) {
        tokio::time::timeout(Duration::from_secs(5), self.notifications.recv())
            .await
            .expect("a notification within 5 s")
            .expect("connection open")
    }

    /// The next notification with `method`, skipping others.
    pub(crate) async fn notification_named(&mut self, method: &str) -> Value {
        loop {
            let (m, p) = self.notification().await;
            if m == method {
                return p;
            }
        }
    }

    /// Asserts that no notification arrives within 1 s of simulated time.
    pub(crate) async fn assert_no_notification(&mut self) {
        if let Ok(Some(n)) =
            tokio::time::timeout(Duration::from_secs(1), self.notifications.recv()).await
        {
            panic!("unexpected notification {n:?}");
        }
    }
}

/// A transport attaching a value to every request it receives.
struct Attaching<T, X> {
    inner: T,
    extension: X,
}

impl<T: Transport, X: Clone + Send + Sync + 'static> Transport for Attaching<T, X> {
    type Error = T::Error;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(msg)
    }

    async fn recv(&mut self) -> Result<Option<Message>, Self::Error> {
        let mut msg = self.inner.recv().await?;
        if let Some(Message::Request(r)) = &mut msg {
            r.extensions.insert(self.extension.clone());
        }
        Ok(msg)
    }
}

/// The JSON-RPC error of a failed call.
pub(crate) fn rpc_error(e: mcp_jsonrpc::Error) -> ErrorObject {
    match e {
        mcp_jsonrpc::Error::Rpc(obj) => obj,
        other => panic!("expected a json-rpc error, got {other}"),
    }
}
