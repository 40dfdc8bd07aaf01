//! The scenarios, the report's groups and rows they fill, and the targets.

use std::cell::OnceCell;
use std::time::Duration;

use anyhow::{Context as _, Result};
use mcp_bench::report::{Impl, Results, Side, Target, Unit};
use mcp_bench::stats::latency_us;
use mcp_bench::wire;
use testkit::RedisServer;
use tokio::runtime::Runtime;

use crate::Options;
use crate::http::{self, Shape};
use crate::machine;
use crate::redis;
use crate::slices::{Plan, Slices};
use crate::stdio::{self, Child};

pub(crate) const SEQ: &str = "stdio sequential, loadgen and server pinned to one CPU";
pub(crate) const PIPE: &str = "stdio pipelined, 32 calls in flight";
/// The comparison tables of the stdio floor on tokio (`floor-stdio-async`: the same echo as
/// the floor, on a `current_thread` runtime with its pipes registered with the reactor),
/// measured in the stdio scenarios right after the floor: against the floor, what any server
/// of that design pays (an `epoll_wait` per wake-up, the runtime's turn); against ours, what
/// the SDK adds. The floor's and ours' values are those of the main tables.
pub(crate) const FLOORS: &str =
    "stdio: the floor against the same echo on tokio's reactor (what an async server pays)";
pub(crate) const OVER_ASYNC: &str =
    "stdio: the floor on tokio's reactor against ours (what the SDK adds)";
/// The comparison tables' rows.
const SEQ_P50: &str = "pinned sequential p50";
const SEQ_P99: &str = "pinned sequential p99";
const SEQ_CPU: &str = "pinned sequential server CPU per call";
const PIPE_CALLS: &str = "pipelined calls/s";
const PIPE_CPU: &str = "pipelined server CPU per call";
/// Ours is the minimal stdio server here, the one the spawn target is judged on.
const SPAWN_P50: &str = "spawn to initialize p50 (ours: the minimal stdio server)";
/// The floor on tokio's binary.
const ASYNC_FLOOR: &str = "floor-stdio-async";
pub(crate) const SPAWN: &str = "spawn to initialize result (stdio)";
/// The row of the minimal stdio servers' spawn (the one the target is judged on).
const SPAWN_MINIMAL: &str = "p50, minimal stdio server";
pub(crate) const LIST: &str = "tools/list of 1,002 tools, following nextCursor (stdio)";
pub(crate) const BLOB: &str = "1 MiB tool result (sequential)";
pub(crate) const HTTP_STATEFUL: &str = "Streamable HTTP, stateful (closed loop, c workers)";
pub(crate) const HTTP_STATELESS: &str = "Streamable HTTP, stateless (closed loop, c workers)";
pub(crate) const HTTP_MODERN: &str = "Streamable HTTP, 2026-07-28 (closed loop, c workers)";
pub(crate) const IDLE: &str = "idle stateful sessions (Streamable HTTP)";
pub(crate) const MINIMAL: &str = "minimal stdio server (one echo tool)";

/// The concurrencies of the HTTP closed loops.
const CONCURRENCY: [usize; 4] = [1, 8, 64, 256];
/// The rows of each concurrency (req/s, p50, p99, server CPU per request).
const HTTP_ROWS: [[&str; 4]; 4] = [
    [
        "c=1 req/s",
        "c=1 p50",
        "c=1 p99",
        "c=1 server CPU per request",
    ],
    [
        "c=8 req/s",
        "c=8 p50",
        "c=8 p99",
        "c=8 server CPU per request",
    ],
    [
        "c=64 req/s",
        "c=64 p50",
        "c=64 p99",
        "c=64 server CPU per request",
    ],
    [
        "c=256 req/s",
        "c=256 p50",
        "c=256 p99",
        "c=256 server CPU per request",
    ],
];
const IDLE_1K: &str = "KiB per session, 1,000 sessions";
const IDLE_10K: &str = "KiB per session, 10,000 sessions";

const fn target(
    label: &'static str,
    group: &'static str,
    row: &'static str,
    against: Option<Impl>,
    at_most: bool,
    threshold: f64,
) -> Target {
    Target {
        label,
        group,
        row,
        against,
        at_most,
        threshold,
    }
}

