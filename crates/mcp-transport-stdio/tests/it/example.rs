//! The `echo` example run as a real process: `StdioTransport::stdio` on fds 0 and 1, both
//! registered with the reactor (pipes) and with the blocking fallback (regular files).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use mcp_jsonrpc::{Config, Connection, to_raw_value};
use mcp_transport_stdio::{ChildProcessTransport, ShutdownOutcome, StderrSink};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt as _;
use tokio::sync::mpsc;

use crate::common::{STEP, within};

/// The example's binary: built by `cargo test` next to this test's (`target/<profile>/examples`);
/// built here when a narrower `cargo test` skipped it.
fn echo_example() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        // target/<profile>/deps/it-<hash>
        let profile_dir = exe.parent().unwrap().parent().unwrap();
        let path = profile_dir.join("examples").join("echo");
        if !path.exists() {
            let target_dir = profile_dir.parent().unwrap();
            let status = std::process::Command::new(env!("CARGO"))
                .args(["build", "--example", "echo", "-p", env!("CARGO_PKG_NAME")])
                .env("CARGO_TARGET_DIR", target_dir)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .unwrap();
            assert!(status.success(), "building the echo example failed");
        }
        path
    })
}

/// The example with piped stdin and stdout, its stderr discarded.
fn spawn_piped() -> tokio::process::Child {
    tokio::process::Command::new(echo_example())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

#[tokio::test]
async fn the_echo_example_over_pipes() {
    let (tx, mut stderr) = mpsc::channel(64);
    let transport = ChildProcessTransport::builder(echo_example())
        .env("RUST_LOG", "mcp_transport_stdio=debug,echo=info")
        .env("NO_COLOR", "1")
        .stderr(StderrSink::Channel(tx))
        .close_timeout(STEP * 10)
        .term_timeout(STEP)
        .spawn()
        .unwrap();
    let process = transport.handle();
    let (peer, conn) = Connection::new(transport, (), Config::default());
    let run = tokio::spawn(conn.run());
    let params = to_raw_value(&json!({"hello": "pipes"})).unwrap();
    let answer = within(peer.request("echo", Some(params))).await.unwrap();
    assert_eq!(answer.get(), r#"{"hello":"pipes"}"#);
    peer.close();
    within(run).await.unwrap().unwrap();
    assert_eq!(
        process.shutdown_outcome(),
        Some(ShutdownOutcome::StdinClosed)
    );
    assert!(process.exit_status().unwrap().success());
    let mut logs = String::new();
    while let Ok(line) = stderr.try_recv() {
        logs.push_str(&line);
        logs.push('\n');
    }
    assert!(
        logs.contains("stdin is a pipe, registered with the reactor")
            && logs.contains("stdout is a pipe, registered with the reactor")
            && logs.contains("stdin closed, bye"),
        "{logs}"
    );
}

#[tokio::test]
async fn the_echo_example_answers_bad_lines_and_limits() {
    let mut child = tokio::process::Command::new(echo_example())
        .env("MAX_LINE_SIZE", "100")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut raw =
        crate::common::RawPeer::new(child.stdin.take().unwrap(), child.stdout.take().unwrap());
    raw.write(b"not json\r\n").await;
    let err = raw.value().await;
    assert_eq!(
        (err["id"].clone(), err["error"]["code"].clone()),
        (Value::Null, json!(-32700))
    );
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"echo\",\"params\":[\"{}\"]}}\n",
        "z".repeat(5000)
    );
    raw.write(big.as_bytes()).await;
    let err = raw.value().await;
    assert_eq!(
        (err["id"].clone(), err["error"]["code"].clone()),
        (json!(9), json!(-32600))
    );
    raw.write(b"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"echo\",\"params\":[1]}\n")
        .await;
    assert_eq!(
        raw.value().await,
        json!({"jsonrpc": "2.0", "id": 10, "result": [1]})
    );
    drop(raw);
    assert!(within(child.wait()).await.unwrap().success());
}

#[tokio::test]
async fn the_echo_example_exits_at_the_end_of_input_even_when_its_output_is_not_read() {
    let mut child = spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    // Nobody reads this: its answers fill the pipe (which the server widens to 1 MiB) and the
    // server's writes block.
    let _stdout = child.stdout.take().unwrap();
    for id in 0..24 {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "echo",
            "params": {"text": "z".repeat(100_000)}});
        stdin
            .write_all(format!("{request}\n").as_bytes())
            .await
            .unwrap();
    }
    drop(stdin);
    // It gives up on the unread answers after `Config::flush_timeout` (5 s) and exits.
    let status = within(child.wait()).await.unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn the_echo_example_answers_every_request_written_before_the_end_of_input() {
    let mut child = spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    // Read concurrently, so the answers never fill the pipe.
    let reader = tokio::spawn(async move {
        use tokio::io::AsyncBufReadExt as _;
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let mut ids = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            let answer: Value = serde_json::from_str(&line).unwrap();
            ids.push(answer["id"].as_u64().unwrap());
        }
        ids
    });
    // A burst far past the connection's concurrency (32) and backlog (256), then the end of
    // input at once: everything already written is still answered before the server exits.
    let mut burst = String::new();
    for id in 0..2_000 {
        burst.push_str(
            &json!({"jsonrpc": "2.0", "id": id, "method": "echo", "params": {"n": id}}).to_string(),
        );
        burst.push('\n');
    }
    stdin.write_all(burst.as_bytes()).await.unwrap();
    drop(stdin);
    let status = within(child.wait()).await.unwrap();
    assert!(status.success(), "{status}");
    let ids = within(reader).await.unwrap();
    assert_eq!(ids, (0..2_000).collect::<Vec<u64>>());
}

#[tokio::test]
async fn the_echo_example_falls_back_on_regular_files() {
    let dir = std::env::temp_dir().join(format!("mcp-stdio-it-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.jsonl");
    let output = dir.join("out.jsonl");
    let logs = dir.join("err.log");
    std::fs::write(
        &input,
        concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"file\":true}}\n",
            "garbage\n",
        ),
    )
    .unwrap();
    let status = tokio::process::Command::new(echo_example())
        .env("RUST_LOG", "mcp_transport_stdio=debug")
        .env("NO_COLOR", "1")
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(std::fs::File::create(&output).unwrap())
        .stderr(std::fs::File::create(&logs).unwrap())
        .status();
    assert!(within(status).await.unwrap().success());
    let out = std::fs::read_to_string(&output).unwrap();
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines.contains(&json!({"jsonrpc": "2.0", "id": 1, "result": {"file": true}})));
    assert!(
        lines
            .iter()
            .any(|l| l["id"].is_null() && l["error"]["code"] == -32700)
    );
    let logs = std::fs::read_to_string(&logs).unwrap();
    assert!(
        logs.contains("stdin is not a pipe or a socket, using blocking reads")
            && logs.contains("stdout is not a pipe or a socket, using blocking writes"),
        "{logs}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
