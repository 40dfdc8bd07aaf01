#!/usr/bin/env python3
"""Interop peer: a host of the MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865) on the
Python SDK (PyPI `mcp` 2.x) client.

Usage:
    python_apps_client.py [--mode legacy|auto|2026-07-28] [--no-declare] [--hidden URI]... [--timeout S] --http URL
    python_apps_client.py [options] -- <command> [args...]   (stdio)

With the declaration (the default) the client advertises the extension with
`{"mimeTypes": ["text/html;profile=mcp-app"]}` (`mcp.client.advertise`); `--no-declare` leaves it
out. It lists every tool (all pages), and for each tool naming a UI resource (`_meta.ui.resourceUri`,
or the deprecated flat `_meta["ui/resourceUri"]`) reads that resource once.

Prints ONE JSON document on stdout:
    {"server": {"protocolVersion", "name"}, "declared": bool,
     "tools": [{"name", "meta", "resourceUri", "visibility"}],
     "resources": {uri: {"contents": [{"uri", "mimeType", "textLength", "blobLength", "meta",
                                       "doctype"}]}},
     "hidden": {uri: {"code", "message"}}, "errors": [{"step", "error"}]}
Exit 0 iff "errors" is empty (1 otherwise, 2 on bad arguments).
"""

import argparse
import json
import os
import sys
import warnings

import anyio
from mcp import Client, MCPDeprecationWarning, MCPError, StdioServerParameters
from mcp.client import advertise

warnings.simplefilter("ignore", MCPDeprecationWarning)

UI_EXTENSION = "io.modelcontextprotocol/ui"
MIME_TYPE = "text/html;profile=mcp-app"

out = {"server": {}, "declared": False, "tools": [], "resources": {}, "hidden": {}, "errors": []}


def dump(model):
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def resource_uri(meta):
    """The tool's UI resource: `_meta.ui.resourceUri`, else the deprecated flat key."""
    meta = meta or {}
    ui = meta.get("ui")
    if isinstance(ui, dict) and isinstance(ui.get("resourceUri"), str):
        return ui["resourceUri"]
    flat = meta.get("ui/resourceUri")
    return flat if isinstance(flat, str) else None


async def step(name, fn):
    try:
        return await fn()
    except Exception as e:  # noqa: BLE001 - every failure goes into the report
        out["errors"].append({"step": name, "error": f"{type(e).__name__}: {e}"})
        return None


async def run(target, mode, timeout, declare, hidden):
    extensions = [advertise(UI_EXTENSION, {"mimeTypes": [MIME_TYPE]})] if declare else None
    out["declared"] = declare
    async with Client(target, mode=mode, read_timeout_seconds=timeout, extensions=extensions, cache=None) as client:
        info = client.server_info
        out["server"] = {"protocolVersion": client.protocol_version, "name": info.name if info else None}

        async def list_all():
            tools, cursor = [], None
            while True:
                page = await client.list_tools(cursor=cursor)
                tools += page.tools
                cursor = page.next_cursor
                if not cursor:
                    return tools

        tools = await step("tools/list", list_all) or []
        for tool in tools:
            meta = dump(tool).get("_meta")
            ui = (meta or {}).get("ui")
            out["tools"].append({
                "name": tool.name,
                "meta": meta,
                "resourceUri": resource_uri(meta),
                "visibility": ui.get("visibility") if isinstance(ui, dict) else None,
            })
        for uri in sorted({t["resourceUri"] for t in out["tools"] if t["resourceUri"]}):

            async def read(uri=uri):
                result = await client.read_resource(uri)
                contents = []
                for c in dump(result)["contents"]:
                    text = c.get("text")
                    contents.append({
                        "uri": c.get("uri"),
                        "mimeType": c.get("mimeType"),
                        "textLength": len(text) if isinstance(text, str) else None,
                        "blobLength": len(c["blob"]) if isinstance(c.get("blob"), str) else None,
                        "meta": c.get("_meta"),
                        "doctype": text.lstrip()[:15].lower() == "<!doctype html>" if isinstance(text, str) else None,
                    })
                out["resources"][uri] = {"contents": contents}

            await step(f"resources/read {uri}", read)

        for uri in hidden:
            try:
                await client.read_resource(uri)
                out["errors"].append({"step": f"hidden {uri}", "error": "the read succeeded"})
            except MCPError as e:
                out["hidden"][uri] = {"code": e.error.code, "message": e.error.message}


def main():
    argv = sys.argv[1:]
    command = None
    if "--" in argv:
        i = argv.index("--")
        argv, command = argv[:i], argv[i + 1:]
    parser = argparse.ArgumentParser(prog="python_apps_client.py")
    parser.add_argument("--mode", choices=["legacy", "auto", "2026-07-28"], default="auto")
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--http")
    parser.add_argument("--no-declare", action="store_true")
    parser.add_argument("--hidden", action="append", default=[])
    args = parser.parse_args(argv)
    if bool(args.http) == bool(command):
        parser.error("give either --http URL or -- <command> [args...]")
    target = args.http or StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))

    async def go():
        try:
            await run(target, args.mode, args.timeout, not args.no_declare, args.hidden)
        except Exception as e:  # noqa: BLE001
            out["errors"].append({"step": "connect", "error": f"{type(e).__name__}: {e}"})

    anyio.run(go)
    print(json.dumps(out))
    for e in out["errors"]:
        print(f"python_apps_client: {e['step']}: {e['error']}", file=sys.stderr)
    sys.exit(1 if out["errors"] else 0)


if __name__ == "__main__":
    main()