/// The targets of issue 15, each a ratio in the same run (or an absolute limit).
pub(crate) const TARGETS: [Target; 10] = [
    target(
        "stdio pinned p50 <= 1.5x floor",
        SEQ,
        "p50",
        Some(Impl::Floor),
        true,
        1.5,
    ),
    target(
        "stdio pipelined calls/s >= 0.5x floor",
        PIPE,
        "calls/s",
        Some(Impl::Floor),
        false,
        0.5,
    ),
    target(
        "stdio server CPU per call <= 3x floor",
        PIPE,
        "server CPU per call",
        Some(Impl::Floor),
        true,
        3.0,
    ),
    target(
        "HTTP server CPU per request (stateful, c=64; issue: c=50) <= 1.3x floor",
        HTTP_STATEFUL,
        "c=64 server CPU per request",
        Some(Impl::Floor),
        true,
        1.3,
    ),
    target(
        "HTTP stateful req/s at c=1 >= 0.85x floor",
        HTTP_STATEFUL,
        "c=1 req/s",
        Some(Impl::Floor),
        false,
        0.85,
    ),
    target(
        "HTTP stateful req/s at c=64 (issue: c=50) >= 0.85x floor",
        HTTP_STATEFUL,
        "c=64 req/s",
        Some(Impl::Floor),
        false,
        0.85,
    ),
    target(
        "spawn to initialize (minimal stdio server) <= 1.3x floor",
        SPAWN,
        SPAWN_MINIMAL,
        Some(Impl::Floor),
        true,
        1.3,
    ),
    target(
        "<= 12 KiB per idle session (1,000 sessions)",
        IDLE,
        IDLE_1K,
        None,
        true,
        12.0,
    ),
    target(
        "minimal stdio server packages <= rmcp's",
        MINIMAL,
        "packages",
        Some(Impl::Rmcp),
        true,
        1.0,
    ),
    target(
        "minimal stdio server cold release build <= rmcp's",
        MINIMAL,
        "cold release build",
        Some(Impl::Rmcp),
        true,
        1.0,
    ),
];

/// A scenario: its name (for `--only`) and what runs it.
struct Scenario {
    name: &'static str,
    run: fn(&Ctx<'_>, &mut Results, usize),
}

const SCENARIOS: [Scenario; 16] = [
    Scenario {
        name: "stdio-sequential",
        run: stdio_sequential,
    },
    Scenario {
        name: "stdio-pipelined",
        run: stdio_pipelined,
    },
    Scenario {
        name: "spawn-initialize",
        run: spawn_initialize,
    },
    Scenario {
        name: "tools-list",
        run: tools_list,
    },
    Scenario {
        name: "blob-stdio",
        run: blob_stdio,
    },
    Scenario {
        name: "http-stateful",
        run: |cx, r, _| http_load(cx, r, Shape::Stateful),
    },
    Scenario {
        name: "http-stateless",
        run: |cx, r, _| http_load(cx, r, Shape::Stateless),
    },
    Scenario {
        name: "http-2026-07-28",
        run: |cx, r, _| http_load(cx, r, Shape::Modern),
    },
    Scenario {
        name: "blob-http",
        run: blob_http,
    },
    Scenario {
        name: "idle-sessions",
        run: idle_sessions,
    },
    Scenario {
        name: "minimal",
        run: minimal,
    },
    Scenario {
        name: "otel-stdio",
        run: crate::otel::stdio_otel,
    },
    Scenario {
        name: "redis-echo",
        run: redis::redis_echo,
    },
    Scenario {
        name: "redis-sse",
        run: redis::redis_sse,
    },
    Scenario {
        name: "redis-sessions",
        run: redis::redis_sessions,
    },
    Scenario {
        name: "redis-forwarded",
        run: redis::redis_forwarded,
    },
];

pub(crate) struct Ctx<'a> {
    pub(crate) options: &'a Options,
    pub(crate) runtime: &'a Runtime,
    /// The redis-server of the Redis scenarios, started when first needed and killed when
    /// the run ends.
    redis: OnceCell<RedisServer>,
}

