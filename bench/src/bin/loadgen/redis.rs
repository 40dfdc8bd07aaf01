//! The Redis scenarios (`--only redis`): what the Redis stores of a scale-out deployment
//! (`echo-ours --redis`) cost per request against the in-memory ones (`echo-ours`), on
//! stateful Streamable HTTP, and what forwarding a request to the instance holding its
//! session costs. Columns compare two configurations of our server, not the three servers.

use std::time::Duration;

use anyhow::{Context as _, Result};
use mcp_bench::report::{Results, Side, Unit};
use mcp_bench::stats::latency_us;
use mcp_bench::wire;

use crate::http::{self, Conn, Load, Op, Shape};
use crate::scenarios::{Ctx, echo_expect, record};

/// The table of in-memory against Redis stores.
pub(crate) const STORES: &str = "Redis stores: stateful Streamable HTTP, in-memory stores \
    against Redis ones (closed loop, c workers)";
/// The table of forwarded requests.
pub(crate) const FORWARDED: &str = "Redis stores: forwarded requests (two instances on one \
    Redis, sessions opened on A; server CPU is A's and B's; closed loop, c workers)";

/// The concurrencies of the request rows.
const CONCURRENCY: [usize; 2] = [1, 64];
/// The concurrency of the session-open rows.
const OPEN_CONCURRENCY: usize = 8;

/// The columns of [`STORES`]: `echo-ours` as it is, and with `--redis`.
const STORE_SIDES: [(Side, &str); 2] = [(Side::Base, "in-memory"), (Side::Variant, "Redis")];
/// The columns of [`FORWARDED`]: requests sent to A (which holds their sessions), and sent
/// to B (which forwards them to A).
const FORWARD_SIDES: [(Side, &str); 2] = [
    (Side::Base, "sent to A (holder)"),
    (Side::Variant, "sent to B (forwarded)"),
];

fn declare(results: &mut Results) {
    let pairs = &mut results.pairs;
    pairs.group(STORES, "in-memory", "Redis", "Redis/in-memory");
    pairs.group(
        FORWARDED,
        "sent to A (holder)",
        "sent to B (forwarded)",
        "B/A",
    );
}

/// Spawns `echo-ours` (stateful), on the shared Redis (flushed first) for the variant side.
/// Returns the server and the PIDs to measure the Redis side's CPU of (none in memory).
fn spawn(cx: &Ctx<'_>, side: Side) -> Result<(http::Server, Vec<u32>)> {
    let command = cx.binary("echo-ours");
    match side {
        Side::Base => Ok((http::Server::spawn(&command, true, &[])?, Vec::new())),
        Side::Variant => {
            let redis = cx.redis()?;
            redis.flush()?;
            let url = redis.url();
            let server = http::Server::spawn(&command, true, &["--redis", &url])?;
            Ok((server, vec![redis.pid()]))
        }
    }
}

/// Adds a load's rows: `<prefix> <what>/s`, p50, p99, the server's CPU per `unit`, and
/// redis-server's (n/a without Redis).
fn add_load(
    results: &mut Results,
    group: &str,
    prefix: &str,
    (what, unit): (&str, &str),
    side: Side,
    redis_measured: bool,
    load: Load,
) {
    let pairs = &mut results.pairs;
    let row = |name: &str| format!("{prefix} {name}");
    pairs.add(
        group,
        &row(&format!("{what}/s")),
        Unit::PerSecond,
        side,
        load.requests_per_second(),
    );
    let server_cpu = load.cpu_ns_per_request(0).unwrap_or_default();
    let redis_cpu = load.cpu_ns_per_request(1);
    let p = latency_us(load.latencies);
    pairs.add(group, &row("p50"), Unit::Micros, side, p.p50);
    pairs.add(group, &row("p99"), Unit::Micros, side, p.p99);
    let server = row(&format!("server CPU per {unit}"));
    pairs.add(group, &server, Unit::Micros, side, server_cpu / 1e3);
    let redis = row(&format!("redis-server CPU per {unit}"));
    match redis_cpu {
        Some(ns) if redis_measured => pairs.add(group, &redis, Unit::Micros, side, ns / 1e3),
        _ => pairs.not_applicable(group, &redis, Unit::Micros, side),
    }
}

/// `c` stateful sessions on `addr`, each on its own connection.
async fn sessions(addr: &str, c: usize) -> Result<Vec<Conn>> {
    let mut conns = Vec::with_capacity(c);
    for _ in 0..c {
        conns.push(Conn::open(addr, Shape::Stateful).await?);
    }
    Ok(conns)
}

