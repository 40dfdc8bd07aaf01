#!/usr/bin/env node
// Interop peer: drive an MCP server over Streamable HTTP with the TypeScript SDK v2 client
// (`@modelcontextprotocol/client`, pinned in xtask/peers/package.json) in its modern mode:
// pinned to protocol revision 2026-07-28, so every request carries its `_meta` and elicitation,
// sampling and roots come as input-required rounds that the client answers through the same
// handlers (auto-fulfilment) and retries.
//
// Usage: $MCP_TEST_NODE tests/peers/ts_client_v2.mjs [--timeout S] --http URL
//
// Like ts_client.mjs (the v1 SDK, legacy era), mirroring python_client.py: lists and calls every tool (answering sampling and elicitation),
// reads every resource and template, gets every prompt, and prints ONE JSON document on
// stdout with the keys server, tools, calls, resources, templates, prompts, logs, progress,
// sampling, elicitations, errors. Exit 0 iff "errors" is empty.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const SAMPLING_TEXT = "This is a test response from the TypeScript v2 client";
const ELICIT_TEXT = "ts v2 client answer";
const TOOL_ARGS = {
  test_sampling: { prompt: "Test prompt for sampling" },
  test_elicitation: { message: "Please provide your information" },
  json_schema_2020_12_tool: {
    name: "Alice", contactMethod: "email", email: "alice@example.com",
    address: { street: "1 Main St", city: "Springfield" },
  },
};
const PROMPT_ARGS = { arg1: "testValue1", arg2: "testValue2", resourceUri: "test://example-resource" };
const SAMPLE = { string: "hello", integer: 2, number: 3, boolean: true, array: [], object: {} };

const args = process.argv.slice(2);
let url;
let timeoutMs = 30000;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--http") url = args[++i];
  else if (args[i] === "--timeout") timeoutMs = Number(args[++i]) * 1000;
  else {
    console.error(`unknown argument ${args[i]}; usage: ts_client_v2.mjs [--timeout S] --http URL`);
    process.exit(2);
  }
}
if (!url) {
  console.error("usage: ts_client_v2.mjs [--timeout S] --http URL");
  process.exit(2);
}

const out = {
  server: {}, tools: [], calls: {}, resources: {}, templates: [], prompts: {},
  logs: [], progress: [], sampling: [], elicitations: [], errors: [],
};

/** A value for one property of an elicitation form: its default, else a plausible one. */
function answer(prop) {
  if (prop.default !== undefined) return prop.default;
  if (Array.isArray(prop.enum)) return prop.enum[0];
  if (Array.isArray(prop.oneOf)) return prop.oneOf[0].const;
  if (prop.type === "array") {
    const items = prop.items ?? {};
    if (Array.isArray(items.enum)) return [items.enum[0]];
    if (Array.isArray(items.anyOf)) return [items.anyOf[0].const];
    return [];
  }
  if (prop.type === "integer" || prop.type === "number") return 1;
  if (prop.type === "boolean") return true;
  if (prop.format === "email") return "test@example.com";
  return ELICIT_TEXT;
}

/** Arguments for a tool: the fixture's, else its required properties from the schema. */
function toolArgs(tool) {
  if (TOOL_ARGS[tool.name]) return TOOL_ARGS[tool.name];
  const schema = tool.inputSchema ?? {};
  const result = {};
  for (const name of schema.required ?? []) {
    result[name] = SAMPLE[schema.properties?.[name]?.type] ?? "hello";
  }
  return result;
}

const client = new Client(
  { name: "ts-v2-interop-client", version: "1.0.0" },
  {
    capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  },
);
client.setRequestHandler("sampling/createMessage", async (request) => {
  out.sampling.push(request.params);
  return {
    role: "assistant",
    content: { type: "text", text: SAMPLING_TEXT },
    model: "ts-test-model",
    stopReason: "endTurn",
  };
});
client.setRequestHandler("roots/list", async () => ({
  roots: [{ uri: "file:///tmp/ts-v2-client-root", name: "ts-v2-client-root" }],
}));
client.setRequestHandler("elicitation/create", async (request) => {
  out.elicitations.push(request.params);
  if (request.params.mode === "url") return { action: "decline" };
  const content = {};
  for (const [name, prop] of Object.entries(request.params.requestedSchema?.properties ?? {})) {
    content[name] = answer(prop);
  }
  return { action: "accept", content };
});
client.setNotificationHandler("notifications/message", (n) => {
  out.logs.push(n.params);
});

const options = { timeout: timeoutMs };
async function step(what, fn) {
  try {
    return await fn();
  } catch (e) {
    out.errors.push(`${what}: ${e?.message ?? e}`);
    return undefined;
  }
}

try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const info = client.getServerVersion();
  out.server = {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    capabilities: client.getServerCapabilities(),
    name: info?.name,
    version: info?.version,
  };
  const tools = (await step("tools/list", () => client.listTools({}, options)))?.tools ?? [];
  out.tools = tools.map((t) => t.name);
  for (const tool of tools) {
    const result = await step(`tools/call ${tool.name}`, () =>
      client.callTool({ name: tool.name, arguments: toolArgs(tool) }, {
        ...options,
        onprogress: (p) => out.progress.push({ tool: tool.name, ...p }),
      }),
    );
    if (result) out.calls[tool.name] = result;
    if (tool.name === "test_error_handling" && result && result.isError !== true) {
      out.errors.push("test_error_handling did not return isError: true");
    }
  }
  const resources = (await step("resources/list", () => client.listResources({}, options)))?.resources ?? [];
  for (const r of resources) {
    const read = await step(`resources/read ${r.uri}`, () => client.readResource({ uri: r.uri }, options));
    if (read) out.resources[r.uri] = read;
  }
  const templates =
    (await step("resources/templates/list", () => client.listResourceTemplates({}, options)))
      ?.resourceTemplates ?? [];
  for (const t of templates) {
    const uri = t.uriTemplate.replace(/\{[^}]*\}/g, "42");
    out.templates.push(t.uriTemplate);
    const read = await step(`resources/read ${uri}`, () => client.readResource({ uri }, options));
    if (read) out.resources[uri] = read;
  }
  const prompts = (await step("prompts/list", () => client.listPrompts({}, options)))?.prompts ?? [];
  for (const p of prompts) {
    const promptArgs = {};
    for (const a of p.arguments ?? []) promptArgs[a.name] = PROMPT_ARGS[a.name] ?? "test";
    const got = await step(`prompts/get ${p.name}`, () =>
      client.getPrompt({ name: p.name, arguments: promptArgs }, options),
    );
    if (got) out.prompts[p.name] = got;
  }
} catch (e) {
  out.errors.push(`connect: ${e?.message ?? e}`);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(out.errors.length === 0 ? 0 : 1);