impl Ctx<'_> {
    /// The run's redis-server, started on first use.
    pub(crate) fn redis(&self) -> Result<&RedisServer> {
        if let Some(redis) = self.redis.get() {
            return Ok(redis);
        }
        let started = RedisServer::start().context(
            "the Redis scenarios need redis-server ($MCP_TEST_REDIS_SERVER or on PATH; \
             `cargo xtask setup` installs it, or skip them with --only)",
        )?;
        Ok(self.redis.get_or_init(|| started))
    }

    /// The minimal stdio server of `imp` (the floor's is the stdio floor).
    fn minimal_command(&self, imp: Impl) -> Vec<String> {
        self.binary(match imp {
            Impl::Floor => "floor-stdio",
            Impl::Rmcp => "minimal-rmcp",
            Impl::Ours => "minimal-ours",
        })
    }

    /// The command line of the binary `name` of the bin directory.
    pub(crate) fn binary(&self, name: &str) -> Vec<String> {
        vec![
            self.options
                .bin_dir
                .join(name)
                .to_string_lossy()
                .into_owned(),
        ]
    }

    fn command(&self, imp: Impl, stdio: bool) -> Vec<String> {
        self.binary(match (imp, stdio) {
            (Impl::Floor, true) => "floor-stdio",
            (Impl::Floor, false) => "floor-http",
            (Impl::Rmcp, _) => "echo-rmcp",
            (Impl::Ours, _) => "echo-ours",
        })
    }
}

/// Runs every selected scenario `reps` times for each implementation (implementations
/// interleaved within a repetition, so that a noisy moment does not hit one of them only).
pub(crate) fn run_all(options: &Options, runtime: &Runtime, results: &mut Results) -> Result<()> {
    let cx = Ctx {
        options,
        runtime,
        redis: OnceCell::new(),
    };
    let selected: Vec<&Scenario> = SCENARIOS
        .iter()
        .filter(|s| {
            options
                .only
                .as_deref()
                .is_none_or(|only| s.name.contains(only))
        })
        .collect();
    for rep in 0..options.reps {
        for scenario in &selected {
            eprintln!(
                "loadgen: {} (repetition {} of {})",
                scenario.name,
                rep + 1,
                options.reps
            );
            (scenario.run)(&cx, results, rep);
        }
    }
    Ok(())
}

/// Runs `f`, recording its error as a failure of `what`; whether it succeeded.
fn attempt(
    results: &mut Results,
    what: &str,
    imp: Impl,
    f: impl FnOnce(&mut Results) -> Result<()>,
) -> bool {
    record(results, what, imp.name(), f)
}

/// Runs `f`, recording its error as a failure of `what` for `who` (a column); whether it
/// succeeded.
pub(crate) fn record(
    results: &mut Results,
    what: &str,
    who: &str,
    f: impl FnOnce(&mut Results) -> Result<()>,
) -> bool {
    let Err(e) = f(results) else {
        return true;
    };
    eprintln!("loadgen: {what} / {who} failed: {e:#}");
    results.failures.push(format!("{what} / {who}: {e:#}"));
    false
}

pub(crate) fn echo_expect() -> Vec<u8> {
    format!("\"{}\"", wire::ECHO_TEXT).into_bytes()
}

/// The stdio scenarios' servers, in the order they run: `None` is the floor on tokio, right
/// after the floor.
const STDIO_SERVERS: [Option<Impl>; 4] =
    [Some(Impl::Floor), None, Some(Impl::Rmcp), Some(Impl::Ours)];

/// The command of a stdio scenario's server.
fn stdio_command(cx: &Ctx<'_>, imp: Option<Impl>) -> Vec<String> {
    match imp {
        Some(imp) => cx.command(imp, true),
        None => cx.binary(ASYNC_FLOOR),
    }
}

/// `attempt` for a stdio scenario's server (the floor on tokio's failures are the
/// comparison's); whether `f` succeeded.
fn stdio_attempt(
    results: &mut Results,
    what: &str,
    imp: Option<Impl>,
    f: impl FnOnce(&mut Results) -> Result<()>,
) -> bool {
    match imp {
        Some(imp) => attempt(results, what, imp, f),
        None => record(results, FLOORS, ASYNC_FLOOR, f),
    }
}

/// Declares the two comparison tables of the floor on tokio.
fn declare_async_floor_tables(results: &mut Results) {
    let pairs = &mut results.pairs;
    pairs.group(FLOORS, "floor", "floor on tokio", "tokio/floor");
    pairs.group(OVER_ASYNC, "floor on tokio", "ours", "ours/tokio");
}

