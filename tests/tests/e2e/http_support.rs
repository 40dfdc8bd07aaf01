//! Helpers of the `http_*` tests: server processes listening on 127.0.0.1 (ours, reporting
//! its port on stderr; the peers', on a port picked for them) and our client connected over
//! HTTP.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::{Client, ClientBuilder, ErrorObject, RequestContext, SamplingHandler};
use mcp_transport_http::client::StreamableHttpClientTransport;
use mcp_types::{CreateMessageRequestParams, CreateMessageResult, SamplingContent};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use crate::support::bins::everything_server;
use crate::support::client::{WAIT, within};

/// A server process listening on 127.0.0.1, killed when dropped; its stderr is kept.
pub(crate) struct HttpServer {
    /// `http://127.0.0.1:<port>`, without a path.
    pub(crate) base: String,
    stderr: Arc<Mutex<Vec<String>>>,
    _child: Child,
}

impl HttpServer {
    /// `everything-server --http 127.0.0.1:0`, once it reports `listening on http://...`.
    pub(crate) async fn everything() -> HttpServer {
        Self::everything_with(&[]).await
    }

    /// `everything-server <flags> --http 127.0.0.1:0`, once it is listening.
    pub(crate) async fn everything_with(flags: &[&str]) -> HttpServer {
        let mut command = Command::new(everything_server());
        command
            .args(flags)
            .args(["--http", "127.0.0.1:0"])
            .env("RUST_LOG", "warn");
        Self::announced("everything-server", command).await
    }

    /// `command`, a server that binds 127.0.0.1 port 0 and prints `listening on
    /// http://127.0.0.1:<port>/mcp` on stderr, once it has printed that.
    pub(crate) async fn announced(what: &str, mut command: Command) -> HttpServer {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {what}: {e}"));
        let mut lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let listening = async {
            while let Some(line) = lines.next_line().await.expect("reading stderr") {
                stderr.lock().expect("stderr lock").push(line.clone());
                if let Some(url) = line.strip_prefix("listening on ") {
                    return url.trim_end_matches("/mcp").to_owned();
                }
            }
            panic!(
                "{what} exited without listening:\n{}",
                stderr.lock().expect("stderr lock").join("\n")
            )
        };
        let base = within(&format!("{what} to listen"), listening).await;
        drain(lines, stderr.clone());
        HttpServer {
            base,
            stderr,
            _child: child,
        }
    }

    /// `program args... --http <port>` on a free port, once the port accepts connections.
    pub(crate) async fn peer(program: &Path, args: &[&OsStr]) -> HttpServer {
        let port = free_port();
        let mut child = Command::new(program)
            .args(args)
            .arg("--http")
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {}: {e}", program.display()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        drain(lines, stderr.clone());
        let addr = format!("127.0.0.1:{port}");
        let ready = async {
            loop {
                if tokio::net::TcpStream::connect(&addr).await.is_ok() {
                    return;
                }
                if let Ok(Some(status)) = child.try_wait() {
                    panic!(
                        "{} exited ({status}) before listening:\n{}",
                        program.display(),
                        stderr.lock().expect("stderr lock").join("\n")
                    );
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        if tokio::time::timeout(Duration::from_secs(30), ready)
            .await
            .is_err()
        {
            panic!(
                "{} did not listen on {addr} within 30 s:\n{}",
                program.display(),
                stderr.lock().expect("stderr lock").join("\n")
            );
        }
        HttpServer {
            base: format!("http://{addr}"),
            stderr,
            _child: child,
        }
    }

    /// The Streamable HTTP endpoint, `<base>/mcp`.
    pub(crate) fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// What the server printed on stderr so far.
    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").join("\n")
    }
}

/// Keeps reading `lines` into `into`, so the child never blocks on a full pipe.
fn drain(
    mut lines: tokio::io::Lines<BufReader<tokio::process::ChildStderr>>,
    into: Arc<Mutex<Vec<String>>>,
) {
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            into.lock().expect("stderr lock").push(line);
        }
    });
}

/// A port that was free a moment ago (bound to 127.0.0.1:0, then released).
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("binding 127.0.0.1:0")
        .port()
}

/// Our client connected to `url` over HTTP, with its connection running on a task.
pub(crate) async fn connect(
    url: &str,
    builder: ClientBuilder,
) -> (Client, JoinHandle<mcp_client::Result<()>>) {
    let transport = StreamableHttpClientTransport::new(url).expect("client transport");
    let connect = builder.request_timeout(Some(WAIT)).connect(transport);
    let (client, connection) = within("the initialize handshake", connect)
        .await
        .unwrap_or_else(|e| panic!("connecting to {url} failed: {e}"));
    (client, tokio::spawn(connection))
}

/// Closes `client` and waits for its connection to end.
pub(crate) async fn close(client: Client, connection: JoinHandle<mcp_client::Result<()>>) {
    client.close();
    let ended = within("the connection to end", connection)
        .await
        .expect("connection task");
    if let Err(e) = ended {
        assert!(e.is_closed(), "connection ended with {e}");
    }
}

/// The text our sampling handler answers with.
pub(crate) const MODEL_TEXT: &str = "This is a test response from the Rust client over HTTP";

/// A sampling handler answering [`MODEL_TEXT`], and the requests it saw (as JSON).
pub(crate) fn recording_sampler() -> (impl SamplingHandler, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let handler = move |params: CreateMessageRequestParams, _cx: RequestContext| {
        let record = record.clone();
        async move {
            let json = serde_json::to_value(&params)
                .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
            record.lock().expect("sampling lock").push(json);
            let mut result =
                CreateMessageResult::new("http-e2e-model", SamplingContent::text(MODEL_TEXT));
            result.stop_reason = Some("endTurn".to_owned());
            Ok(result)
        }
    };
    (handler, seen)
}
