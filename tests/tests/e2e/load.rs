//! Load: every request of a burst is answered, exactly once, by `everything-server` over stdio
//! and by an `mcp-server` over the in-memory pair. Past its concurrency limit the engine
//! stops reading (backpressure) instead of refusing or dropping replies.
//!
//! - a raw client pipelines 10,000 `ping`s, then 3,000 `tools/call`s, into the server's
//!   stdin, and starts reading its stdout only after a while;
//! - our `mcp-client` makes 5,000 concurrent `tools/call`s, over stdio and over the pair.

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use futures::StreamExt as _;
use futures::stream::FuturesUnordered;
use mcp_client::Client;
use mcp_server::{Server, Tool};
use mcp_transport_stdio::{ChildProcessTransport, StderrSink};
use mcp_types::CallToolRequestParams;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, BufWriter};
use tokio::process::{ChildStdin, ChildStdout, Command};

use crate::support::bins::everything_server;

/// A failure guard only: how long the raw client waits for the next line before it declares
/// the rest of the burst unanswered. Generous, for a loaded two-core machine.
const IDLE: Duration = Duration::from_secs(60);

/// How long the raw client writes before it starts reading.
const READER_DELAY: Duration = Duration::from_millis(500);

/// A failure guard only: the request timeout of our client in the concurrent runs.
const CALL_TIMEOUT: Duration = Duration::from_secs(600);

/// The text `test_simple_text` answers with.
const SIMPLE_TEXT: &str = "This is a simple text response for testing.";

/// `everything-server` with its stdin and stdout piped, after the initialize handshake.
struct Raw {
    child: tokio::process::Child,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Raw {
    async fn start() -> Raw {
        let mut child = Command::new(everything_server())
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawning everything-server");
        let stdin = BufWriter::new(child.stdin.take().expect("piped stdin"));
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut raw = Raw {
            child,
            stdin,
            stdout,
        };
        let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "load-test", "version": "1.0.0"},
        }});
        raw.write_line(&init).await;
        raw.stdin.flush().await.expect("flush");
        let answer = raw.read_line().await.expect("an initialize response");
        assert_eq!(answer["id"], "init", "{answer}");
        assert!(answer["result"].is_object(), "{answer}");
        raw.write_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        raw.stdin.flush().await.expect("flush");
        raw
    }

    async fn write_line(&mut self, value: &Value) {
        let mut line = value.to_string().into_bytes();
        line.push(b'\n');
        self.stdin.write_all(&line).await.expect("writing to stdin");
    }

    /// The next line of stdout as JSON; `None` at the end of the stream or after [`IDLE`].
    async fn read_line(&mut self) -> Option<Value> {
        let mut line = String::new();
        match tokio::time::timeout(IDLE, self.stdout.read_line(&mut line)).await {
            Ok(Ok(0)) | Err(_) => None,
            Ok(Ok(_)) => Some(serde_json::from_str(&line).expect("stdout is JSON")),
            Ok(Err(e)) => panic!("reading stdout: {e}"),
        }
    }

    /// Writes `requests` (ids 0..n) while reading the answers; returns how many answers each
    /// id got and the answers that were errors.
    async fn burst(&mut self, requests: Vec<Value>) -> (HashMap<u64, usize>, Vec<Value>) {
        let n = requests.len();
        let Raw { stdin, stdout, .. } = self;
        let write = async {
            for request in &requests {
                let mut line = request.to_string().into_bytes();
                line.push(b'\n');
                stdin.write_all(&line).await.expect("writing to stdin");
            }
            stdin.flush().await.expect("flush");
        };
        let read = async {
            // A client slow to start reading: the server's answers back up meanwhile, and
            // it must stop reading rather than refuse or drop anything.
            tokio::time::sleep(READER_DELAY).await;
            let mut answers: HashMap<u64, usize> = HashMap::new();
            let mut errors = Vec::new();
            let mut total = 0;
            let mut line = String::new();
            while total < n {
                line.clear();
                match tokio::time::timeout(IDLE, stdout.read_line(&mut line)).await {
                    Ok(Ok(0)) | Err(_) => break,
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => panic!("reading stdout: {e}"),
                }
                let answer: Value = serde_json::from_str(&line).expect("stdout is JSON");
                let Some(id) = answer["id"].as_u64() else {
                    // Not an answer to the burst (a notification, say).
                    continue;
                };
                if answer.get("error").is_some() {
                    errors.push(answer);
                }
                *answers.entry(id).or_default() += 1;
                total += 1;
            }
            (answers, errors)
        };
        let ((), outcome) = tokio::join!(write, read);
        outcome
    }

    async fn finish(mut self) {
        drop(self.stdin);
        let status = tokio::time::timeout(IDLE, self.child.wait())
            .await
            .expect("the server exits when its stdin closes")
            .expect("waiting for the server");
        assert!(status.success(), "{status}");
    }
}