/// Puts a stdio server's value of `row` where the comparisons with the floor on tokio take
/// it: the floor's and ours' in one, the floor on tokio's in both, rmcp's in neither.
fn compare_with_async_floor(
    results: &mut Results,
    imp: Option<Impl>,
    row: &str,
    unit: Unit,
    value: f64,
) {
    let pairs = &mut results.pairs;
    match imp {
        Some(Impl::Floor) => pairs.add(FLOORS, row, unit, Side::Base, value),
        Some(Impl::Ours) => pairs.add(OVER_ASYNC, row, unit, Side::Variant, value),
        Some(Impl::Rmcp) => {}
        None => {
            pairs.add(FLOORS, row, unit, Side::Variant, value);
            pairs.add(OVER_ASYNC, row, unit, Side::Base, value);
        }
    }
}

/// The stdio servers (`STDIO_SERVERS`), all started at once (each after its handshake), take
/// turns (see [`crate::slices`]): the slices of the measured time ([`Plan`]), each slice
/// `measure(child, warmup, duration)` with the slices' share of both; what each server's
/// slices added up to. A server that fails to start or in a slice is recorded under `what`
/// and takes no more turns.
fn stdio_turns<M: Slices>(
    cx: &Ctx<'_>,
    results: &mut Results,
    what: &str,
    mut measure: impl FnMut(&mut Child, Duration, Duration) -> Result<M>,
) -> Vec<(Option<Impl>, M)> {
    let mut runs = Vec::new();
    for imp in STDIO_SERVERS {
        stdio_attempt(results, what, imp, |_| {
            let mut child = Child::spawn(&stdio_command(cx, imp))?;
            child.handshake()?;
            runs.push((imp, child, M::default()));
            Ok(())
        });
    }
    let plan = Plan::new(cx.options.warmup, cx.options.duration);
    for _ in 0..plan.count {
        runs.retain_mut(|(imp, child, measured)| {
            stdio_attempt(results, what, *imp, |_| {
                measured.absorb(measure(child, plan.warmup, plan.duration)?);
                Ok(())
            })
        });
    }
    runs.into_iter()
        .map(|(imp, _, measured)| (imp, measured))
        .collect()
}

fn stdio_sequential(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    declare_async_floor_tables(results);
    let Ok(_pinned) = stdio::pin(cx.options.pin).inspect_err(|e| {
        results.failures.push(format!("{SEQ}: pinning: {e:#}"));
    }) else {
        return;
    };
    // Started while pinned: the servers inherit the CPU.
    let (request, expect) = (wire::echo(), echo_expect());
    let runs = stdio_turns(cx, results, SEQ, |child, warmup, slice| {
        stdio::sequential(child, &request, &expect, warmup, slice)
    });
    for (imp, measured) in runs {
        let cpu = measured.server_cpu_ns_per_call() / 1000.0;
        let p = latency_us(measured.latencies);
        if let Some(imp) = imp {
            results.add(SEQ, "p50", Unit::Micros, imp, p.p50);
            results.add(SEQ, "p90", Unit::Micros, imp, p.p90);
            results.add(SEQ, "p99", Unit::Micros, imp, p.p99);
            results.add(SEQ, "server CPU per call", Unit::Micros, imp, cpu);
        }
        compare_with_async_floor(results, imp, SEQ_P50, Unit::Micros, p.p50);
        compare_with_async_floor(results, imp, SEQ_P99, Unit::Micros, p.p99);
        compare_with_async_floor(results, imp, SEQ_CPU, Unit::Micros, cpu);
    }
}

fn stdio_pipelined(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    declare_async_floor_tables(results);
    let runs = stdio_turns(cx, results, PIPE, |child, warmup, slice| {
        stdio::pipelined(child, 32, warmup, slice)
    });
    for (imp, measured) in runs {
        let calls = measured.calls_per_second();
        let cpu = measured.server_cpu_ns_per_call() / 1000.0;
        if let Some(imp) = imp {
            let p = latency_us(measured.latencies);
            results.add(PIPE, "calls/s", Unit::PerSecond, imp, calls);
            results.add(PIPE, "p50", Unit::Micros, imp, p.p50);
            results.add(PIPE, "p99", Unit::Micros, imp, p.p99);
            results.add(PIPE, "server CPU per call", Unit::Micros, imp, cpu);
        }
        compare_with_async_floor(results, imp, PIPE_CALLS, Unit::PerSecond, calls);
        compare_with_async_floor(results, imp, PIPE_CPU, Unit::Micros, cpu);
    }
}

