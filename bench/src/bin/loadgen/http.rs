//! The HTTP scenarios: a server child process on 127.0.0.1:0, driven by closed-loop workers,
//! each with its own keep-alive HTTP/1.1 connection (hyper's client connection, TCP_NODELAY).

use std::process::{ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use bytes::Bytes;
use http::{HeaderValue, Request, StatusCode};
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use mcp_bench::procfs;
use mcp_bench::wire::{self, Template};
use tokio::net::TcpStream;

use crate::slices::{Plan, Slices};

/// How the requests are shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `initialize` once per connection, then `Mcp-Session-Id` on every request.
    Stateful,
    /// No session: every request stands alone (2025-11-25 headers).
    Stateless,
    /// Protocol revision 2026-07-28: `_meta` and `Mcp-Method`/`Mcp-Name` headers.
    Modern,
}

/// An HTTP server child process, killed when dropped.
pub(crate) struct Server {
    process: std::process::Child,
    _stdout: ChildStdout,
    pub(crate) addr: String,
}

impl Server {
    /// Starts `command` with `--http 127.0.0.1:0` and `--stateful` or `--stateless`, and reads
    /// the bound address from the first line of its stdout.
    pub(crate) fn spawn(command: &[String], stateful: bool, extra: &[&str]) -> Result<Self> {
        use std::io::BufRead as _;
        let (program, args) = command.split_first().context("empty server command")?;
        let mut process = Command::new(program)
            .args(args)
            .args(["--http", "127.0.0.1:0"])
            .arg(if stateful {
                "--stateful"
            } else {
                "--stateless"
            })
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {program}"))?;
        let stdout = process.stdout.take().context("no stdout")?;
        let mut reader = std::io::BufReader::new(stdout);
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let addr = line.trim().to_owned();
        if addr.is_empty() {
            let _ = process.kill();
            let _ = process.wait();
            bail!("{program} printed no address");
        }
        Ok(Self {
            process,
            _stdout: reader.into_inner(),
            addr,
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.process.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// One keep-alive connection and the session it opened, if any.
pub(crate) struct Conn {
    sender: SendRequest<Full<Bytes>>,
    session: Option<HeaderValue>,
    shape: Shape,
    /// The last request id this connection used: ids are never reused in a session, also
    /// across the closed loops (slices) the connection takes part in.
    last_id: u64,
}

/// Each connection numbers its requests in a range of 2^32 ids of its own.
static ID_RANGES: AtomicU64 = AtomicU64::new(1);

impl Conn {
    /// Connects; for [`Shape::Stateful`], opens a session (`initialize` with id 0, then
    /// `notifications/initialized`).
    pub(crate) async fn open(addr: &str, shape: Shape) -> Result<Self> {
        let mut conn = Self::connect(addr, shape).await?;
        if shape == Shape::Stateful {
            conn.handshake().await?;
        }
        Ok(conn)
    }

    /// Opens a stateful session on `open_addr`, then sends its requests to `send_addr` (on a
    /// connection of its own when the addresses differ: another instance, which forwards
    /// them to the one holding the session).
    pub(crate) async fn open_via(open_addr: &str, send_addr: &str) -> Result<Self> {
        let opened = Self::open(open_addr, Shape::Stateful).await?;
        if open_addr == send_addr {
            return Ok(opened);
        }
        let mut conn = Self::connect(send_addr, Shape::Stateful).await?;
        conn.session = opened.session;
        Ok(conn)
    }

    /// Connects, without opening a session.
    async fn connect(addr: &str, shape: Shape) -> Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(connection);
        Ok(Self {
            sender,
            session: None,
            shape,
            last_id: ID_RANGES.fetch_add(1, Ordering::Relaxed) << 32,
        })
    }

    async fn handshake(&mut self) -> Result<()> {
        // A new session: the initialize POST carries no session id.
        self.session = None;
        let (status, session, body, content_type) =
            self.post(wire::initialize().bytes(0), true).await?;
        if status != StatusCode::OK {
            bail!("initialize answered {status}");
        }
        let message = wire::http_message(&content_type, &body).map_err(anyhow::Error::msg)?;
        wire::check(message, 0, b"").map_err(anyhow::Error::msg)?;
        self.session = session;
        let (status, ..) = self.post(wire::INITIALIZED.to_vec(), false).await?;
        if !status.is_success() {
            bail!("notifications/initialized answered {status}");
        }
        Ok(())
    }

    async fn post(
        &mut self,
        body: Vec<u8>,
        initialize: bool,
    ) -> Result<(StatusCode, Option<HeaderValue>, Bytes, String)> {
        let mut request = Request::post("/mcp")
            .header(http::header::HOST, "127.0.0.1")
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json, text/event-stream");
        match self.shape {
            Shape::Modern => {
                for (name, value) in wire::modern_headers() {
                    request = request.header(name, value);
                }
            }
            _ if initialize => {}
            _ => request = request.header("mcp-protocol-version", wire::LEGACY_VERSION),
        }
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session.clone());
        }
        self.sender.ready().await?;
        let response = self
            .sender
            .send_request(request.body(Full::new(Bytes::from(body)))?)
            .await?;
        let status = response.status();
        let session = response.headers().get("mcp-session-id").cloned();
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let body = response.into_body().collect().await?.to_bytes();
        Ok((status, session, body, content_type))
    }

    /// One call: `request` with `id`; checks the answer holds `expect`.
    pub(crate) async fn call(&mut self, request: &Template, id: u64, expect: &[u8]) -> Result<()> {
        self.call_checked(request, id, expect, None).await
    }

    /// Like [`call`](Self::call); with `events`, the answer must be an SSE stream of that
    /// many events with data (the response last).
    async fn call_checked(
        &mut self,
        request: &Template,
        id: u64,
        expect: &[u8],
        events: Option<usize>,
    ) -> Result<()> {
        let (status, _, body, content_type) = self.post(request.bytes(id), false).await?;
        if status != StatusCode::OK {
            bail!(
                "answered {status}: {}",
                String::from_utf8_lossy(&body[..body.len().min(300)])
            );
        }
        if let Some(events) = events {
            let got = wire::sse_data(&body).count();
            if !content_type.starts_with("text/event-stream") || got != events {
                bail!("expected an SSE answer of {events} events, got {content_type} with {got}");
            }
        }
        let message = wire::http_message(&content_type, &body).map_err(anyhow::Error::msg)?;
        wire::check(message, id, expect).map_err(anyhow::Error::msg)
    }

    /// The id of this connection's next request.
    fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }

    /// Does `op` (with request id `id`).
    async fn run(&mut self, op: &Op, id: u64) -> Result<()> {
        match op {
            Op::Call {
                request,
                expect,
                events,
            } => self.call_checked(request, id, expect, *events).await,
            Op::Open => self.handshake().await,
        }
    }
}

/// What each worker of a closed loop does, again and again.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// A call of `request`, whose result must hold `expect`; with `events`, the answer
    /// must be an SSE stream of that many events.
    Call {
        request: Arc<Template>,
        expect: Arc<Vec<u8>>,
        events: Option<usize>,
    },
    /// A new session: `initialize`, then `notifications/initialized`.
    Open,
}

/// What a closed-loop run measured, or the sum of several (the slices of one, see
/// [`closed_loop`]).
#[derive(Default)]
pub(crate) struct Load {
    /// One per request answered in the measured window.
    pub(crate) latencies: Vec<u64>,
    /// How long the window was.
    measured: Duration,
    /// The CPU time of each group of processes measured (see [`run_loop`]) in the window.
    cpu_ns: Vec<u64>,
}

impl Load {
    pub(crate) fn requests_per_second(&self) -> f64 {
        self.latencies.len() as f64 / self.measured.as_secs_f64()
    }

    /// The CPU time per request of the `group`th group of processes, if it was measured.
    pub(crate) fn cpu_ns_per_request(&self, group: usize) -> Option<f64> {
        let cpu = *self.cpu_ns.get(group)?;
        Some(cpu as f64 / self.latencies.len().max(1) as f64)
    }

    /// This load, if a request was answered in its window; a run with none failed.
    fn completed(self) -> Result<Self> {
        if self.latencies.is_empty() {
            bail!("no request completed in the measured window");
        }
        Ok(self)
    }
}

