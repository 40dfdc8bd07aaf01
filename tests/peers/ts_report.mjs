// What ts_client.mjs (TypeScript SDK v1) and ts_client_v2.mjs (v2) share: the arguments, the
// answers to sampling and elicitation, and the walk through a server (every tool, resource,
// template and prompt) that fills ONE JSON report. Mirrors python_client.py.

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

/** `--timeout S --http URL` from the command line (exits 2 on anything else). */
export function parseArgs(script) {
  const args = process.argv.slice(2);
  let url;
  let timeoutMs = 30000;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--http") url = args[++i];
    else if (args[i] === "--timeout") timeoutMs = Number(args[++i]) * 1000;
    else {
      console.error(`unknown argument ${args[i]}; usage: ${script} [--timeout S] --http URL`);
      process.exit(2);
    }
  }
  if (!url) {
    console.error(`usage: ${script} [--timeout S] --http URL`);
    process.exit(2);
  }
  return { url, timeoutMs };
}

/** An empty report. */
export function newReport() {
  return {
    server: {}, tools: [], calls: {}, resources: {}, templates: [], prompts: {},
    logs: [], progress: [], sampling: [], elicitations: [], errors: [],
  };
}

/** A value for one property of an elicitation form: its default, else a plausible one. */
function answer(prop, text) {
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
  return text;
}

/** The answer to a sampling request, recorded. */
export function sample(out, params, text) {
  out.sampling.push(params);
  return { role: "assistant", content: { type: "text", text }, model: "ts-test-model", stopReason: "endTurn" };
}

/** The answer to an elicitation request, recorded: accept a form, decline a URL. */
export function elicit(out, params, text) {
  out.elicitations.push(params);
  if (params.mode === "url") return { action: "decline" };
  const content = {};
  for (const [name, prop] of Object.entries(params.requestedSchema?.properties ?? {})) {
    content[name] = answer(prop, text);
  }
  return { action: "accept", content };
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

/**
 * Walks a connected `client` through the server into `out`. `callTool(name, args, onprogress)`
 * calls a tool the way the SDK at hand wants it called.
 */
export async function exercise(client, out, options, callTool) {
  async function step(what, fn) {
    try {
      return await fn();
    } catch (e) {
      out.errors.push(`${what}: ${e?.message ?? e}`);
      return undefined;
    }
  }
  const tools = (await step("tools/list", () => client.listTools({}, options)))?.tools ?? [];
  out.tools = tools.map((t) => t.name);
  for (const tool of tools) {
    const result = await step(`tools/call ${tool.name}`, () =>
      callTool(tool.name, toolArgs(tool), (p) => out.progress.push({ tool: tool.name, ...p })),
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
}

/** Prints the report and exits 0 iff it holds no error. */
export function finish(out) {
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(out.errors.length === 0 ? 0 : 1);
}