/// Spawn to the `initialize` result, of the echo servers (which carry the HTTP stack too) and
/// of the minimal stdio servers (one echo tool, stdio only: what a stdio server is), both
/// against the stdio floor; the floor on tokio's too, beside the minimal servers in the
/// comparison tables (what starting any server on tokio costs over the floor).
fn spawn_initialize(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    declare_async_floor_tables(results);
    let times = if cx.options.smoke { 5 } else { 20 };
    // Round by round, each server spawned once a round: a slow stretch of the VM (see
    // `crate::slices`) then costs all of them alike, where 20 spawns of one server in a
    // row (a few tens of ms) could all fall in it.
    let mut echo: [Vec<u64>; 3] = Default::default();
    let mut minimal: [Vec<u64>; 3] = Default::default();
    let mut on_tokio = Vec::new();
    let mut failed = [false; 3];
    let mut on_tokio_failed = false;
    for _ in 0..times {
        for (i, imp) in Impl::ALL.into_iter().enumerate() {
            if !failed[i] {
                failed[i] = !attempt(results, SPAWN, imp, |_| {
                    echo[i].push(stdio::spawn_to_initialize(&cx.command(imp, true))?);
                    minimal[i].push(stdio::spawn_to_initialize(&cx.minimal_command(imp))?);
                    Ok(())
                });
            }
        }
        if !on_tokio_failed {
            on_tokio_failed = !stdio_attempt(results, SPAWN, None, |_| {
                on_tokio.push(stdio::spawn_to_initialize(&cx.binary(ASYNC_FLOOR))?);
                Ok(())
            });
        }
    }
    if !on_tokio_failed {
        let p50 = latency_us(on_tokio).p50;
        compare_with_async_floor(results, None, SPAWN_P50, Unit::Micros, p50);
    }
    let servers = Impl::ALL.into_iter().zip(echo).zip(minimal).zip(failed);
    for (((imp, echo), minimal), failed) in servers {
        if failed {
            continue;
        }
        let p = latency_us(echo);
        results.add(SPAWN, "p50", Unit::Micros, imp, p.p50);
        results.add(SPAWN, "p90", Unit::Micros, imp, p.p90);
        let minimal = latency_us(minimal).p50;
        results.add(SPAWN, SPAWN_MINIMAL, Unit::Micros, imp, minimal);
        compare_with_async_floor(results, Some(imp), SPAWN_P50, Unit::Micros, minimal);
    }
}

fn tools_list(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    for imp in Impl::ALL {
        attempt(results, LIST, imp, |results| {
            let mut command = cx.command(imp, true);
            command.extend(["--tools".to_owned(), "1000".to_owned()]);
            let mut child = Child::spawn(&command)?;
            child.handshake()?;
            // Every tool: echo, blob and the 1,000 extra ones, over as many pages as it takes.
            let (lat, pages) =
                stdio::list_tools(&mut child, 1002, cx.options.warmup, cx.options.duration)?;
            let p = latency_us(lat);
            results.add(LIST, "p50 (all pages)", Unit::Micros, imp, p.p50);
            results.add(LIST, "p99 (all pages)", Unit::Micros, imp, p.p99);
            results.add(LIST, "pages", Unit::Count, imp, pages as f64);
            Ok(())
        });
    }
}

const MIB: usize = 1 << 20;

/// Adds a blob run's p50 and throughput (MB/s, 10^6 bytes) under `transport`.
fn add_blob(results: &mut Results, transport: &str, imp: Impl, latencies: Vec<u64>) {
    let total_ns: u64 = latencies.iter().sum();
    let mb_per_s = (latencies.len() * MIB) as f64 / (total_ns as f64 / 1e9) / 1e6;
    let p = latency_us(latencies);
    results.add(BLOB, &format!("{transport} p50"), Unit::Micros, imp, p.p50);
    results.add(
        BLOB,
        &format!("{transport} MB/s"),
        Unit::MegabytesPerSecond,
        imp,
        mb_per_s,
    );
}

fn blob_stdio(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    for imp in Impl::ALL {
        attempt(results, BLOB, imp, |results| {
            let mut child = Child::spawn(&cx.command(imp, true))?;
            child.handshake()?;
            let lat = stdio::sequential(
                &mut child,
                &wire::blob(MIB),
                b"xxxxxxxxxxxxxxxx",
                cx.options.warmup,
                cx.options.duration,
            )?;
            add_blob(results, "stdio", imp, lat.latencies);
            Ok(())
        });
    }
}

fn http_group(shape: Shape) -> &'static str {
    match shape {
        Shape::Stateful => HTTP_STATEFUL,
        Shape::Stateless => HTTP_STATELESS,
        Shape::Modern => HTTP_MODERN,
    }
}

