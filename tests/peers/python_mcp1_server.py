#!/usr/bin/env python3
"""Interop peer: a stdio MCP server of the handshake era only, built with the Python SDK 1.x
(PyPI `mcp` 1.30, `FastMCP`), run from .tools/venv-mcp1 (see xtask/peers/requirements-mcp1.txt).

Usage:
    python_mcp1_server.py          # stdio

It answers `initialize` (up to 2025-11-25) and nothing of 2026-07-28 (`server/discover` gets an
error), so `mcp proxy` bridges it for 2026-07-28 clients. Tools: echo(message), add(a, b),
ask_user() (elicits an answer with a form: the bridged round trip), slow() (three progress
notifications), chatty() (two log messages), crash() (exits the process with status 3).
Resource test://hello, prompt greet(name). Diagnostics go to stderr only.
"""

import os
import sys

from mcp.server.fastmcp import Context, FastMCP
from pydantic import BaseModel, Field

mcp = FastMCP("python-mcp1-server", log_level="WARNING")


class Answer(BaseModel):
    answer: str = Field(description="Your answer")


@mcp.tool(description="Echoes the message back")
def echo(message: str) -> str:
    return f"Echo: {message}"


@mcp.tool(description="Adds two numbers")
def add(a: float, b: float) -> str:
    total = a + b
    return str(int(total) if total.is_integer() else total)


@mcp.tool(description="Asks the user for an answer (elicitation), then repeats it")
async def ask_user(ctx: Context) -> str:
    result = await ctx.elicit(message="What is your answer?", schema=Answer)
    if result.action == "accept":
        return f"You answered: {result.data.answer}"
    return f"No answer ({result.action})"


@mcp.tool(description="Reports 3 progress notifications, then returns")
async def slow(ctx: Context) -> str:
    for i in range(1, 4):
        await ctx.report_progress(i, 3, f"step {i} of 3")
    return "slow done"


@mcp.tool(description="Logs twice while it runs")
async def chatty(ctx: Context) -> str:
    await ctx.info("chatty started")
    await ctx.warning("chatty is almost done")
    return "chatty done"


@mcp.tool(description="Exits the server process with status 3")
def crash() -> str:
    sys.stderr.flush()
    os._exit(3)


@mcp.resource("test://hello", description="A greeting", mime_type="text/plain")
def hello() -> str:
    return "Hello from the Python SDK 1.x"


@mcp.prompt(description="Greets someone")
def greet(name: str) -> str:
    return f"Please greet {name}."


if __name__ == "__main__":
    mcp.run("stdio")
