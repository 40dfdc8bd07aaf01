#!/usr/bin/env python3
"""Interop peer: the Python SDK (PyPI `mcp` 2.x) client with OpenTelemetry on.

Usage:
    python_otel_client.py [--mode legacy|auto|2026-07-28] [--timeout S] --http URL
    python_otel_client.py [options] -- <command> [args...]   (stdio; the whole environment is passed on)

The OpenTelemetry SDK records the client's spans in memory (`InMemorySpanExporter`, flushed as
each span ends). Inside one root span, `interop`, the client connects, lists the tools, calls
`echo` with {"text": "traced"} and calls the unknown tool `no_such_tool`. The SDK's own
instrumentation makes a CLIENT span per request and puts its context in `params._meta`
(`traceparent`), which the server continues.

Prints ONE JSON document on stdout:
    {"server": {"protocolVersion", "name"}, "echo": <CallToolResult>, "unknown": {"code", "message"},
     "spans": [{"name", "kind", "traceId", "spanId", "parentSpanId", "attributes"}],
     "errors": [{"step", "error"}]}
Ids are lowercase hex (32 digits for traces, 16 for spans); a root span's parentSpanId is null.
Exit 0 iff "errors" is empty (1 otherwise, 2 on bad arguments).
"""

import argparse
import json
import os
import sys
import warnings

import anyio
from mcp import Client, MCPDeprecationWarning, MCPError, StdioServerParameters
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

warnings.simplefilter("ignore", MCPDeprecationWarning)

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

out = {"server": {}, "echo": None, "unknown": None, "spans": [], "errors": []}


def dump(model):
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def span_json(span):
    ctx = span.get_span_context()
    return {
        "name": span.name,
        "kind": span.kind.name,
        "traceId": format(ctx.trace_id, "032x"),
        "spanId": format(ctx.span_id, "016x"),
        "parentSpanId": format(span.parent.span_id, "016x") if span.parent else None,
        "attributes": {k: v if isinstance(v, (str, int, float, bool)) else list(v) for k, v in span.attributes.items()},
    }


async def step(name, fn):
    try:
        return await fn()
    except Exception as e:  # noqa: BLE001 - every failure goes into the report
        out["errors"].append({"step": name, "error": f"{type(e).__name__}: {e}"})
        return None


async def run(target, mode, timeout):
    tracer = trace.get_tracer("python_otel_client")
    with tracer.start_as_current_span("interop"):
        async with Client(target, mode=mode, read_timeout_seconds=timeout, cache=None) as client:
            info = client.server_info
            out["server"] = {"protocolVersion": client.protocol_version, "name": info.name if info else None}
            await step("tools/list", client.list_tools)
            echo = await step("tools/call echo", lambda: client.call_tool("echo", {"text": "traced"}))
            out["echo"] = dump(echo) if echo is not None else None
            try:
                unknown = await client.call_tool("no_such_tool", {})
                out["unknown"] = {"result": dump(unknown)}
            except MCPError as e:
                out["unknown"] = {"code": e.error.code, "message": e.error.message}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--http", metavar="URL", help="Streamable HTTP endpoint (default: stdio)")
    ap.add_argument("--mode", default="legacy", help="legacy (initialize handshake, default), auto, or 2026-07-28")
    ap.add_argument("--timeout", type=float, default=30.0, help="per-request read timeout in seconds")
    ap.add_argument("command", nargs="*", help="stdio server command (after --)")
    a = ap.parse_args()
    if bool(a.http) == bool(a.command):
        ap.error("give exactly one of --http URL or -- <command> [args...]")
    target = a.http or StdioServerParameters(command=a.command[0], args=a.command[1:], env=dict(os.environ))
    try:
        anyio.run(run, target, a.mode, a.timeout)
    except BaseException as e:  # noqa: BLE001 - connection/handshake failures (incl. ExceptionGroup)
        out["errors"].append({"step": "connect", "error": f"{type(e).__name__}: {e!r}"})
    provider.force_flush()
    out["spans"] = [span_json(s) for s in exporter.get_finished_spans()]
    print(json.dumps(out, indent=2))
    for err in out["errors"]:
        print(f"python_otel_client: {err['step']}: {err['error']}", file=sys.stderr)
    sys.exit(1 if out["errors"] else 0)


if __name__ == "__main__":
    main()
