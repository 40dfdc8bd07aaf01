#!/usr/bin/env python3
"""Interop peer: a small MCP server built with the Python SDK (PyPI `mcp` 2.x, `MCPServer`).

Usage:
    python_server.py              # stdio (default)
    python_server.py --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp

Same surface as ts_server.mjs: tools echo/add/slow/ask_user/ask_model/fail, resource test://hello,
template test://items/{id}, prompt greet(name), logging, completion. Diagnostics go to stderr only.
One process serves both protocol eras: 2025-11-25 (initialize handshake) and 2026-07-28 (server/discover,
per-request _meta, input_required results); the client's requests pick the era.
"""

import argparse
import json
import warnings
from typing import Annotated

import anyio
import mcp_types as types
from mcp import MCPDeprecationWarning
from mcp.server import MCPServer
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult, Resolve, Sample
from pydantic import BaseModel, Field

warnings.simplefilter("ignore", MCPDeprecationWarning)  # logging/sampling are "deprecated" in 2026-07-28

mcp = MCPServer("python-interop-server", version="1.0.0", log_level="WARNING")
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
state = {"level": "debug"}


async def set_level(ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
    state["level"] = params.level
    return types.EmptyResult()


# MCPServer has no public logging/setLevel hook; without a handler it does not advertise `logging`.
mcp._lowlevel_server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)


async def log(ctx: Context, level: str, data: str) -> None:
    if LEVELS.index(level) >= LEVELS.index(state["level"]):
        await ctx.log(level, data, logger_name="python_server")


class AddResult(BaseModel):
    sum: float


class Answer(BaseModel):
    answer: str = Field(description="Your answer")


def text(t: str) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=t)]


@mcp.tool(description="Echoes the message back", structured_output=False)
async def echo(message: str, ctx: Context) -> str:
    await log(ctx, "info", f"echo called with: {message}")
    return f"Echo: {message}"


@mcp.tool(description="Adds two numbers")
def add(a: float, b: float) -> Annotated[types.CallToolResult, AddResult]:
    total = a + b
    total = int(total) if total.is_integer() else total
    return types.CallToolResult(content=text(str(total)), structured_content={"sum": total})


@mcp.tool(description="Reports 3 progress notifications, then returns", structured_output=False)
async def slow(ctx: Context) -> str:
    for i in range(1, 4):
        await ctx.report_progress(i, 3, f"step {i} of 3")
        await anyio.sleep(0.02)
    return "slow done"


# ask_user / ask_model ask the client through resolvers (`Resolve(...)`): the SDK picks the transport
# from the negotiated revision. On 2025-11-25 it sends a real elicitation/create (or sampling/createMessage)
# request mid-call; on 2026-07-28 (no back-channel) the call first returns `resultType: "input_required"`
# with the request under `inputRequests`, and the tool body runs when the client retries with the answer.
# `ctx.elicit` / `ctx.session.create_message` would fail there with "no back-channel".
def ask_answer() -> Elicit[Answer]:
    return Elicit("What is your answer?", Answer)


def ask_llm(prompt: str) -> Sample:
    return Sample([types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))], max_tokens=100)


@mcp.tool(description="Asks the user (form elicitation) and returns the answer", structured_output=False)
async def ask_user(reply: Annotated[ElicitationResult[Answer], Resolve(ask_answer)]) -> str:
    return reply.data.answer if isinstance(reply, AcceptedElicitation) else f"elicitation {reply.action}"


@mcp.tool(description="Asks the client LLM (sampling) and returns its text", structured_output=False)
async def ask_model(
    result: Annotated[types.CreateMessageResult, Resolve(ask_llm)], prompt: str = "Say hello"
) -> str:
    return result.content.text if result.content.type == "text" else result.content.model_dump_json()


@mcp.tool(description="Always fails with isError: true")
def fail() -> types.CallToolResult:
    return types.CallToolResult(content=text("This tool always fails"), is_error=True)


@mcp.resource("test://hello", name="hello", title="Hello", description="A static greeting", mime_type="text/plain")
def hello() -> str:
    return "Hello from Python"


@mcp.resource("test://items/{id}", name="item", title="Item", description="An item by id", mime_type="application/json")
def item(id: str) -> str:
    return json.dumps({"id": id, "name": f"Item {id}"}, separators=(",", ":"))


@mcp.prompt(name="greet", title="Greet", description="Greets someone by name")
def greet(name: str) -> str:
    return f"Hello, {name}!"


@mcp.completion()
async def complete(ref, argument, context):
    options = {"name": ["Alice", "Bob"], "id": ["1", "2", "3", "42"]}.get(argument.name, [])
    values = [v for v in options if v.startswith(argument.value)]
    return types.Completion(values=values, total=len(values), has_more=False)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    a = ap.parse_args()
    if a.http:
        mcp.run("streamable-http", host="127.0.0.1", port=a.http)
    else:
        mcp.run("stdio")