fn http_load(cx: &Ctx<'_>, results: &mut Results, shape: Shape) {
    let group = http_group(shape);
    // All three at once: their closed loops take turns (see `crate::slices`).
    let mut servers = Vec::new();
    for imp in Impl::ALL {
        attempt(results, group, imp, |_| {
            let stateful = shape == Shape::Stateful;
            servers.push((
                imp,
                http::Server::spawn(&cx.command(imp, false), stateful, &[])?,
            ));
            Ok(())
        });
    }
    let request = if shape == Shape::Modern {
        wire::modern_echo()
    } else {
        wire::echo()
    };
    for (c, rows) in CONCURRENCY.into_iter().zip(HTTP_ROWS) {
        let mut runs = Vec::new();
        for (imp, server) in &servers {
            attempt(results, group, *imp, |_| {
                let run = cx.runtime.block_on(http::Looped::open(server, shape, c));
                runs.push((*imp, run.with_context(|| format!("c={c}"))?));
                Ok(())
            });
        }
        cx.runtime.block_on(http::closed_loop(
            &mut runs,
            request.clone(),
            echo_expect(),
            cx.options.warmup,
            cx.options.duration,
        ));
        for (imp, run) in runs {
            attempt(results, group, imp, |results| {
                let load = run.into_load().with_context(|| format!("c={c}"))?;
                let requests_per_second = load.requests_per_second();
                let cpu = load.cpu_ns_per_request(0).unwrap_or_default() / 1000.0;
                let p = latency_us(load.latencies);
                results.add(group, rows[0], Unit::PerSecond, imp, requests_per_second);
                results.add(group, rows[1], Unit::Micros, imp, p.p50);
                results.add(group, rows[2], Unit::Micros, imp, p.p99);
                results.add(group, rows[3], Unit::Micros, imp, cpu);
                Ok(())
            });
        }
    }
}

fn blob_http(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    for imp in Impl::ALL {
        attempt(results, BLOB, imp, |results| {
            let server = http::Server::spawn(&cx.command(imp, false), true, &[])?;
            let lat = cx.runtime.block_on(http::sequential(
                &server,
                Shape::Stateful,
                &wire::blob(MIB),
                b"xxxxxxxxxxxxxxxx",
                cx.options.duration,
            ))?;
            add_blob(results, "HTTP", imp, lat);
            Ok(())
        });
    }
}

fn idle_sessions(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    let counts = if cx.options.smoke {
        [
            (100, "KiB per session, 100 sessions (smoke)"),
            (200, "KiB per session, 200 sessions (smoke)"),
        ]
    } else {
        [(1000, IDLE_1K), (10_000, IDLE_10K)]
    };
    for (sessions, row) in counts {
        results.not_applicable(IDLE, row, Unit::KiB, Impl::Floor);
        for imp in [Impl::Rmcp, Impl::Ours] {
            attempt(results, IDLE, imp, |results| {
                let server = http::Server::spawn(&cx.command(imp, false), true, &[])?;
                let kib = cx
                    .runtime
                    .block_on(http::idle_sessions(&server, sessions))?;
                results.add(IDLE, row, Unit::KiB, imp, kib);
                Ok(())
            });
        }
    }
}

fn minimal(cx: &Ctx<'_>, results: &mut Results, rep: usize) {
    // Package counts do not vary and a cold build takes minutes: the first repetition only.
    if rep > 0 {
        return;
    }
    results.not_applicable(MINIMAL, "packages", Unit::Count, Impl::Floor);
    if cx.options.cold_build {
        results.not_applicable(MINIMAL, "cold release build", Unit::Seconds, Impl::Floor);
    }
    for (imp, package) in [(Impl::Rmcp, "minimal-rmcp"), (Impl::Ours, "minimal-ours")] {
        attempt(results, MINIMAL, imp, |results| {
            let manifest = cx.options.manifest.as_deref().context("needs --manifest")?;
            let count = machine::package_count(manifest, package)?;
            results.add(MINIMAL, "packages", Unit::Count, imp, count as f64);
            if cx.options.cold_build {
                let scratch = cx.options.bin_dir.join("cold-build");
                let seconds = machine::cold_build_seconds(manifest, package, &scratch)?;
                results.add(MINIMAL, "cold release build", Unit::Seconds, imp, seconds);
            }
            Ok(())
        });
    }
}