impl Slices for Load {
    fn absorb(&mut self, slice: Load) {
        self.latencies.extend(slice.latencies);
        self.measured += slice.measured;
        if self.cpu_ns.len() < slice.cpu_ns.len() {
            self.cpu_ns.resize(slice.cpu_ns.len(), 0);
        }
        for (sum, cpu) in self.cpu_ns.iter_mut().zip(slice.cpu_ns) {
            *sum += cpu;
        }
    }
}

/// One server of [`closed_loop`], and what its slices measured so far (or how it failed).
pub(crate) struct Looped<'a> {
    server: &'a Server,
    conns: Vec<Conn>,
    load: Result<Load>,
}

impl<'a> Looped<'a> {
    /// `concurrency` connections to `server` (sessions, when `shape` is stateful).
    pub(crate) async fn open(server: &'a Server, shape: Shape, concurrency: usize) -> Result<Self> {
        let mut conns = Vec::with_capacity(concurrency);
        for _ in 0..concurrency {
            conns.push(Conn::open(&server.addr, shape).await?);
        }
        Ok(Self {
            server,
            conns,
            load: Ok(Load::default()),
        })
    }

    /// The sum of its slices, or the error that ended its turns (also when no slice saw a
    /// request answered).
    pub(crate) fn into_load(self) -> Result<Load> {
        self.load.and_then(Load::completed)
    }
}

/// The servers of `runs` (each with its workers' connections, beside the caller's `K` for
/// it) call `request` back to back in turns (see [`crate::slices`]): the slices of
/// `duration` ([`Plan`]), each after a warm-up of the same share of `warmup`, the servers one
/// after the other in each slice. A server whose slice fails takes no more turns; a slice in
/// which no request was answered is not a failure (the run is, when none of its slices saw
/// one: [`Looped::into_load`]).
pub(crate) async fn closed_loop<K>(
    runs: &mut [(K, Looped<'_>)],
    request: Template,
    expect: Vec<u8>,
    warmup: Duration,
    duration: Duration,
) {
    let op = Op::Call {
        request: Arc::new(request),
        expect: Arc::new(expect),
        events: None,
    };
    let plan = Plan::new(warmup, duration);
    for _ in 0..plan.count {
        for (_, run) in runs.iter_mut() {
            let Ok(load) = &mut run.load else {
                continue;
            };
            let pids = [run.server.pid()];
            match run_window(
                &mut run.conns,
                &[&pids],
                op.clone(),
                plan.warmup,
                plan.duration,
            )
            .await
            {
                Ok(slice) => load.absorb(slice),
                Err(e) => run.load = Err(e),
            }
        }
    }
}

/// How long one request of a closed loop may take before the run fails.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// One worker per connection of `conns` does `op` back to back for `warmup`, then for
/// `duration`: the latencies, and the CPU time of each group of `pids` (the sum over the
/// group's processes) over the measured window. The connections are given back in `conns`
/// when the loop succeeds. A loop in which no request was answered fails.
pub(crate) async fn run_loop(
    conns: &mut Vec<Conn>,
    pids: &[&[u32]],
    op: Op,
    warmup: Duration,
    duration: Duration,
) -> Result<Load> {
    run_window(conns, pids, op, warmup, duration)
        .await?
        .completed()
}

/// [`run_loop`], except that the load may hold no request: one slice of [`closed_loop`]
/// (whose run fails only when none of its slices saw an answer).
async fn run_window(
    conns: &mut Vec<Conn>,
    pids: &[&[u32]],
    op: Op,
    warmup: Duration,
    duration: Duration,
) -> Result<Load> {
    let start = Instant::now();
    let (measure_from, measure_to) = (start + warmup, start + warmup + duration);
    let mut workers = Vec::with_capacity(conns.len());
    for mut conn in conns.drain(..) {
        let op = op.clone();
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let id = conn.next_id();
                let sent = Instant::now();
                if sent >= measure_to {
                    return Ok::<_, anyhow::Error>((conn, latencies));
                }
                // A lost answer fails the run (it would otherwise wait for ever).
                tokio::time::timeout(ANSWER_TIMEOUT, conn.run(&op, id))
                    .await
                    .map_err(|_| {
                        anyhow::anyhow!("request {id:#x}: no answer within {ANSWER_TIMEOUT:?}")
                    })??;
                let done = Instant::now();
                if sent >= measure_from && done <= measure_to {
                    latencies.push((done - sent).as_nanos() as u64);
                }
            }
        }));
    }
    let cpu = |group: &[u32]| -> Result<u64> {
        group
            .iter()
            .map(|&pid| Ok(procfs::cpu_ns(pid)?))
            .sum::<Result<u64>>()
    };
    tokio::time::sleep_until(measure_from.into()).await;
    let cpu_start = pids.iter().map(|g| cpu(g)).collect::<Result<Vec<_>>>()?;
    tokio::time::sleep_until(measure_to.into()).await;
    let cpu_stop = pids.iter().map(|g| cpu(g)).collect::<Result<Vec<_>>>()?;
    let mut latencies = Vec::new();
    for worker in workers {
        let (conn, measured) = worker.await??;
        conns.push(conn);
        latencies.extend(measured);
    }
    Ok(Load {
        latencies,
        measured: duration,
        cpu_ns: cpu_start
            .iter()
            .zip(&cpu_stop)
            .map(|(a, b)| b.saturating_sub(*a))
            .collect(),
    })
}

