#!/usr/bin/env python3
"""Interop peer of the scale-out test: the Python SDK (PyPI `mcp` 2.x) client, legacy era
(an `initialize` handshake, a session), through a load balancer in front of several instances.

Usage:
    python_lb_client.py --http URL [--steps N] [--ms M] [--timeout S]

Opens a session, calls `slow_task` ({"steps": N, "ms": M}: progress 1..N, one per step) with a
progress callback, and prints one JSON line per progress notification as it arrives:
    {"progress": 3.0}
The test kills the instance holding the session after the first ones; the SDK's transport
resumes the call's SSE stream with Last-Event-ID through the balancer. When the call has ended
(with its result or an error), it calls `test_simple_text` on the same session, and prints the
last line:
    {"report": {"protocolVersion": ..., "progress": [...], "result": ..., "error": ...,
                "after": ..., "afterError": ..., "errors": [...]}}
Exit 0 iff the session could be opened ("errors" is empty); the test judges the rest.
"""

import argparse
import json
import sys
import warnings

import anyio
from mcp import Client, MCPDeprecationWarning

warnings.simplefilter("ignore", MCPDeprecationWarning)


def emit(obj):
    print(json.dumps(obj), flush=True)


def dump(model):
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


async def run(url, steps, ms, timeout, report):
    async with Client(url, mode="legacy", read_timeout_seconds=timeout, cache=None) as client:
        report["protocolVersion"] = client.protocol_version

        async def progress(p, total, message):
            report["progress"].append(p)
            emit({"progress": p})

        try:
            result = await client.call_tool("slow_task", {"steps": steps, "ms": ms}, progress_callback=progress)
            report["result"] = dump(result)
        except Exception as e:  # noqa: BLE001 - the test reads the error
            report["error"] = f"{type(e).__name__}: {e}"
        try:
            report["after"] = dump(await client.call_tool("test_simple_text", {}))
        except Exception as e:  # noqa: BLE001
            report["afterError"] = f"{type(e).__name__}: {e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--http", metavar="URL", required=True, help="Streamable HTTP endpoint (the balancer's)")
    ap.add_argument("--steps", type=int, default=30, help="slow_task's steps")
    ap.add_argument("--ms", type=int, default=200, help="slow_task's milliseconds per step")
    ap.add_argument("--timeout", type=float, default=30.0, help="per-request read timeout in seconds")
    a = ap.parse_args()
    report = {"protocolVersion": None, "progress": [], "result": None, "error": None, "after": None,
              "afterError": None, "errors": []}
    try:
        anyio.run(run, a.http, a.steps, a.ms, a.timeout, report)
    except BaseException as e:  # noqa: BLE001 - connection/handshake failures (incl. ExceptionGroup)
        report["errors"].append(f"{type(e).__name__}: {e!r}")
    emit({"report": report})
    for err in report["errors"]:
        print(f"python_lb_client: {err}", file=sys.stderr)
    sys.exit(1 if report["errors"] else 0)


if __name__ == "__main__":
    main()
