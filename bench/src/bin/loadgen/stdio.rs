//! The stdio scenarios: a server child process driven over its stdin/stdout with blocking
//! I/O (no runtime on the load generator's side), the requests pre-serialized.

use std::io::{BufRead as _, BufReader, BufWriter, Write as _};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use mcp_bench::procfs;
use mcp_bench::wire::{self, Answer, Template};
use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;

use crate::slices::Slices;

/// A server on stdio, killed when dropped.
pub(crate) struct Child {
    process: std::process::Child,
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
    /// The last request id used (`initialize`'s is 0): a session never reuses an id, also
    /// across the runs (slices) a server takes part in.
    last_id: u64,
}

impl Child {
    /// Starts `command` (program and arguments) with `--stdio`, stderr discarded.
    pub(crate) fn spawn(command: &[String]) -> Result<Self> {
        Self::spawn_with_env(command, &[])
    }

    /// [`Child::spawn`], with `env` added to the environment.
    pub(crate) fn spawn_with_env(command: &[String], env: &[(&str, String)]) -> Result<Self> {
        let (program, args) = command.split_first().context("empty server command")?;
        let mut process = Command::new(program)
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .arg("--stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {program}"))?;
        let stdin = process.stdin.take().context("no stdin")?;
        let stdout = process.stdout.take().context("no stdout")?;
        Ok(Self {
            process,
            stdin: Some(BufWriter::with_capacity(1 << 16, stdin)),
            stdout: BufReader::with_capacity(1 << 16, stdout),
            line: Vec::new(),
            last_id: 0,
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.process.id()
    }

    /// The id of the next request.
    pub(crate) fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }

    fn stdin(&mut self) -> &mut BufWriter<ChildStdin> {
        self.stdin
            .as_mut()
            .unwrap_or_else(|| unreachable!("stdin taken"))
    }

    /// Writes one message and a newline, and flushes.
    pub(crate) fn send(&mut self, message: &[u8]) -> Result<()> {
        let stdin = self.stdin();
        stdin.write_all(message)?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        Ok(())
    }

    /// The next non-empty line.
    pub(crate) fn read(&mut self) -> Result<&[u8]> {
        read_line(&mut self.stdout, &mut self.line)?;
        Ok(self.line.trim_ascii())
    }

    /// Sends a request and waits for its response, skipping notifications; checks it.
    pub(crate) fn call(&mut self, request: &[u8], id: u64, expect: &[u8]) -> Result<()> {
        self.send(request)?;
        self.response(id, expect)
    }

    fn response(&mut self, id: u64, expect: &[u8]) -> Result<()> {
        self.response_message(id, expect).map(|_| ())
    }

    /// The response to request `id`, checked.
    fn response_message(&mut self, id: u64, expect: &[u8]) -> Result<&[u8]> {
        loop {
            read_line(&mut self.stdout, &mut self.line)?;
            let message = self.line.trim_ascii();
            if wire::classify(message) != Answer::Notification {
                wire::check(message, id, expect).map_err(anyhow::Error::msg)?;
                return Ok(self.line.trim_ascii());
            }
        }
    }

    /// Lists every tool, following `nextCursor`; the number of pages and of tools.
    pub(crate) fn list_all_tools(&mut self) -> Result<(usize, usize)> {
        let (mut pages, mut tools) = (0, 0);
        let mut cursor: Option<String> = None;
        loop {
            let request = match &cursor {
                None => wire::tools_list(),
                Some(cursor) => wire::Template::new(
                    "tools/list",
                    Some(&format!(
                        r#"{{"cursor":{}}}"#,
                        serde_json::to_string(cursor)?
                    )),
                ),
            };
            let id = self.next_id();
            self.send(&request.bytes(id))?;
            let message = self.response_message(id, b"")?;
            let page = wire::tools_page(message).map_err(anyhow::Error::msg)?;
            pages += 1;
            tools += page.0;
            match page.1 {
                Some(next) => cursor = Some(next),
                None => return Ok((pages, tools)),
            }
        }
    }

