#!/usr/bin/env python3
"""Interop peer: `python_server.py`'s server (Python SDK, PyPI `mcp` 2.x) with OpenTelemetry on.

Usage:
    python_otel_server.py --spans FILE              # stdio (default)
    python_otel_server.py --spans FILE --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp

The server is the one of `python_server.py` (same tools, both protocol eras). The OpenTelemetry
SDK records its spans: the SDK's server middleware makes a SERVER span per request, whose parent
is the context the client put in `params._meta` (`traceparent`). Each span is written to FILE as
it ends, as one JSON line, so the file is complete whenever a request has been answered, however
the process is stopped:
    {"name", "kind", "traceId", "spanId", "parentSpanId", "parentIsRemote", "attributes"}
Ids are lowercase hex (32 digits for traces, 16 for spans); a root span's parentSpanId is null.
Diagnostics go to stderr only.
"""

import argparse
import json
import sys
from collections.abc import Sequence

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult


class JsonLinesExporter(SpanExporter):
    """Appends each exported span to a file as one JSON line, flushed at once."""

    def __init__(self, path: str):
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the process's life

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        for span in spans:
            ctx = span.get_span_context()
            parent = span.parent
            line = {
                "name": span.name,
                "kind": span.kind.name,
                "traceId": format(ctx.trace_id, "032x"),
                "spanId": format(ctx.span_id, "016x"),
                "parentSpanId": format(parent.span_id, "016x") if parent else None,
                "parentIsRemote": bool(parent.is_remote) if parent else None,
                "attributes": {
                    k: v if isinstance(v, (str, int, float, bool)) else list(v) for k, v in span.attributes.items()
                },
            }
            self._file.write(json.dumps(line) + "\n")
        self._file.flush()
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self._file.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spans", required=True, metavar="FILE", help="where the spans go, one JSON line each")
    ap.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    a = ap.parse_args()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(JsonLinesExporter(a.spans)))
    trace.set_tracer_provider(provider)
    # The same server as python_server.py (its module only defines it; this file runs it).
    from python_server import mcp

    print(f"python_otel_server: spans to {a.spans}", file=sys.stderr)
    if a.http:
        mcp.run("streamable-http", host="127.0.0.1", port=a.http)
    else:
        mcp.run("stdio")


if __name__ == "__main__":
    main()