/// Sequential calls of `request` on one connection for `duration` (at least 3); latencies.
pub(crate) async fn sequential(
    server: &Server,
    shape: Shape,
    request: &Template,
    expect: &[u8],
    duration: Duration,
) -> Result<Vec<u64>> {
    let mut conn = Conn::open(&server.addr, shape).await?;
    conn.call(request, 1, expect).await?;
    let mut latencies = Vec::new();
    let start = Instant::now();
    let mut id = 2;
    while start.elapsed() < duration || latencies.len() < 3 {
        let sent = Instant::now();
        conn.call(request, id, expect).await?;
        latencies.push(sent.elapsed().as_nanos() as u64);
        id += 1;
    }
    Ok(latencies)
}

/// Opens `sessions` stateful sessions (over 8 connections, after 16 warm-up sessions) and
/// keeps them; the growth of the server's resident memory per session, in KiB.
pub(crate) async fn idle_sessions(server: &Server, sessions: usize) -> Result<f64> {
    const WORKERS: usize = 8;
    let pid = server.pid();
    let mut conns = Vec::with_capacity(WORKERS);
    for _ in 0..WORKERS {
        let mut conn = Conn::open(&server.addr, Shape::Stateful).await?;
        conn.handshake().await?;
        conns.push(conn);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = procfs::vm_rss_kib(pid)?;
    let mut workers = Vec::new();
    for (i, mut conn) in conns.into_iter().enumerate() {
        let count = sessions / WORKERS + usize::from(i < sessions % WORKERS);
        workers.push(tokio::spawn(async move {
            let mut kept = Vec::with_capacity(count);
            for _ in 0..count {
                conn.handshake().await?;
                kept.extend(conn.session.clone());
            }
            Ok::<_, anyhow::Error>((conn, kept))
        }));
    }
    let mut held = Vec::new();
    for worker in workers {
        held.push(worker.await??);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = procfs::vm_rss_kib(pid)?;
    let opened: usize = held.iter().map(|(_, kept)| kept.len()).sum();
    if opened != sessions {
        bail!("{opened} of {sessions} sessions got a session id");
    }
    Ok(after.saturating_sub(before) as f64 / sessions as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_add_up_per_group_of_processes() {
        let slice = |requests: usize, cpu_ns: Vec<u64>| Load {
            latencies: vec![1; requests],
            measured: Duration::from_millis(250),
            cpu_ns,
        };
        let mut load = Load::default();
        load.absorb(slice(100, vec![1_000_000, 10_000]));
        load.absorb(slice(300, vec![3_000_000, 30_000]));
        assert_eq!(load.requests_per_second(), 800.0);
        assert_eq!(load.cpu_ns_per_request(0), Some(10_000.0));
        assert_eq!(load.cpu_ns_per_request(1), Some(100.0));
        assert_eq!(load.cpu_ns_per_request(2), None);
    }
}
