#!/usr/bin/env python3
"""Interop peer: drive an MCP server with the Python SDK (PyPI `mcp` 2.x) client.

Usage:
    python_client.py [--mode legacy|auto|2026-07-28] [--timeout S] [--skip TOOL]... --http URL
    python_client.py [options] -- <command> [args...]   (stdio, the default transport)

Exercises every tool, resource, template, prompt and completion the server lists and
prints ONE JSON document on stdout. Exit 0 iff nothing raised ("errors" is empty).
"""

import argparse
import json
import os
import re
import sys
import warnings

import anyio
import mcp_types as types
from mcp import Client, MCPDeprecationWarning, StdioServerParameters

warnings.simplefilter("ignore", MCPDeprecationWarning)  # logging/sampling/subscribe are "deprecated" in 2026-07-28

SAMPLING_TEXT = "This is a test response from the Python client"
ELICIT_TEXT = "python client answer"
# Arguments for the conformance fixture's tools/prompts; anything else is derived from its schema.
TOOL_ARGS = {
    "test_sampling": {"prompt": "Test prompt for sampling"},
    "test_elicitation": {"message": "Please provide your information"},
    "json_schema_2020_12_tool": {
        "name": "Alice", "contactMethod": "email", "email": "alice@example.com",
        "address": {"street": "1 Main St", "city": "Springfield"},
    },
}
PROMPT_ARGS = {"arg1": "testValue1", "arg2": "testValue2", "resourceUri": "test://example-resource"}
SAMPLE = {"string": "hello", "integer": 2, "number": 3, "boolean": True, "array": [], "object": {}}

out = {"server": {}, "tools": [], "calls": {}, "resources": {}, "templates": [], "prompts": {},
       "completions": [], "subscriptions": [], "logs": [], "progress": [], "sampling": [],
       "elicitations": [], "errors": []}


def dump(model):
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def args_from_schema(schema):
    props = (schema or {}).get("properties", {})
    return {k: props[k].get("default", SAMPLE.get(props[k].get("type"), "hello")) for k in schema.get("required", [])}


def elicit_value(name, prop):
    """A plausible answer for one property of a form-mode requestedSchema."""
    if "default" in prop:
        return prop["default"]
    if prop.get("enum"):
        return prop["enum"][0]
    if prop.get("oneOf"):
        return prop["oneOf"][0]["const"]
    kind = prop.get("type")
    if kind == "array":
        items = prop.get("items", {})
        return [items["enum"][0]] if items.get("enum") else [items["anyOf"][0]["const"]] if items.get("anyOf") else []
    if kind in ("integer", "number"):
        return prop.get("minimum", 1)
    if kind == "boolean":
        return True
    if prop.get("format") == "email" or name == "email":
        return "test@example.com"
    return ELICIT_TEXT


async def on_sampling(context, params):
    out["sampling"].append(dump(params))
    return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=SAMPLING_TEXT),
                                     model="python-test-model", stop_reason="endTurn")


async def on_elicitation(context, params):
    out["elicitations"].append(dump(params))
    if getattr(params, "mode", "form") != "form":
        return types.ElicitResult(action="decline")
    props = params.requested_schema.get("properties", {})
    return types.ElicitResult(action="accept", content={k: elicit_value(k, p) for k, p in props.items()})


async def on_roots(context):
    return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/python-client-root", name="python-client-root")])


async def on_log(params):
    out["logs"].append(dump(params))


async def step(name, coro_fn):
    """Run one interaction; record (not raise) failures so the rest still runs."""
    try:
        return await coro_fn()
    except Exception as e:  # noqa: BLE001 - we report every failure in "errors"
        out["errors"].append({"step": name, "error": f"{type(e).__name__}: {e}"})
        return None


async def all_pages(fetch, attr):
    items, cursor = [], None
    while True:
        page = await fetch(cursor=cursor)
        items += getattr(page, attr)
        cursor = page.next_cursor
        if not cursor:
            return items