/// Fails unless each of `n` ids got exactly one answer, and none of them an error.
fn assert_all_answered_once(what: &str, n: u64, answers: &HashMap<u64, usize>, errors: &[Value]) {
    let unanswered = (0..n).filter(|id| !answers.contains_key(id)).count();
    let repeated = answers.values().filter(|&&count| count > 1).count();
    assert!(
        unanswered == 0 && repeated == 0 && errors.is_empty(),
        "{what}: {unanswered} of {n} unanswered, {repeated} answered more than once, {} errors \
         (first: {:?})",
        errors.len(),
        errors.first(),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipelined_burst_over_stdio_is_answered_exactly_once() {
    let mut raw = Raw::start().await;

    let pings: Vec<Value> = (0..10_000u64)
        .map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
        .collect();
    let (answers, errors) = raw.burst(pings).await;
    assert_all_answered_once("10,000 pings", 10_000, &answers, &errors);

    let calls: Vec<Value> = (0..3_000u64)
        .map(|id| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "test_simple_text", "arguments": {}}})
        })
        .collect();
    let (answers, errors) = raw.burst(calls).await;
    assert_all_answered_once("3,000 tools/call", 3_000, &answers, &errors);

    raw.finish().await;
}

/// What became of a set of calls that should all have succeeded.
#[derive(Debug, Default, PartialEq)]
struct Failures {
    /// Calls the server refused (any JSON-RPC error).
    refused: usize,
    /// Calls whose answer never came (lost replies).
    timed_out: usize,
    /// Calls that failed otherwise, or answered something unexpected.
    other: usize,
    /// The first failure, to show.
    first: Option<String>,
}

/// Makes `n` concurrent `tools/call`s of `tool`, which answers `text`; returns what failed.
async fn concurrent_calls(client: &Client, n: usize, tool: &str, text: &str) -> Failures {
    let mut calls: FuturesUnordered<_> = (0..n)
        .map(|_| client.call_tool(CallToolRequestParams::new(tool)))
        .collect();
    let mut failures = Failures::default();
    while let Some(result) = calls.next().await {
        let problem = match result {
            Ok(result) if result.content.first().and_then(|c| c.as_text()) == Some(text) => {
                continue;
            }
            Ok(result) => {
                failures.other += 1;
                format!("unexpected result {result:?}")
            }
            Err(e) => {
                match e {
                    mcp_client::Error::Rpc(_) => failures.refused += 1,
                    mcp_client::Error::Timeout(_) => failures.timed_out += 1,
                    _ => failures.other += 1,
                }
                e.to_string()
            }
        };
        failures.first.get_or_insert(problem);
    }
    failures
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_thousand_concurrent_calls_over_stdio_are_all_answered() {
    let transport = ChildProcessTransport::builder(everything_server())
        .env("RUST_LOG", "warn")
        .stderr(StderrSink::Discard)
        .spawn()
        .expect("spawning everything-server");
    let process = transport.handle();
    let (client, connection) = Client::builder()
        .request_timeout(Some(CALL_TIMEOUT))
        .connect(transport)
        .await
        .expect("connecting");
    let connection = tokio::spawn(connection);

    let failures = concurrent_calls(&client, 5_000, "test_simple_text", SIMPLE_TEXT).await;
    assert_eq!(failures, Failures::default(), "of 5,000 calls");

    client.close();
    connection
        .await
        .expect("the connection task")
        .expect("a clean end");
    tokio::time::timeout(IDLE, process.exited())
        .await
        .expect("the server exits");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_thousand_concurrent_calls_over_the_memory_pair_are_all_answered() {
    let server = Server::builder()
        .tool(Tool::new("hello", || async { "hello" }))
        .build();
    let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
    let serving = tokio::spawn(async move { server.serve(server_end).await });
    let (client, connection) = Client::builder()
        .request_timeout(Some(CALL_TIMEOUT))
        .connect(client_end)
        .await
        .expect("connecting");
    let connection = tokio::spawn(connection);

    let failures = concurrent_calls(&client, 5_000, "hello", "hello").await;
    assert_eq!(failures, Failures::default(), "of 5,000 calls");

    client.close();
    connection
        .await
        .expect("the connection task")
        .expect("a clean end");
    serving
        .await
        .expect("the server task")
        .expect("the server ends cleanly");
}
