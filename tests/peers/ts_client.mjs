#!/usr/bin/env node
// Interop peer: drive an MCP server over Streamable HTTP with the TypeScript SDK client
// (`@modelcontextprotocol/sdk`, pinned in xtask/peers/package.json), in the legacy era.
//
// Usage: $MCP_TEST_NODE tests/peers/ts_client.mjs [--timeout S] --http URL
//
// Mirrors python_client.py (see ts_report.mjs): lists and calls every tool (answering sampling
// and elicitation), reads every resource and template, gets every prompt, and prints ONE JSON
// document on stdout with the keys server, tools, calls, resources, templates, prompts, logs,
// progress, sampling, elicitations, errors. Exit 0 iff "errors" is empty.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

import { elicit, exercise, finish, newReport, parseArgs, sample } from "./ts_report.mjs";

const SAMPLING_TEXT = "This is a test response from the TypeScript client";
const ELICIT_TEXT = "ts client answer";

const { url, timeoutMs } = parseArgs("ts_client.mjs");
const out = newReport();
const client = new Client(
  { name: "ts-interop-client", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: { form: {} } } },
);
client.setRequestHandler(CreateMessageRequestSchema, async (r) => sample(out, r.params, SAMPLING_TEXT));
client.setRequestHandler(ElicitRequestSchema, async (r) => elicit(out, r.params, ELICIT_TEXT));
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  out.logs.push(n.params);
});

const options = { timeout: timeoutMs };
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const info = client.getServerVersion();
  out.server = {
    protocolVersion: client.transport?.protocolVersion,
    capabilities: client.getServerCapabilities(),
    name: info?.name,
    version: info?.version,
  };
  if (out.server.capabilities?.logging) {
    try {
      await client.setLoggingLevel("debug", options);
    } catch (e) {
      out.errors.push(`logging/setLevel: ${e?.message ?? e}`);
    }
  }
  await exercise(client, out, options, (name, args, onprogress) =>
    client.callTool({ name, arguments: args }, undefined, { ...options, onprogress }),
  );
} catch (e) {
  out.errors.push(`connect: ${e?.message ?? e}`);
} finally {
  await client.close().catch(() => {});
}
finish(out);