async def run(target, mode, timeout, skip):
    async with Client(target, mode=mode, read_timeout_seconds=timeout, sampling_callback=on_sampling,
                      elicitation_callback=on_elicitation, list_roots_callback=on_roots, logging_callback=on_log,
                      cache=None) as client:
        caps = client.server_capabilities
        info = client.server_info
        out["server"] = {"protocolVersion": client.protocol_version, "capabilities": dump(caps),
                         **({"name": info.name, "version": info.version} if info else {})}
        legacy = client.session.initialize_result is not None
        if caps.logging is not None and legacy:
            await step("logging/setLevel", lambda: client.set_logging_level("debug"))

        # Tools: every page, then call each one.
        tools = await step("tools/list", lambda: all_pages(client.list_tools, "tools")) or []
        out["tools"] = [t.name for t in tools]
        for tool in (t for t in tools if t.name not in skip):
            args = TOOL_ARGS.get(tool.name, args_from_schema(tool.input_schema))

            async def progress(p, total, message, name=tool.name):
                out["progress"].append({"tool": name, "progress": p, "total": total, "message": message})

            res = await step(f"tools/call {tool.name}", lambda: client.call_tool(tool.name, args, progress_callback=progress))
            if res is not None:
                out["calls"][tool.name] = dump(res)
        if "test_error_handling" in out["calls"] and not out["calls"]["test_error_handling"].get("isError"):
            out["errors"].append({"step": "tools/call test_error_handling", "error": "expected isError: true"})

        # Resources: static ones, then every template instantiated with 42 for each variable.
        if caps.resources is not None:
            resources = await step("resources/list", lambda: all_pages(client.list_resources, "resources")) or []
            templates = await step("resources/templates/list",
                                   lambda: all_pages(client.list_resource_templates, "resource_templates")) or []
            out["templates"] = [t.uri_template for t in templates]
            uris = [str(r.uri) for r in resources] + [re.sub(r"\{[^}]*\}", "42", t.uri_template) for t in templates]
            for uri in uris:
                res = await step(f"resources/read {uri}", lambda: client.read_resource(uri))
                if res is not None:
                    out["resources"][uri] = dump(res)
            if caps.resources.subscribe and legacy and uris:
                uri = "test://watched-resource" if "test://watched-resource" in uris else uris[0]
                for verb, call in (("subscribe", client.subscribe_resource), ("unsubscribe", client.unsubscribe_resource)):
                    if await step(f"resources/{verb} {uri}", lambda: call(uri)) is not None:
                        out["subscriptions"].append({verb: uri})

        # Prompts: get each with its required (or all) arguments.
        prompts = []
        if caps.prompts is not None:
            prompts = await step("prompts/list", lambda: all_pages(client.list_prompts, "prompts")) or []
            for p in prompts:
                pargs = {a.name: PROMPT_ARGS.get(a.name, "test") for a in p.arguments or []}
                res = await step(f"prompts/get {p.name}", lambda: client.get_prompt(p.name, pargs or None))
                if res is not None:
                    out["prompts"][p.name] = dump(res)

        # Completion: first argument of the first prompt that has one, first variable of the first template.
        if caps.completions is not None:
            refs = [(types.PromptReference(name=p.name), p.arguments[0].name) for p in prompts if p.arguments][:1]
            refs += [(types.ResourceTemplateReference(uri=t), re.findall(r"\{([^}]*)\}", t)[0])
                     for t in out["templates"] if "{" in t][:1]
            for ref, arg in refs:
                res = await step(f"completion/complete {arg}", lambda: client.complete(ref, {"name": arg, "value": ""}))
                if res is not None:
                    out["completions"].append({"ref": dump(ref), "argument": arg, "result": dump(res)})
        await anyio.sleep(0.2)  # let trailing notifications (logs) arrive before closing


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--http", metavar="URL", help="Streamable HTTP endpoint (default: stdio)")
    ap.add_argument("--mode", default="legacy", help="legacy (initialize handshake, default), auto, or 2026-07-28")
    ap.add_argument("--timeout", type=float, default=30.0, help="per-request read timeout in seconds")
    ap.add_argument("--skip", action="append", default=[], metavar="TOOL", help="do not call this tool (repeatable)")
    ap.add_argument("command", nargs="*", help="stdio server command (after --)")
    a = ap.parse_args()
    if bool(a.http) == bool(a.command):
        ap.error("give exactly one of --http URL or -- <command> [args...]")
    # The SDK would give the child only HOME/PATH/etc.; pass our whole environment (RUST_LOG, ...) through.
    target = a.http or StdioServerParameters(command=a.command[0], args=a.command[1:], env=dict(os.environ))
    try:
        anyio.run(run, target, a.mode, a.timeout, set(a.skip))
    except BaseException as e:  # noqa: BLE001 - connection/handshake failures (incl. ExceptionGroup)
        out["errors"].append({"step": "connect", "error": f"{type(e).__name__}: {e!r}"})
    print(json.dumps(out, indent=2))
    for err in out["errors"]:
        print(f"python_client: {err['step']}: {err['error']}", file=sys.stderr)
    sys.exit(1 if out["errors"] else 0)


if __name__ == "__main__":
    main()
