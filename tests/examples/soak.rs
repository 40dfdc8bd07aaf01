//! Soak: many clients against `everything-server` under mixed load for a while, watching the
//! server's memory and open files and counting every call that was lost or answered wrongly.
//!
//! ```text
//! cargo run -p e2e --example soak -- --server target/debug/everything-server \
//!     [--minutes M | --seconds S] [--sessions N] [--stdio N] [--sample-every S]
//! ```
//! (`cargo xtask soak` builds the server and runs this.)
//!
//! Load, until the time is up:
//! - `--sessions` (default 1,000) Streamable HTTP sessions of the handshake era on one
//!   `everything-server --http` process (`--max-connections 4096`: each session keeps its GET
//!   stream open), each looping over a mix with a pause of 0.5 to 2 s:
//!   `greet` with a fresh token (the answer must carry it: a crossed or duplicated reply
//!   shows), `test_tool_with_progress` (its progress must arrive), `slow_compute` dropped
//!   after 100 ms (a cancellation), `test_reconnection` (the server closes the call's SSE
//!   stream and the client resumes it with `Last-Event-ID`), and now and then a reconnect (the
//!   session closed, a new one opened);
//! - `--stdio` (default 4) stdio servers, each driven by a client looping on `greet`; every
//!   20 s one is killed mid-call (its calls must fail, not hang) and started again.
//!
//! Every call has a 30 s limit: one that neither answers nor fails in that time is *lost*.
//! Every `--sample-every` seconds (default 10) the HTTP server's RSS and open files are read
//! from `/proc`. The report (markdown, on stdout) has the samples and the counts; the exit
//! status is 1 if a call was lost or answered wrongly, or if RSS or open files did not stay
//! flat once warmed up (the last sample above the first after warm-up by more than 25 % and
//! 16 MiB of RSS, or 64 files).

// A command-line tool: its report goes to stdout, its progress to stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use mcp_client::{CallOptions, Client, EraChoice};
use mcp_transport_http::client::StreamableHttpClientTransport;
use mcp_transport_stdio::{ChildProcessTransport, StderrSink};
use mcp_types::{CallToolRequestParams, JsonObject};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, BufReader};

/// A call that takes longer than this is lost.
const CALL_LIMIT: Duration = Duration::from_secs(30);

struct Options {
    server: String,
    duration: Duration,
    sessions: usize,
    stdio: usize,
    sample_every: Duration,
}

fn options() -> Result<Options> {
    let mut args = std::env::args().skip(1);
    let mut server = None;
    let mut duration = Duration::from_secs(60);
    let mut sessions = 1000;
    let mut stdio = 4;
    let mut sample_every = Duration::from_secs(10);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--server" => server = Some(value()?),
            "--minutes" => duration = Duration::from_secs(value()?.parse::<u64>()? * 60),
            "--seconds" => duration = Duration::from_secs(value()?.parse()?),
            "--sessions" => sessions = value()?.parse()?,
            "--stdio" => stdio = value()?.parse()?,
            "--sample-every" => sample_every = Duration::from_secs(value()?.parse()?),
            other => bail!("unknown argument {other}"),
        }
    }
    Ok(Options {
        server: server.context("--server <path to everything-server> is required")?,
        duration,
        sessions,
        stdio,
        sample_every,
    })
}

/// What happened to the calls.
#[derive(Default)]
struct Counts {
    answered: AtomicU64,
    /// Failed with an error, as expected (a cancelled call, a killed server).
    failed_as_expected: AtomicU64,
    /// Failed with an error nothing explains.
    failed: AtomicU64,
    /// Neither answered nor failed within [`CALL_LIMIT`].
    lost: AtomicU64,
    /// Answered with someone else's answer, or without what it must carry.
    wrong: AtomicU64,
    cancelled: AtomicU64,
    resumed: AtomicU64,
    progress: AtomicU64,
    reconnects: AtomicU64,
    kills: AtomicU64,
    /// Sessions that could not be opened (the server refused: a quota).
    refused_sessions: AtomicU64,
}

fn add(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

fn get(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed)
}

