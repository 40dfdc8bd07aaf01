//! A raw JSON-RPC client for end-to-end tests: an `mcp_jsonrpc` connection over a child
//! process, which declares sampling and elicitation and answers them, and records every
//! message it receives, in wire order, so tests can wait for and assert on them.

use std::collections::VecDeque;
use std::future::Future;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context as _;
use mcp_jsonrpc::{
    Config, Connection, ErrorObject, Handler, Message, Peer, Request, RequestContext, Transport,
};
use mcp_transport_stdio::{ChildProcessTransport, ProcessHandle, ShutdownOutcome, StderrSink};
use mcp_types::{
    CallTool, CreateMessage, Elicit, Initialize, Initialized, Notification as _, Ping, Request as _,
};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How long a test waits for any one thing (a response, a notification, an exit).
pub(crate) const WAIT: Duration = Duration::from_secs(10);

/// The protocol revision the client asks for.
pub(crate) const PROTOCOL_VERSION: &str = "2025-11-25";

/// What the client answers `sampling/createMessage` with (the conformance harness's answer).
pub(crate) fn sampling_answer() -> Value {
    json!({
        "role": "assistant",
        "content": {"type": "text", "text": "This is a test response from the client"},
        "model": "test-model",
        "stopReason": "endTurn",
    })
}

/// One session with a server process.
pub(crate) struct Session {
    peer: Peer,
    wire: watch::Receiver<Vec<Value>>,
    elicit_answers: Arc<Mutex<VecDeque<Value>>>,
    process: ProcessHandle,
    stderr: Arc<Mutex<Vec<String>>>,
    run: JoinHandle<mcp_jsonrpc::Result<()>>,
}

impl Session {
    /// Spawns `program` (an MCP server on stdio) and connects, without initializing.
    pub(crate) fn spawn(program: &Path) -> anyhow::Result<Session> {
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = stderr.clone();
        let transport = ChildProcessTransport::builder(program)
            .env("RUST_LOG", "info")
            .stderr(StderrSink::callback(move |line| {
                lines.lock().expect("stderr lock").push(line.to_owned());
            }))
            .spawn()
            .with_context(|| format!("spawning {}", program.display()))?;
        let process = transport.handle();
        let (wire_tx, wire) = watch::channel(Vec::new());
        let elicit_answers = Arc::new(Mutex::new(VecDeque::new()));
        let handler = ClientHandler {
            elicit_answers: elicit_answers.clone(),
        };
        let mut config = Config::default();
        config.default_timeout = Some(WAIT);
        let recorder = Recorder {
            inner: transport,
            wire: wire_tx,
        };
        let (peer, connection) = Connection::new(recorder, handler, config);
        let run = tokio::spawn(connection.run());
        Ok(Session {
            peer,
            wire,
            elicit_answers,
            process,
            stderr,
            run,
        })
    }

