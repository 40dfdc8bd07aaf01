//! Helpers of the `client_*` tests: our `mcp-client` connected to a server process (ours or
//! a peer's), handlers that record what the server asked, and fake servers for the shutdown
//! sequence.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::{Client, ClientBuilder, ErrorObject, RequestContext};
use mcp_transport_stdio::{ChildProcessBuilder, ChildProcessTransport, ProcessHandle, StderrSink};
use mcp_types::{
    CreateMessageRequestParams, CreateMessageResult, LoggingMessageNotificationParams,
    SamplingContent, ServerNotification,
};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::support::bins::everything_server;
use crate::support::client::{WAIT, within};
use crate::support::peers::peers;
use crate::support::peers_dir;

/// Our client, connected to a server process, with the connection running on a task.
pub(crate) struct Running {
    pub(crate) client: Client,
    pub(crate) connection: JoinHandle<mcp_client::Result<()>>,
    pub(crate) process: ProcessHandle,
    notifications: mpsc::Receiver<ServerNotification>,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Running {
    /// Spawns `command` and connects `builder` to it (with a notification recorder as its
    /// handler and a request timeout of [`WAIT`]).
    pub(crate) async fn start(command: ChildProcessBuilder, builder: ClientBuilder) -> Running {
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = stderr.clone();
        let transport = command
            .stderr(StderrSink::callback(move |line| {
                lines.lock().expect("stderr lock").push(line.to_owned());
            }))
            .spawn()
            .expect("spawning the server");
        let process = transport.handle();
        let (tx, notifications) = mpsc::channel(256);
        let connect = builder
            .handler(tx)
            .request_timeout(Some(WAIT))
            .connect(transport);
        let (client, connection) = match within("the initialize handshake", connect).await {
            Ok(connected) => connected,
            Err(e) => panic!(
                "connecting failed: {e}\nserver stderr:\n{}",
                stderr.lock().expect("stderr lock").join("\n")
            ),
        };
        Running {
            client,
            connection: tokio::spawn(connection),
            process,
            notifications,
            stderr,
        }
    }

    /// What the server wrote to stderr so far.
    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").join("\n")
    }

    /// The next notification (waiting up to [`WAIT`]).
    pub(crate) async fn next_notification(&mut self) -> ServerNotification {
        within("a notification", self.notifications.recv())
            .await
            .expect("the connection ended while waiting for a notification")
    }

    /// The next `notifications/message`, skipping other notifications.
    pub(crate) async fn next_log(&mut self) -> LoggingMessageNotificationParams {
        loop {
            if let ServerNotification::LoggingMessage(log) = self.next_notification().await {
                return log;
            }
        }
    }

    /// Waits for `notifications/tools/list_changed`, skipping other notifications.
    pub(crate) async fn tool_list_changed(&mut self) {
        while !matches!(
            self.next_notification().await,
            ServerNotification::ToolListChanged(_)
        ) {}
    }

    /// Closes the client and waits for the connection to end cleanly and the server to exit.
    pub(crate) async fn close(self) -> ProcessHandle {
        self.client.close();
        let end = within("the connection to end after close()", self.connection)
            .await
            .expect("the connection task panicked");
        if let Err(e) = end {
            panic!(
                "the connection ended with {e:?}\nserver stderr:\n{}",
                self.stderr.lock().expect("stderr lock").join("\n")
            );
        }
        within("the server to exit", self.process.exited())
            .await
            .expect("the transport saw the server exit");
        self.process
    }
}

/// `everything-server`.
pub(crate) fn everything() -> ChildProcessBuilder {
    ChildProcessTransport::builder(everything_server()).env("RUST_LOG", "info")
}

/// The TypeScript SDK's `tests/peers/ts_server.mjs`, run with the pinned Node.
pub(crate) fn ts_server() -> ChildProcessBuilder {
    ChildProcessTransport::builder(&peers().node).arg(peers_dir().join("ts_server.mjs"))
}

/// The TypeScript SDK v2's `tests/peers/ts_server_v2.mjs` (both eras), run with the pinned
/// Node.
pub(crate) fn ts_server_v2() -> ChildProcessBuilder {
    ChildProcessTransport::builder(&peers().node).arg(peers_dir().join("ts_server_v2.mjs"))
}

/// The Python SDK's `tests/peers/python_server.py`, run with the pinned venv's Python.
pub(crate) fn python_server() -> ChildProcessBuilder {
    ChildProcessTransport::builder(&peers().python).arg(peers_dir().join("python_server.py"))
}

/// The TypeScript SDK's `@modelcontextprotocol/server-everything`, over stdio.
pub(crate) fn server_everything() -> ChildProcessBuilder {
    let script = peers()
        .node_modules
        .join("@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        script.is_file(),
        "{} is missing: run `cargo xtask setup`",
        script.display()
    );
    ChildProcessTransport::builder(&peers().node)
        .arg(script)
        .arg("stdio")
}

/// A fake server, a `sh` script: runs `prelude`, answers `initialize`, then runs `rest`.
pub(crate) fn fake_server(prelude: &str, rest: &str) -> ChildProcessBuilder {
    let script = format!(
        r#"{prelude}
read -r line
id=$(printf '%s' "$line" | sed -n 's/.*"id":\([^,}}]*\).*/\1/p')
printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"fake","version":"0"}}}}}}\n' "$id"
{rest}
"#
    );
    ChildProcessTransport::builder("sh").arg("-c").arg(script)
}

/// The part of a [`fake_server`] script that reads (and ignores) everything until stdin
/// closes, then ignores that too.
pub(crate) const IGNORE_EOF: &str = "while read -r line; do :; done\nexec sleep 600";

/// The text our sampling handler answers with.
pub(crate) const MODEL_TEXT: &str = "This is a test response from the Rust client";

/// A sampling handler that answers [`MODEL_TEXT`] (model `e2e-model`) and records the
/// requests it saw (as JSON).
pub(crate) fn recording_sampler() -> (impl mcp_client::SamplingHandler, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let handler = move |params: CreateMessageRequestParams, _cx: RequestContext| {
        let record = record.clone();
        async move {
            let json = serde_json::to_value(&params)
                .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
            record.lock().expect("sampling lock").push(json);
            let mut result =
                CreateMessageResult::new("e2e-model", SamplingContent::text(MODEL_TEXT));
            result.stop_reason = Some("endTurn".to_owned());
            Ok(result)
        }
    };
    (handler, seen)
}

/// A short timeout for the fake servers' shutdown steps.
pub(crate) const SHUTDOWN_STEP: Duration = Duration::from_millis(300);
