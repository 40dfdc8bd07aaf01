//! The OpenTelemetry scenario (`--only otel`): what `echo-ours --otel` costs per call against
//! `echo-ours` as it is, over stdio. With `--otel` the server sets up `mcp_server::otel::init()`:
//! every request is an OpenTelemetry span (the conventions' name and attributes) and a record
//! in `mcp.server.operation.duration`, exported with OTLP over HTTP (protobuf, batched) to
//! `otlp-sink`, which reads and drops what it gets. Without it no subscriber is set, and the
//! SDK's spans are disabled. The two servers take turns in slices (see [`crate::slices`]); the
//! server's CPU is its whole process's, the exporters' threads included (the sink's is not).
//! Columns compare two configurations of our server, not the three servers.

use anyhow::Result;
use mcp_bench::report::{Impl, Results, Side, Unit};
use mcp_bench::stats::latency_us;
use mcp_bench::wire;

use crate::http;
use crate::scenarios::{Ctx, echo_expect, record};
use crate::slices::{Plan, Slices};
use crate::stdio::{self, Child};

/// The comparison table.
pub(crate) const OTEL: &str = "OpenTelemetry: stdio echo-ours with no subscriber against \
    echo-ours --otel exporting every request's span and metric (OTLP/HTTP to a sink)";

/// The sink's address as the exporter's endpoint, and a span queue large enough that no span
/// is dropped at the pipelined rate (the default, 2,048, relies on the batch thread keeping
/// up): the cost measured is that of exporting every span.
fn otel_env(sink: &http::Server) -> [(&'static str, String); 3] {
    [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{}", sink.addr)),
        ("OTEL_SERVICE_NAME", "echo-ours".to_owned()),
        ("OTEL_BSP_MAX_QUEUE_SIZE", "65536".to_owned()),
    ]
}

/// Both servers, each after its handshake: `echo-ours` (base) and `echo-ours --otel`
/// exporting to `sink` (variant).
fn spawn_both(cx: &Ctx<'_>, sink: &http::Server) -> Result<Vec<(Side, Child)>> {
    let base = cx.binary("echo-ours");
    let mut variant = base.clone();
    variant.push("--otel".to_owned());
    let mut servers = vec![
        (Side::Base, Child::spawn(&base)?),
        (Side::Variant, Child::spawn_with_env(&variant, &otel_env(sink))?),
    ];
    for (_, child) in &mut servers {
        child.handshake()?;
    }
    Ok(servers)
}

/// Each server's slices of `measure`, added up, in the order of `servers`.
fn turns<M: Slices>(
    cx: &Ctx<'_>,
    servers: &mut [(Side, Child)],
    mut measure: impl FnMut(&mut Child, std::time::Duration, std::time::Duration) -> Result<M>,
) -> Result<Vec<(Side, M)>> {
    let plan = Plan::new(cx.options.warmup, cx.options.duration);
    let mut measured: Vec<(Side, M)> = servers.iter().map(|(s, _)| (*s, M::default())).collect();
    for _ in 0..plan.count {
        for ((_, child), (_, total)) in servers.iter_mut().zip(&mut measured) {
            total.absorb(measure(child, plan.warmup, plan.duration)?);
        }
    }
    Ok(measured)
}

pub(crate) fn stdio_otel(cx: &Ctx<'_>, results: &mut Results, _rep: usize) {
    results.pairs.group(
        OTEL,
        "no subscriber",
        "OpenTelemetry exporting",
        "exporting/none",
    );
    record(results, OTEL, Impl::Ours.name(), |results| {
        // Started before pinning: the sink runs on whichever CPU is free.
        let sink = http::Server::spawn(&cx.binary("otlp-sink"), true, &[])?;
        let pairs = &mut results.pairs;

        // Pinned sequential: loadgen and both servers (exporter threads included) on one
        // CPU, as in the main stdio table.
        let pinned = stdio::pin(cx.options.pin)?;
        let mut servers = spawn_both(cx, &sink)?;
        let (request, expect) = (wire::echo(), echo_expect());
        let sequential = turns(cx, &mut servers, |child, warmup, slice| {
            stdio::sequential(child, &request, &expect, warmup, slice)
        })?;
        drop(servers);
        drop(pinned);
        let mut cpu = [0.0; 2];
        for (side, measured) in sequential {
            let per_call = measured.server_cpu_ns_per_call() / 1000.0;
            cpu[side as usize] = per_call;
            let p = latency_us(measured.latencies);
            pairs.add(OTEL, "pinned sequential p50", Unit::Micros, side, p.p50);
            pairs.add(OTEL, "pinned sequential p99", Unit::Micros, side, p.p99);
            pairs.add(OTEL, "pinned sequential server CPU per call", Unit::Micros, side, per_call);
        }
        let added = "server CPU added per call by exporting (pinned sequential)";
        pairs.not_applicable(OTEL, added, Unit::Micros, Side::Base);
        pairs.add(OTEL, added, Unit::Micros, Side::Variant, cpu[1] - cpu[0]);

        // Pipelined, 32 calls in flight, unpinned.
        let mut servers = spawn_both(cx, &sink)?;
        let pipelined = turns(cx, &mut servers, |child, warmup, slice| {
            stdio::pipelined(child, 32, warmup, slice)
        })?;
        drop(servers);
        let mut cpu = [0.0; 2];
        for (side, measured) in pipelined {
            let per_call = measured.server_cpu_ns_per_call() / 1000.0;
            cpu[side as usize] = per_call;
            let calls = measured.calls_per_second();
            pairs.add(OTEL, "pipelined calls/s", Unit::PerSecond, side, calls);
            pairs.add(OTEL, "pipelined server CPU per call", Unit::Micros, side, per_call);
        }
        let added = "server CPU added per call by exporting (pipelined)";
        pairs.not_applicable(OTEL, added, Unit::Micros, Side::Base);
        pairs.add(OTEL, added, Unit::Micros, Side::Variant, cpu[1] - cpu[0]);
        Ok(())
    });
}
