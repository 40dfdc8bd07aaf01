//! The client side against real child processes (python3 and sh as fake servers).

use std::os::unix::process::ExitStatusExt as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_jsonrpc::{Config, Connection, Error as RpcError, Peer, Transport, to_raw_value};
use mcp_transport_stdio::{
    ChildProcessBuilder, ChildProcessTransport, Error, ShutdownOutcome, StderrSink,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::common::{STEP, chain, within};

/// A fake MCP server: answers requests by method, exits when stdin closes.
const SERVER_PY: &str = r#"
import json, os, sys
for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method, params = msg["method"], msg.get("params") or {}
    if method == "echo":
        result = params
    elif method == "env":
        result = {"cwd": os.getcwd(), "value": os.environ.get(params["name"])}
    elif method == "stderr":
        for text in params["lines"]:
            print(text, file=sys.stderr, flush=True)
        result = True
    elif method == "exit":
        print("about to exit", file=sys.stderr, flush=True)
        sys.exit(params["code"])
    elif method == "big":
        result = "x" * params["size"]
    elif method == "garbage":
        print("this is not json, " + "x" * 500, flush=True)
        continue
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                          "error": {"code": -32601, "message": "no " + method}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"#;

/// Well-behaved servers get a long first step: it only runs out if something is wrong.
const POLITE: Duration = Duration::from_secs(5);

fn python_server() -> ChildProcessBuilder {
    ChildProcessTransport::builder("python3")
        .args(["-u", "-c", SERVER_PY])
        .close_timeout(POLITE)
        .term_timeout(STEP)
}

fn sh(script: &str) -> ChildProcessBuilder {
    ChildProcessTransport::builder("sh")
        .args(["-c", script])
        .close_timeout(STEP)
        .term_timeout(STEP)
}

fn connect(transport: ChildProcessTransport) -> (Peer, JoinHandle<mcp_jsonrpc::Result<()>>) {
    let (peer, conn) = Connection::new(transport, (), Config::default());
    (peer, tokio::spawn(conn.run()))
}

async fn call(peer: &Peer, method: &'static str, params: Value) -> mcp_jsonrpc::Result<Value> {
    let raw = within(peer.request(method, Some(to_raw_value(&params).unwrap()))).await?;
    Ok(serde_json::from_str(raw.get()).unwrap())
}

#[tokio::test]
async fn requests_round_trip_and_close_is_polite() {
    let transport = python_server().spawn().unwrap();
    let process = transport.handle();
    assert!(process.pid().is_some());
    let (peer, run) = connect(transport);
    assert_eq!(
        call(&peer, "echo", json!({"a": [1, 2]})).await.unwrap(),
        json!({"a": [1, 2]})
    );
    let err = call(&peer, "nope", json!({})).await.unwrap_err();
    assert!(
        matches!(err, RpcError::Rpc(ref e) if e.code.0 == -32601),
        "{err}"
    );
    peer.close();
    within(run).await.unwrap().unwrap();
    assert_eq!(
        process.shutdown_outcome(),
        Some(ShutdownOutcome::StdinClosed)
    );
    assert!(process.exit_status().unwrap().success());
    assert!(within(process.exited()).await.unwrap().success());
}

#[tokio::test]
async fn env_and_cwd_are_passed() {
    let dir = std::env::temp_dir().canonicalize().unwrap();
    let transport = python_server()
        .env("MCP_STDIO_TEST", "from the test")
        .env_remove("MCP_STDIO_ABSENT")
        .current_dir(&dir)
        .spawn()
        .unwrap();
    let (peer, _run) = connect(transport);
    let got = call(&peer, "env", json!({"name": "MCP_STDIO_TEST"}))
        .await
        .unwrap();
    assert_eq!(got["value"], "from the test");
    assert_eq!(got["cwd"], dir.to_str().unwrap());
    let got = call(&peer, "env", json!({"name": "MCP_STDIO_ABSENT"}))
        .await
        .unwrap();
    assert_eq!(got["value"], Value::Null);
}

#[tokio::test]
async fn stderr_lines_reach_a_channel() {
    let (tx, mut rx) = mpsc::channel(16);
    let transport = python_server()
        .stderr(StderrSink::Channel(tx))
        .spawn()
        .unwrap();
    let (peer, _run) = connect(transport);
    call(
        &peer,
        "stderr",
        json!({"lines": ["first line", "", "second line"]}),
    )
    .await
    .unwrap();
    assert_eq!(within(rx.recv()).await.unwrap(), "first line");
    assert_eq!(within(rx.recv()).await.unwrap(), "second line");
}

#[tokio::test]
async fn stderr_lines_reach_a_callback() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let seen = seen.clone();
        StderrSink::callback(move |line| seen.lock().unwrap().push(line.to_owned()))
    };
    let transport = sh("echo one >&2; printf 'two\\r\\n' >&2; cat")
        .close_timeout(POLITE)
        .stderr(sink)
        .spawn()
        .unwrap();
    let (peer, run) = connect(transport);
    // The lines are read while the connection runs.
    within(async {
        while seen.lock().unwrap().len() < 2 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    peer.close();
    within(run).await.unwrap().unwrap();
    assert_eq!(*seen.lock().unwrap(), ["one", "two"]);
}

#[tokio::test]
async fn stderr_lines_reach_tracing() {
    use tracing_subscriber::fmt::MakeWriter;

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl<'a> MakeWriter<'a> for Buf {
        type Writer = Buf;
        fn make_writer(&'a self) -> Buf {
            self.clone()
        }
    }

    let buf = Buf::default();
    // The test runtime is single-threaded: the subscriber sees everything polled here.
    let subscriber = tracing_subscriber::fmt()
        .with_writer(buf.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let mut transport = sh("echo 'hello from the server' >&2").spawn().unwrap();
    let err = within(transport.recv()).await.unwrap_err();
    assert_eq!(err.to_string(), "server process exited with status 0");
    let logs = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("mcp_transport_stdio::stderr")
            && logs.contains("hello from the server")
            && logs.contains("program=\"sh\""),
        "{logs}"
    );
}

#[tokio::test]
async fn a_child_exiting_mid_request_fails_the_request_with_its_status() {
    let (tx, mut rx) = mpsc::channel(16);
    let transport = python_server()
        .stderr(StderrSink::Channel(tx))
        .spawn()
        .unwrap();
    let process = transport.handle();
    let (peer, run) = connect(transport);
    let err = call(&peer, "exit", json!({"code": 3})).await.unwrap_err();
    assert!(matches!(err, RpcError::Closed { .. }), "{err}");
    // The pending request says why the connection ended.
    assert!(
        err.to_string()
            .contains("server process exited with status 3"),
        "{err}"
    );
    let err = within(run).await.unwrap().unwrap_err();
    assert_eq!(
        chain(&err),
        "transport error: server process exited with status 3"
    );
    assert_eq!(process.exit_status().unwrap().code(), Some(3));
    assert_eq!(
        process.shutdown_outcome(),
        Some(ShutdownOutcome::AlreadyExited)
    );
    // Its last words were delivered before the end was reported.
    assert_eq!(rx.try_recv().unwrap(), "about to exit");
}

#[tokio::test]
async fn a_response_over_the_limits_fails_its_request_at_once() {
    // Over the transport's line limit: the line is skipped, and its head names the request.
    let transport = python_server().max_line_size(10_000).spawn().unwrap();
    let (peer, run) = connect(transport);
    // `within` (20 s) would fail first if the request waited for its 60 s timeout.
    let err = call(&peer, "big", json!({"size": 100_000}))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            RpcError::MessageTooLarge {
                size: 100_000..,
                limit: 10_000
            }
        ),
        "{err:?}"
    );
    // Over the connection's limit only: read, then refused by size.
    let transport = python_server().spawn().unwrap();
    let mut config = Config::default();
    config.max_message_size = 10_000;
    let (small, conn) = Connection::new(transport, (), config);
    let small_run = tokio::spawn(conn.run());
    let err = call(&small, "big", json!({"size": 100_000}))
        .await
        .unwrap_err();
    assert!(matches!(err, RpcError::MessageTooLarge { .. }), "{err:?}");
    // Both sessions go on.
    for p in [&peer, &small] {
        assert_eq!(
            call(p, "echo", json!({"n": 1})).await.unwrap(),
            json!({"n": 1})
        );
        p.close();
    }
    within(run).await.unwrap().unwrap();
    within(small_run).await.unwrap().unwrap();
}

