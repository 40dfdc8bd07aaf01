#!/usr/bin/env node
// Interop peer: drive an MCP server over Streamable HTTP with the TypeScript SDK v2 client
// (`@modelcontextprotocol/client`, pinned in xtask/peers/package.json) in its modern mode:
// pinned to protocol revision 2026-07-28, so every request carries its `_meta` and elicitation,
// sampling and roots come as input-required rounds that the client answers through the same
// handlers (auto-fulfilment) and retries.
//
// Usage: $MCP_TEST_NODE tests/peers/ts_client_v2.mjs [--timeout S] --http URL
//
// The same walk and report as ts_client.mjs (see ts_report.mjs).

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

import { elicit, exercise, finish, newReport, parseArgs, sample } from "./ts_report.mjs";

const SAMPLING_TEXT = "This is a test response from the TypeScript v2 client";
const ELICIT_TEXT = "ts v2 client answer";

const { url, timeoutMs } = parseArgs("ts_client_v2.mjs");
const out = newReport();
const client = new Client(
  { name: "ts-v2-interop-client", version: "1.0.0" },
  {
    capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  },
);
client.setRequestHandler("sampling/createMessage", async (r) => sample(out, r.params, SAMPLING_TEXT));
client.setRequestHandler("elicitation/create", async (r) => elicit(out, r.params, ELICIT_TEXT));
client.setRequestHandler("roots/list", async () => ({
  roots: [{ uri: "file:///tmp/ts-v2-client-root", name: "ts-v2-client-root" }],
}));
client.setNotificationHandler("notifications/message", (n) => {
  out.logs.push(n.params);
});

const options = { timeout: timeoutMs };
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const info = client.getServerVersion();
  out.server = {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    capabilities: client.getServerCapabilities(),
    name: info?.name,
    version: info?.version,
  };
  await exercise(client, out, options, (name, args, onprogress) =>
    client.callTool({ name, arguments: args }, { ...options, onprogress }),
  );
} catch (e) {
  out.errors.push(`connect: ${e?.message ?? e}`);
} finally {
  await client.close().catch(() => {});
}
finish(out);