    /// `initialize` (id 0) and `notifications/initialized`.
    pub(crate) fn handshake(&mut self) -> Result<()> {
        self.call(&wire::initialize().bytes(0), 0, b"")?;
        self.send(wire::INITIALIZED)
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

fn read_line(input: &mut BufReader<ChildStdout>, line: &mut Vec<u8>) -> Result<()> {
    loop {
        line.clear();
        if input.read_until(b'\n', line)? == 0 {
            bail!("the server closed its stdout");
        }
        if !line.trim_ascii().is_empty() {
            return Ok(());
        }
    }
}

/// Pins the calling thread (and so the children it spawns from now on) to `cpu`; the
/// returned guard restores the previous affinity.
pub(crate) fn pin(cpu: usize) -> Result<Pinned> {
    let before = sched_getaffinity(Pid::from_raw(0))?;
    let mut only = CpuSet::new();
    only.set(cpu)?;
    sched_setaffinity(Pid::from_raw(0), &only).with_context(|| format!("pinning to CPU {cpu}"))?;
    Ok(Pinned(before))
}

pub(crate) struct Pinned(CpuSet);

impl Drop for Pinned {
    fn drop(&mut self) {
        let _ = sched_setaffinity(Pid::from_raw(0), &self.0);
    }
}

/// What a sequential run measured, or the sum of several (the slices of a scenario).
#[derive(Default)]
pub(crate) struct Sequential {
    /// Of the measured calls (at least 3 per run), in ns.
    pub(crate) latencies: Vec<u64>,
    /// The server's CPU time over the measured calls (`/proc`), in ns: beside the latency,
    /// how much of the calls the server spent working rather than waiting.
    server_cpu_ns: u64,
}

impl Sequential {
    pub(crate) fn server_cpu_ns_per_call(&self) -> f64 {
        self.server_cpu_ns as f64 / self.latencies.len().max(1) as f64
    }
}

impl Slices for Sequential {
    fn absorb(&mut self, slice: Sequential) {
        self.latencies.extend(slice.latencies);
        self.server_cpu_ns += slice.server_cpu_ns;
    }
}

/// Calls `request` one at a time for `warmup`, then for `duration`.
pub(crate) fn sequential(
    child: &mut Child,
    request: &Template,
    expect: &[u8],
    warmup: Duration,
    duration: Duration,
) -> Result<Sequential> {
    let mut bytes = Vec::new();
    let warm_end = Instant::now() + warmup;
    while Instant::now() < warm_end {
        let id = child.next_id();
        bytes.clear();
        request.write(id, &mut bytes);
        child.call(&bytes, id, expect)?;
    }
    let mut latencies = Vec::new();
    let cpu_start = procfs::cpu_ns(child.pid())?;
    let start = Instant::now();
    while start.elapsed() < duration || latencies.len() < 3 {
        let id = child.next_id();
        bytes.clear();
        request.write(id, &mut bytes);
        let sent = Instant::now();
        child.call(&bytes, id, expect)?;
        latencies.push(sent.elapsed().as_nanos() as u64);
    }
    let server_cpu_ns = procfs::cpu_ns(child.pid())?.saturating_sub(cpu_start);
    Ok(Sequential {
        latencies,
        server_cpu_ns,
    })
}

/// Lists all tools (following `nextCursor`) one listing at a time for `warmup`, then for
/// `duration`; the latencies (ns) of the measured listings (at least 3) and the pages of
/// one listing. Fails unless each listing yields `expect_tools` tools.
pub(crate) fn list_tools(
    child: &mut Child,
    expect_tools: usize,
    warmup: Duration,
    duration: Duration,
) -> Result<(Vec<u64>, usize)> {
    let mut pages = 0;
    let mut latencies = Vec::new();
    let warm_end = Instant::now() + warmup;
    let mut start = None;
    loop {
        let now = Instant::now();
        if now >= warm_end {
            let start = *start.get_or_insert(now);
            if start.elapsed() >= duration && latencies.len() >= 3 {
                return Ok((latencies, pages));
            }
        }
        let (got_pages, tools) = child.list_all_tools()?;
        if tools != expect_tools {
            bail!("listed {tools} tools, expected {expect_tools}");
        }
        pages = got_pages;
        if now >= warm_end {
            latencies.push(now.elapsed().as_nanos() as u64);
        }
    }
}

/// What a pipelined run measured, or the sum of several (the slices of a scenario).
#[derive(Default)]
pub(crate) struct Pipelined {
    /// The calls answered in the measured window.
    calls: u64,
    /// How long the window was.
    measured: Duration,
    /// The server's CPU time in the window, in ns.
    server_cpu_ns: u64,
    /// Of the calls answered in the window, in ns.
    pub(crate) latencies: Vec<u64>,
}

impl Pipelined {
    pub(crate) fn calls_per_second(&self) -> f64 {
        self.calls as f64 / self.measured.as_secs_f64()
    }

    pub(crate) fn server_cpu_ns_per_call(&self) -> f64 {
        self.server_cpu_ns as f64 / self.calls.max(1) as f64
    }
}

impl Slices for Pipelined {
    fn absorb(&mut self, slice: Pipelined) {
        self.calls += slice.calls;
        self.measured += slice.measured;
        self.server_cpu_ns += slice.server_cpu_ns;
        self.latencies.extend(slice.latencies);
    }
}

/// Slots for send times, indexed by id; more than the calls ever in flight.
const SLOTS: usize = 4096;

/// Keeps `in_flight` echo calls outstanding (a writer thread sends one whenever a response
/// arrives) for `warmup`, then for `duration`, then waits for the calls still outstanding;
/// calls/s, latencies and server CPU per call over the measured window.
pub(crate) fn pipelined(
    child: &mut Child,
    in_flight: usize,
    warmup: Duration,
    duration: Duration,
) -> Result<Pipelined> {
    assert!(in_flight < SLOTS);
    let pid = child.pid();
    let base = Instant::now();
    let sent_at: Arc<Vec<AtomicU64>> = Arc::new((0..SLOTS).map(|_| AtomicU64::new(0)).collect());
    let (credits, credit_rx) = mpsc::channel::<bool>();
    let mut stdin = child.stdin.take().context("no stdin")?;
    let writer_sent_at = sent_at.clone();
    let first_id = child.last_id + 1;
    let writer = std::thread::spawn(move || -> Result<(BufWriter<ChildStdin>, u64)> {
        let request = wire::echo();
        let mut id = first_id;
        let mut bytes = Vec::new();
        while let Ok(true) = credit_rx.recv() {
            let mut more = true;
            while more {
                bytes.clear();
                request.write(id, &mut bytes);
                bytes.push(b'\n');
                let now = base.elapsed().as_nanos() as u64;
                writer_sent_at[id as usize % SLOTS].store(now, Ordering::Relaxed);
                stdin.write_all(&bytes)?;
                id += 1;
                more = matches!(credit_rx.try_recv(), Ok(true));
            }
            stdin.flush()?;
        }
        Ok((stdin, id - 1))
    });
    for _ in 0..in_flight {
        let _ = credits.send(true);
    }
    let expect = format!("\"{}\"", wire::ECHO_TEXT).into_bytes();
    let (warm_end, end) = (warmup, warmup + duration);
    let mut outstanding = in_flight;
    let mut window: Option<(Duration, u64)> = None;
    let mut measured = None;
    let mut latencies = Vec::new();
    let mut done = 0u64;
    let mut failure = None;
    while outstanding > 0 {
        let message = match child.read() {
            Ok(m) => m,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        let id = match wire::classify(message) {
            Answer::Result(id) => id,
            Answer::Notification => continue,
            Answer::Other(text) => {
                failure = Some(anyhow::anyhow!(text));
                break;
            }
        };
        if let Err(e) = wire::check(message, id, &expect) {
            failure = Some(anyhow::anyhow!(e));
            break;
        }
        let now = base.elapsed();
        let sent = Duration::from_nanos(sent_at[id as usize % SLOTS].load(Ordering::Relaxed));
        if now >= warm_end && window.is_none() {
            window = Some((now, procfs::cpu_ns(pid)?));
        }
        if window.is_some() && measured.is_none() {
            latencies.push(now.saturating_sub(sent).as_nanos() as u64);
            done += 1;
        }
        if now >= end && measured.is_none() {
            measured = Some((now, procfs::cpu_ns(pid)?, done));
        }
        if measured.is_none() {
            let _ = credits.send(true);
        } else {
            outstanding -= 1;
        }
    }
    let _ = credits.send(false);
    drop(credits);
    let written = writer
        .join()
        .map_err(|_| anyhow::anyhow!("the writer panicked"))?;
    // A failed read first: the writer's error is then most likely its consequence.
    if let Some(e) = failure {
        return Err(e);
    }
    let (stdin, last_id) = written?;
    child.stdin = Some(stdin);
    child.last_id = last_id;
    let ((start, cpu_start), Some((stop, cpu_stop, calls))) =
        (window.context("no call completed")?, measured)
    else {
        bail!("the run ended early");
    };
    Ok(Pipelined {
        calls,
        measured: stop - start,
        server_cpu_ns: cpu_stop.saturating_sub(cpu_start),
        latencies,
    })
}

/// Starts `command` and waits for its answer to `initialize`: the span in ns.
pub(crate) fn spawn_to_initialize(command: &[String]) -> Result<u64> {
    let request = wire::initialize().bytes(0);
    let start = Instant::now();
    let mut child = Child::spawn(command)?;
    child.call(&request, 0, b"")?;
    Ok(start.elapsed().as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_add_up_to_rates_over_their_whole_window() {
        let mut pipelined = Pipelined::default();
        for (calls, ms, cpu_ns) in [(100, 250, 200_000), (300, 250, 400_000)] {
            pipelined.absorb(Pipelined {
                calls,
                measured: Duration::from_millis(ms),
                server_cpu_ns: cpu_ns,
                latencies: vec![1; calls as usize],
            });
        }
        assert_eq!(pipelined.calls_per_second(), 800.0);
        assert_eq!(pipelined.server_cpu_ns_per_call(), 1_500.0);
        assert_eq!(pipelined.latencies.len(), 400);

        let mut sequential = Sequential::default();
        for (calls, cpu_ns) in [(3, 30_000), (5, 10_000)] {
            sequential.absorb(Sequential {
                latencies: vec![7; calls],
                server_cpu_ns: cpu_ns,
            });
        }
        assert_eq!(sequential.server_cpu_ns_per_call(), 5_000.0);
        assert_eq!(sequential.latencies.len(), 8);
    }
}
