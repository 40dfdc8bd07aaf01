// The web host of the MCP Apps browser test (e2e `apps_browser`): the TypeScript SDK v2 client
// (`@modelcontextprotocol/client`) connects to an MCP server over Streamable HTTP, declaring the
// `io.modelcontextprotocol/ui` extension; the host lists the model-visible tools apart from the
// app-only ones, reads the UI resource of the tool it is asked to show (checking its MIME type),
// and renders it through the sandbox proxy (`sandbox.html`, another origin) with the MCP Apps
// SDK's `AppBridge`. It calls the tool as a model would and hands the view its input and result;
// tool calls from the view reach the server only for tools whose visibility includes "app".
//
// Bundled with esbuild by the test (the packages are not browser ES modules as published).
//
// Query: `server` (the MCP endpoint), `era` (`legacy`, `auto` or `2026-07-28`), `tool` (the tool
// whose UI to show), `args` (its arguments, JSON), `sandbox` (the sandbox proxy's URL).
//
// What it saw is in `window.hostReport` (JSON-able) and on the page:
//   {state, protocolVersion, modelTools, appOnlyTools, resource: {uri, mimeType, meta},
//    toolResult, appCalls: [{name, allowed, isError?}], logs, errors}

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const UI_EXTENSION = "io.modelcontextprotocol/ui";
const HOST_INFO = { name: "mcp-rs-browser-test-host", version: "1.0.0" };

const query = new URLSearchParams(location.search);
const serverUrl = query.get("server");
const era = query.get("era") ?? "legacy";
const toolName = query.get("tool");
const toolArgs = JSON.parse(query.get("args") ?? "{}");
const sandboxUrl = query.get("sandbox");

const report = {
  state: "loading",
  protocolVersion: null,
  modelTools: [],
  appOnlyTools: [],
  resource: null,
  toolResult: null,
  appCalls: [],
  logs: [],
  errors: [],
};
window.hostReport = report;

const $ = (id) => document.getElementById(id);

function setState(state, text) {
  report.state = state;
  document.body.dataset.state = state;
  $("status").textContent = text ?? state;
}

function fail(step, error) {
  const message = `${step}: ${error?.message ?? error}`;
  report.errors.push(message);
  $("errors").textContent = report.errors.join("\n");
  setState("error", `error (${step})`);
}

function listItem(list, text) {
  const li = document.createElement("li");
  li.textContent = text;
  $(list).appendChild(li);
}

/** `_meta.ui.visibility`, `["model", "app"]` when absent (SEP-1865, "Visibility"). */
function visibility(tool) {
  const v = tool?._meta?.ui?.visibility;
  return Array.isArray(v) ? v : ["model", "app"];
}

async function allTools(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** The HTML of a UI resource, checked as the extension requires. */
async function readUiResource(client, uri) {
  const result = await client.readResource({ uri });
  const content = result.contents.find((c) => c.uri === uri);
  if (!content) throw new Error(`resources/read of ${uri} returned no content for that URI`);
  if (content.mimeType !== RESOURCE_MIME_TYPE) {
    throw new Error(`${uri} has MIME type ${content.mimeType}, not ${RESOURCE_MIME_TYPE}`);
  }
  let html;
  if (typeof content.text === "string") html = content.text;
  else if (typeof content.blob === "string") {
    html = new TextDecoder().decode(Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0)));
  } else throw new Error(`${uri} has neither text nor blob`);
  return { uri, mimeType: content.mimeType, html, meta: content._meta?.ui ?? {} };
}

async function main() {
  const mode = era === "2026-07-28" ? { pin: "2026-07-28" } : era;
  const client = new Client(HOST_INFO, {
    capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
    versionNegotiation: { mode },
  });
  setState("connecting");
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl)));
  report.protocolVersion = client.getNegotiatedProtocolVersion();
  $("protocol").textContent = report.protocolVersion;

  const tools = new Map((await allTools(client)).map((t) => [t.name, t]));
  for (const tool of tools.values()) {
    if (visibility(tool).includes("model")) {
      report.modelTools.push(tool.name);
      listItem("model-tools", tool.name);
    } else {
      report.appOnlyTools.push(tool.name);
      listItem("app-tools", tool.name);
    }
  }

  const tool = tools.get(toolName);
  if (!tool || !visibility(tool).includes("model")) {
    throw new Error(`the server offers the model no tool ${toolName}`);
  }
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`tool ${toolName} has no UI resource`);
  const resource = await readUiResource(client, uri);
  report.resource = { uri: resource.uri, mimeType: resource.mimeType, meta: resource.meta };

  const bridge = new AppBridge(
    client,
    HOST_INFO,
    { serverTools: {}, serverResources: {}, logging: {} },
    {
      hostContext: {
        toolInfo: { tool },
        theme: "light",
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        platform: "web",
        locale: "en-US",
      },
    },
  );

  const frame = document.createElement("iframe");
  frame.title = "MCP App sandbox";
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  $("app").appendChild(frame);

  bridge.onsandboxready = () => {
    bridge
      .sendSandboxResourceReady({
        html: resource.html,
        csp: resource.meta.csp,
        permissions: resource.meta.permissions,
      })
      .catch((e) => fail("sandbox-resource-ready", e));
  };
  bridge.oninitialized = async () => {
    try {
      setState("app-initialized");
      await bridge.sendToolInput({ arguments: toolArgs });
      const result = await client.callTool({ name: toolName, arguments: toolArgs });
      report.toolResult = result;
      await bridge.sendToolResult(result);
      setState("ready");
    } catch (e) {
      fail("tool call", e);
    }
  };
  bridge.onsizechange = ({ height }) => {
    if (typeof height === "number") frame.style.height = `${Math.min(Math.max(height, 120), 800)}px`;
  };
  bridge.onloggingmessage = (params) => report.logs.push(params);

  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  // After `connect`, which forwards every tools/call: the view may call only the tools whose
  // visibility includes "app", on this server (SEP-1865, "tools/call behavior").
  bridge.oncalltool = async (params, extra) => {
    const target = tools.get(params.name);
    const allowed = Boolean(target) && visibility(target).includes("app");
    const call = { name: params.name, allowed };
    report.appCalls.push(call);
    listItem("app-calls", `${params.name}: ${allowed ? "forwarded" : "refused"}`);
    if (!allowed) throw new Error(`tool ${params.name} may not be called by the app`);
    const result = await client.callTool(params, { signal: extra?.mcpReq?.signal });
    call.isError = Boolean(result.isError);
    return result;
  };

  const origin = new URL(location.href).origin;
  frame.src = `${sandboxUrl}?host=${encodeURIComponent(origin)}`;
}

main().catch((e) => fail("host", e));