    /// Spawns `program` and runs the handshake, declaring sampling and elicitation; returns
    /// the session and the `initialize` result.
    pub(crate) async fn connect(program: &Path) -> anyhow::Result<(Session, Value)> {
        let session = Session::spawn(program)?;
        let init = session
            .call::<Initialize>(json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {"sampling": {}, "elicitation": {}},
                "clientInfo": {"name": "e2e-test-client", "version": "1.0.0"},
            }))
            .await
            .context("initialize")?;
        session
            .peer
            .notify(Initialized::METHOD, None)
            .await
            .context("notifications/initialized")?;
        Ok((session, init))
    }

    /// Sends request `M` with JSON params; returns the JSON result, or the error.
    pub(crate) async fn call<M: mcp_types::Request>(
        &self,
        params: Value,
    ) -> Result<Value, mcp_jsonrpc::Error> {
        let params = serde_json::value::to_raw_value(&params)?;
        let result = self.peer.request(M::METHOD, Some(params)).await?;
        Ok(serde_json::from_str(result.get())?)
    }

    /// Sends request `M` with typed params; returns the typed result.
    pub(crate) async fn request<M: mcp_types::Request>(
        &self,
        params: &M::Params,
    ) -> anyhow::Result<M::Result> {
        let params = serde_json::value::to_raw_value(params)?;
        let result = self
            .peer
            .request(M::METHOD, Some(params))
            .await
            .with_context(|| format!("{} failed", M::METHOD))?;
        serde_json::from_str(result.get())
            .with_context(|| format!("decoding the {} result {}", M::METHOD, result.get()))
    }

    /// Sends request `M` and expects a JSON-RPC error; returns it.
    pub(crate) async fn call_err<M: mcp_types::Request>(&self, params: Value) -> ErrorObject {
        match self.call::<M>(params.clone()).await {
            Err(mcp_jsonrpc::Error::Rpc(e)) => e,
            other => panic!(
                "expected an error from {} {params}, got {other:?}",
                M::METHOD
            ),
        }
    }

    /// Calls tool `name` with `arguments` (none if `Value::Null`); returns the JSON result.
    pub(crate) async fn call_tool(&self, name: &str, arguments: Value) -> Value {
        let mut params = json!({"name": name});
        if !arguments.is_null() {
            params["arguments"] = arguments;
        }
        self.call::<CallTool>(params)
            .await
            .unwrap_or_else(|e| panic!("tools/call {name} failed: {e}\n{}", self.stderr()))
    }

    /// Queues the answer to the next `elicitation/create` (FIFO); without one, the client
    /// declines.
    pub(crate) fn answer_next_elicitation(&self, answer: Value) {
        self.elicit_answers
            .lock()
            .expect("answers lock")
            .push_back(answer);
    }

    /// Every message received so far, in wire order.
    pub(crate) fn wire(&self) -> Vec<Value> {
        self.wire.borrow().clone()
    }

    /// Waits (up to [`WAIT`]) until `count` received messages match `pred`; returns them, in
    /// wire order.
    pub(crate) async fn wait_for(
        &self,
        what: &str,
        count: usize,
        pred: impl Fn(&Value) -> bool,
    ) -> Vec<Value> {
        let mut wire = self.wire.clone();
        let seen = within(
            what,
            wire.wait_for(|msgs| msgs.iter().filter(|m| pred(m)).count() >= count),
        )
        .await;
        match seen {
            Ok(msgs) => msgs
                .iter()
                .filter(|m| pred(m))
                .take(count)
                .cloned()
                .collect(),
            Err(_) => panic!("the connection ended while waiting for {what}"),
        }
    }

    /// Waits for the server's `count`-th request of `method` and returns its params.
    pub(crate) async fn server_requests(&self, method: &str, count: usize) -> Vec<Value> {
        self.wait_for(&format!("{count} {method} request(s)"), count, |m| {
            m["method"] == method && m.get("id").is_some()
        })
        .await
        .into_iter()
        .map(|m| m["params"].clone())
        .collect()
    }

    /// What the server wrote to stderr so far.
    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").join("\n")
    }

    /// Closes the connection (which closes the server's stdin) and waits for the server to
    /// exit; returns its exit status and which shutdown step ended it.
    pub(crate) async fn close(self) -> (ExitStatus, Option<ShutdownOutcome>) {
        self.peer.close();
        within("the connection to close", self.run)
            .await
            .expect("the connection task panicked")
            .expect("the connection failed");
        let status = within("the server to exit", self.process.exited())
            .await
            .expect("the transport saw the server exit");
        (status, self.process.shutdown_outcome())
    }
}

/// Awaits `fut`, failing the test if it takes longer than [`WAIT`].
pub(crate) async fn within<F: Future>(what: &str, fut: F) -> F::Output {
    tokio::time::timeout(WAIT, fut)
        .await
        .unwrap_or_else(|_| panic!("timed out after {WAIT:?} waiting for {what}"))
}

/// The client's side of server-to-client requests.
struct ClientHandler {
    elicit_answers: Arc<Mutex<VecDeque<Value>>>,
}

impl Handler for ClientHandler {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let answer = match &*request.method {
            CreateMessage::METHOD => sampling_answer(),
            Elicit::METHOD => self
                .elicit_answers
                .lock()
                .expect("answers lock")
                .pop_front()
                .unwrap_or_else(|| json!({"action": "decline"})),
            Ping::METHOD => json!({}),
            other => return Err(ErrorObject::method_not_found(other)),
        };
        mcp_jsonrpc::to_raw_value(&answer)
    }
}

/// A transport that records every inbound message, as JSON, before passing it on.
struct Recorder<T> {
    inner: T,
    wire: watch::Sender<Vec<Value>>,
}

impl<T: Transport> Transport for Recorder<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(msg)
    }

    async fn recv(&mut self) -> Result<Option<Message>, Self::Error> {
        let msg = self.inner.recv().await?;
        if let Some(msg) = &msg {
            // Recorded synchronously once `recv` is ready, so this stays cancel-safe.
            let json = msg
                .to_json()
                .ok()
                .and_then(|s| serde_json::from_str(&s).ok())
                .unwrap_or(Value::Null);
            self.wire.send_modify(|log| log.push(json));
        }
        Ok(msg)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