#[tokio::test]
async fn recv_names_the_exit_status() {
    let mut transport = sh("read line; exit 7").spawn().unwrap();
    let msg = mcp_jsonrpc::Message::decode(br#"{"jsonrpc":"2.0","method":"go"}"#);
    transport.send(msg).await.unwrap();
    let err = within(transport.recv()).await.unwrap_err();
    assert!(matches!(err, Error::ProcessExited { status } if status.code() == Some(7)));
    assert_eq!(err.to_string(), "server process exited with status 7");
    assert_eq!(transport.exit_status().unwrap().code(), Some(7));
    transport.close().await.unwrap();
    assert_eq!(
        transport.shutdown_outcome(),
        Some(ShutdownOutcome::AlreadyExited)
    );
}

#[tokio::test]
async fn garbage_on_stdout_fails_with_a_clear_error() {
    let transport = python_server().spawn().unwrap();
    let process = transport.handle();
    let (peer, run) = connect(transport);
    let err = call(&peer, "garbage", json!({})).await.unwrap_err();
    assert!(matches!(err, RpcError::Closed { .. }), "{err}");
    let err = within(run).await.unwrap().unwrap_err();
    let expected = format!(
        "transport error: server wrote a non-protocol line to stdout: this is not json, {}",
        "x".repeat(200 - "this is not json, ".len())
    );
    assert_eq!(chain(&err), expected);
    // The connection closed the transport, which shut the server down.
    assert_eq!(
        process.shutdown_outcome(),
        Some(ShutdownOutcome::StdinClosed)
    );
}

#[tokio::test]
async fn a_child_that_closes_stdout_but_lives_is_reported() {
    let mut transport = sh("exec >&-; exec sleep 30").spawn().unwrap();
    let err = within(transport.recv()).await.unwrap_err();
    assert_eq!(err.to_string(), "server process closed its stdout");
    transport.close().await.unwrap();
    assert_eq!(
        transport.shutdown_outcome(),
        Some(ShutdownOutcome::Terminated)
    );
}

#[tokio::test]
async fn a_child_that_cannot_start_is_a_spawn_error() {
    let err = ChildProcessTransport::builder("/nonexistent/mcp-server")
        .spawn()
        .unwrap_err();
    assert!(matches!(err, Error::Spawn { .. }));
    assert!(
        chain(&err).starts_with("could not spawn the server process `/nonexistent/mcp-server`: "),
        "{}",
        chain(&err)
    );
}

#[tokio::test]
async fn shutdown_a_well_behaved_child_exits_on_stdin_close() {
    let mut transport = ChildProcessTransport::builder("cat")
        .close_timeout(POLITE)
        .term_timeout(STEP)
        .spawn()
        .unwrap();
    within(transport.close()).await.unwrap();
    assert_eq!(
        transport.shutdown_outcome(),
        Some(ShutdownOutcome::StdinClosed)
    );
    assert!(transport.exit_status().unwrap().success());
}

#[tokio::test]
async fn shutdown_a_child_ignoring_stdin_gets_sigterm() {
    let mut transport = ChildProcessTransport::builder("sleep")
        .arg("30")
        .close_timeout(STEP)
        .term_timeout(STEP)
        .spawn()
        .unwrap();
    let started = tokio::time::Instant::now();
    within(transport.close()).await.unwrap();
    assert_eq!(
        transport.shutdown_outcome(),
        Some(ShutdownOutcome::Terminated)
    );
    assert_eq!(transport.exit_status().unwrap().signal(), Some(15));
    assert!(started.elapsed() >= STEP);
}

#[tokio::test]
async fn shutdown_a_child_ignoring_sigterm_gets_sigkill() {
    let (tx, mut rx) = mpsc::channel(4);
    let mut transport = sh("trap '' TERM; echo ready >&2; exec sleep 30")
        .stderr(StderrSink::Channel(tx))
        .spawn()
        .unwrap();
    // Wait until the trap is set (stderr is read while recv is polled).
    tokio::select! {
        r = transport.recv() => panic!("unexpected {r:?}"),
        line = within(rx.recv()) => assert_eq!(line.unwrap(), "ready"),
    }
    let started = tokio::time::Instant::now();
    within(transport.close()).await.unwrap();
    assert_eq!(transport.shutdown_outcome(), Some(ShutdownOutcome::Killed));
    assert_eq!(transport.exit_status().unwrap().signal(), Some(9));
    assert!(started.elapsed() >= 2 * STEP);
}

#[tokio::test]
async fn dropping_the_transport_kills_and_reaps_the_child() {
    let transport = ChildProcessTransport::builder("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let pid = nix::unistd::Pid::from_raw(i32::try_from(transport.pid().unwrap()).unwrap());
    drop(transport);
    // Gone, zombie included: signal 0 fails once the process has been reaped.
    within(async {
        while nix::sys::signal::kill(pid, None).is_ok() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

#[tokio::test]
async fn the_connection_is_described_as_a_pipe() {
    let mut transport = sh("cat >/dev/null").spawn().unwrap();
    let info = transport.connection_info();
    assert_eq!(info.network_transport, Some("pipe"));
    assert_eq!((info.client_address, info.server_address), (None, None));
    assert!(info.session_id.is_none());
    within(transport.close()).await.unwrap();
}