fn call(request: wire::Template, events: Option<usize>) -> Op {
    Op::Call {
        request: request.into(),
        expect: echo_expect().into(),
        events,
    }
}

fn timing(cx: &Ctx<'_>) -> (Duration, Duration) {
    (cx.options.warmup, cx.options.duration)
}

/// `echo` (a JSON answer) or `progress` (an SSE answer of 3 stored events) at c = 1 and 64,
/// with in-memory and with Redis stores.
fn stores_calls(cx: &Ctx<'_>, results: &mut Results, sse: bool) {
    declare(results);
    let (label, request, events) = if sse {
        (
            "SSE (3 events)",
            wire::progress(),
            Some(wire::PROGRESS_EVENTS),
        )
    } else {
        ("JSON", wire::echo(), None)
    };
    for (side, name) in STORE_SIDES {
        record(results, STORES, name, |results| {
            let (server, redis_pids) = spawn(cx, side)?;
            for c in CONCURRENCY {
                let (warmup, duration) = timing(cx);
                let op = call(request.clone(), events);
                let load = cx
                    .runtime
                    .block_on(async {
                        let mut conns = sessions(&server.addr, c).await?;
                        let pids = [&[server.pid()][..], &redis_pids];
                        http::run_loop(&mut conns, &pids, op, warmup, duration).await
                    })
                    .with_context(|| format!("{label} c={c}"))?;
                let prefix = format!("{label} c={c}");
                let measured = side == Side::Variant;
                add_load(
                    results,
                    STORES,
                    &prefix,
                    ("req", "request"),
                    side,
                    measured,
                    load,
                );
            }
            Ok(())
        });
    }
}

pub(crate) fn redis_echo(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    stores_calls(cx, results, false);
}

pub(crate) fn redis_sse(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    stores_calls(cx, results, true);
}

/// Sessions opened (`initialize`, then `notifications/initialized`) back to back by 8
/// workers, each on its own connection, with in-memory and with Redis stores.
pub(crate) fn redis_sessions(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    declare(results);
    for (side, name) in STORE_SIDES {
        record(results, STORES, name, |results| {
            let (server, redis_pids) = spawn(cx, side)?;
            let (warmup, duration) = timing(cx);
            let load = cx
                .runtime
                .block_on(async {
                    let mut conns = sessions(&server.addr, OPEN_CONCURRENCY).await?;
                    let pids = [&[server.pid()][..], &redis_pids];
                    http::run_loop(&mut conns, &pids, Op::Open, warmup, duration).await
                })
                .context("session open")?;
            let prefix = format!("session open c={OPEN_CONCURRENCY}");
            let measured = side == Side::Variant;
            add_load(
                results,
                STORES,
                &prefix,
                ("opens", "open"),
                side,
                measured,
                load,
            );
            Ok(())
        });
    }
}

/// Two `echo-ours --redis` instances, A and B, on one Redis; sessions opened on A, their
/// `echo` calls sent to A, or to B (which forwards them to A), at c = 1 and 64. The server
/// CPU is both instances'.
pub(crate) fn redis_forwarded(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    declare(results);
    for (side, name) in FORWARD_SIDES {
        record(results, FORWARDED, name, |results| {
            let redis = cx.redis()?;
            redis.flush()?;
            let url = redis.url();
            let command = cx.binary("echo-ours");
            let a = http::Server::spawn(&command, true, &["--redis", &url])?;
            let b = http::Server::spawn(&command, true, &["--redis", &url])?;
            let target = match side {
                Side::Base => &a.addr,
                Side::Variant => &b.addr,
            };
            for c in CONCURRENCY {
                let (warmup, duration) = timing(cx);
                let load = cx
                    .runtime
                    .block_on(async {
                        let mut conns = Vec::with_capacity(c);
                        for _ in 0..c {
                            conns.push(Conn::open_via(&a.addr, target).await?);
                        }
                        let pids = [&[a.pid(), b.pid()][..], &[redis.pid()][..]];
                        let op = call(wire::echo(), None);
                        http::run_loop(&mut conns, &pids, op, warmup, duration).await
                    })
                    .with_context(|| format!("c={c}"))?;
                add_load(
                    results,
                    FORWARDED,
                    &format!("c={c}"),
                    ("req", "request"),
                    side,
                    true,
                    load,
                );
            }
            Ok(())
        });
    }
}