fn args(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// A small pseudo-random number (xorshift), enough to vary the mix.
fn next_random(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// One `greet` with a fresh token: answered with the token, or counted.
async fn greet(client: &Client, token: &str, counts: &Counts, expect_failure: bool) {
    let params = CallToolRequestParams::with_arguments("greet", args(json!({"name": token})));
    match tokio::time::timeout(CALL_LIMIT, client.call_tool(params)).await {
        Err(_) => add(&counts.lost),
        Ok(Ok(result)) => {
            let expected = format!("Hello, {token}!");
            if result.content.first().and_then(|c| c.as_text()) == Some(expected.as_str()) {
                add(&counts.answered);
            } else {
                add(&counts.wrong);
            }
        }
        Ok(Err(_)) if expect_failure => add(&counts.failed_as_expected),
        Ok(Err(e)) => {
            tracing_line(&format!("greet {token} failed: {e}"));
            add(&counts.failed);
        }
    }
}

fn tracing_line(line: &str) {
    eprintln!("soak: {line}");
}

/// One HTTP session's loop. `http` is shared by every session (as one client host would):
/// building a reqwest client per session costs more CPU than the load itself.
async fn http_worker(
    http: reqwest::Client,
    url: String,
    seed: u64,
    deadline: Instant,
    counts: Arc<Counts>,
) {
    let mut random = seed | 1;
    let mut serial = 0u64;
    'sessions: while Instant::now() < deadline {
        let transport = StreamableHttpClientTransport::builder(url.clone())
            .client(http.clone())
            .build();
        let Ok(transport) = transport else {
            add(&counts.refused_sessions);
            return;
        };
        let connect = Client::builder()
            .era(EraChoice::Legacy)
            .request_timeout(Some(CALL_LIMIT))
            .connect(transport);
        let (client, connection) = match tokio::time::timeout(CALL_LIMIT, connect).await {
            Ok(Ok(connected)) => connected,
            Ok(Err(_)) => {
                add(&counts.refused_sessions);
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
            Err(_) => {
                add(&counts.lost);
                continue;
            }
        };
        let connection = tokio::spawn(connection);
        // 20 to 60 operations per session, then a reconnect.
        let operations = 20 + next_random(&mut random) % 40;
        for _ in 0..operations {
            let pause = 500 + next_random(&mut random) % 1500;
            tokio::time::sleep(Duration::from_millis(pause)).await;
            if Instant::now() >= deadline {
                client.close();
                let _ = connection.await;
                break 'sessions;
            }
            serial += 1;
            match next_random(&mut random) % 10 {
                0..=5 => greet(&client, &format!("h{seed}-{serial}"), &counts, false).await,
                6 | 7 => progress_call(&client, &counts).await,
                8 => {
                    // Dropped after 100 ms: cancelled on the wire.
                    let params = CallToolRequestParams::with_arguments(
                        "slow_compute",
                        args(json!({"seconds": 5})),
                    );
                    let dropped =
                        tokio::time::timeout(Duration::from_millis(100), client.call_tool(params));
                    if dropped.await.is_err() {
                        add(&counts.cancelled);
                    } else {
                        add(&counts.wrong);
                    }
                }
                _ => {
                    let call = client.call_tool(CallToolRequestParams::new("test_reconnection"));
                    match tokio::time::timeout(CALL_LIMIT, call).await {
                        Ok(Ok(result)) if !result.is_error() => add(&counts.resumed),
                        Ok(Ok(_)) => add(&counts.wrong),
                        Ok(Err(e)) => {
                            tracing_line(&format!("test_reconnection failed: {e}"));
                            add(&counts.failed);
                        }
                        Err(_) => add(&counts.lost),
                    }
                }
            }
        }
        add(&counts.reconnects);
        client.close();
        let _ = connection.await;
    }
}

/// `test_tool_with_progress`: answered, with its progress.
async fn progress_call(client: &Client, counts: &Counts) {
    let (mut progress, call) = client.call_tool_with_progress(
        CallToolRequestParams::new("test_tool_with_progress"),
        CallOptions::default(),
    );
    match tokio::time::timeout(CALL_LIMIT, call).await {
        Err(_) => add(&counts.lost),
        Ok(Ok(_)) => {
            let mut seen = 0;
            while progress.try_recv().is_ok() {
                seen += 1;
            }
            if seen > 0 {
                add(&counts.answered);
                counts.progress.fetch_add(seen, Ordering::Relaxed);
            } else {
                add(&counts.wrong);
            }
        }
        Ok(Err(e)) => {
            tracing_line(&format!("test_tool_with_progress failed: {e}"));
            add(&counts.failed);
        }
    }
}

/// One stdio server after another, driven by a client; killed now and then.
async fn stdio_worker(server: String, index: usize, deadline: Instant, counts: Arc<Counts>) {
    let mut serial = 0u64;
    let mut generation = 0u64;
    while Instant::now() < deadline {
        generation += 1;
        let transport = match ChildProcessTransport::builder(&server)
            .arg("--tasks")
            .stderr(StderrSink::Discard)
            .spawn()
        {
            Ok(transport) => transport,
            Err(e) => {
                tracing_line(&format!("spawning {server}: {e}"));
                add(&counts.failed);
                return;
            }
        };
        let pid = transport.pid();
        let connect = Client::builder()
            .era(EraChoice::Legacy)
            .request_timeout(Some(CALL_LIMIT))
            .connect(transport);
        let Ok(Ok((client, connection))) = tokio::time::timeout(CALL_LIMIT, connect).await else {
            add(&counts.failed);
            continue;
        };
        let connection = tokio::spawn(connection);
        // Killed after 20 s (staggered), mid-call.
        let kill_at =
            Instant::now() + Duration::from_secs(20) + Duration::from_millis(index as u64 * 700);
        let mut killed = false;
        while Instant::now() < deadline {
            serial += 1;
            if !killed && Instant::now() >= kill_at {
                if let Some(pid) = pid {
                    let _ = std::process::Command::new("kill")
                        .args(["-9", &pid.to_string()])
                        .status();
                    add(&counts.kills);
                }
                killed = true;
            }
            let token = format!("s{index}-{generation}-{serial}");
            greet(&client, &token, &counts, killed).await;
            if killed {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        client.close();
        let _ = connection.await;
    }
}

/// The HTTP server's RSS in KiB and its open files.
fn sample(pid: u32) -> Option<(u64, usize)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())?;
    let files = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count();
    Some((rss, files))
}

#[tokio::main]
async fn main() -> Result<()> {
    let options = options()?;
    let mut server = tokio::process::Command::new(&options.server)
        // 1,000 sessions hold 1,000 GET streams, and calls come on other connections.
        .args([
            "--tasks",
            "--http",
            "127.0.0.1:0",
            "--max-connections",
            "4096",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("starting {}", options.server))?;
    let pid = server.id().context("the server's pid")?;
    let mut lines = BufReader::new(server.stderr.take().context("stderr")?).lines();
    let url = loop {
        let line = lines
            .next_line()
            .await?
            .context("the server ended before listening")?;
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest.trim().to_owned();
        }
    };
    // Keep reading the server's log, so that it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });

    let started = Instant::now();
    let deadline = started + options.duration;
    let counts = Arc::new(Counts::default());
    let mut workers = Vec::new();
    let http = reqwest::Client::builder().tcp_nodelay(true).build()?;
    for i in 0..options.sessions {
        let (http, url, counts) = (http.clone(), url.clone(), counts.clone());
        // Sessions open over the first 10 s, not all at once.
        let delay = Duration::from_millis((i as u64 * 10_000) / options.sessions.max(1) as u64);
        workers.push(tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let seed = 0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1);
            http_worker(http, url, seed, deadline, counts).await;
        }));
    }
    for i in 0..options.stdio {
        let (server, counts) = (options.server.clone(), counts.clone());
        workers.push(tokio::spawn(stdio_worker(server, i, deadline, counts)));
    }

    let mut samples = Vec::new();
    while Instant::now() < deadline {
        tokio::time::sleep(options.sample_every.min(deadline - Instant::now())).await;
        if let Some((rss, files)) = sample(pid) {
            samples.push((
                started.elapsed().as_secs(),
                rss,
                files,
                get(&counts.answered),
            ));
            eprintln!(
                "soak: t={}s rss={} KiB files={files} answered={}",
                started.elapsed().as_secs(),
                rss,
                get(&counts.answered)
            );
        }
    }
    for worker in workers {
        let _ = tokio::time::timeout(CALL_LIMIT * 2, worker).await;
    }
    let after = sample(pid);
    server.kill().await.ok();

    println!("# Soak report\n");
    println!(
        "{} s, {} HTTP sessions at a time, {} stdio servers; server `{}`\n",
        options.duration.as_secs(),
        options.sessions,
        options.stdio,
        options.server
    );
    println!("| t (s) | server RSS (MiB) | open files | calls answered |");
    println!("|---:|---:|---:|---:|");
    for (t, rss, files, answered) in &samples {
        println!(
            "| {t} | {:.1} | {files} | {answered} |",
            *rss as f64 / 1024.0
        );
    }
    if let Some((rss, files)) = after {
        println!(
            "| after | {:.1} | {files} | {} |",
            rss as f64 / 1024.0,
            get(&counts.answered)
        );
    }
    println!();
    let rows = [
        ("answered", &counts.answered),
        ("cancelled (dropped on purpose)", &counts.cancelled),
        (
            "resumed after the server closed the stream",
            &counts.resumed,
        ),
        ("progress notifications", &counts.progress),
        ("sessions closed and reopened", &counts.reconnects),
        ("stdio servers killed", &counts.kills),
        (
            "failed as expected (killed server)",
            &counts.failed_as_expected,
        ),
        ("sessions refused", &counts.refused_sessions),
        ("failed", &counts.failed),
        ("lost", &counts.lost),
        ("answered wrongly", &counts.wrong),
    ];
    for (what, counter) in rows {
        println!("- {what}: {}", get(counter));
    }

    let mut verdicts = Vec::new();
    if get(&counts.lost) > 0 || get(&counts.wrong) > 0 || get(&counts.failed) > 0 {
        verdicts.push("calls were lost, failed or answered wrongly".to_owned());
    }
    if get(&counts.answered) == 0 {
        verdicts.push("nothing was answered".to_owned());
    }
    // Warmed up once a third of the run has passed.
    let warm = samples
        .iter()
        .find(|(t, ..)| *t >= options.duration.as_secs() / 3);
    if let (Some((_, rss0, files0, _)), Some((_, rss1, files1, _))) = (warm, samples.last()) {
        if *rss1 > rss0 + (rss0 / 4).max(16 * 1024) {
            verdicts.push(format!("RSS grew from {rss0} KiB to {rss1} KiB"));
        }
        if *files1 > files0 + 64 {
            verdicts.push(format!("open files grew from {files0} to {files1}"));
        }
    }
    if verdicts.is_empty() {
        println!("\nverdict: flat and nothing lost");
        Ok(())
    } else {
        println!("\nverdict: FAILED: {}", verdicts.join("; "));
        std::process::exit(1);
    }
}
