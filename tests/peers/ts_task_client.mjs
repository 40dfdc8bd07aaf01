#!/usr/bin/env node
// Interop peer: drive an MCP server's 2025-11-25 core tasks with the TypeScript SDK v1 client
// (`@modelcontextprotocol/sdk`, its experimental tasks API), in the legacy era.
//
// Usage: $MCP_TEST_NODE tests/peers/ts_task_client.mjs [--timeout S] [--skip STEP]... --http URL
//        $MCP_TEST_NODE tests/peers/ts_task_client.mjs [--timeout S] [--skip STEP]... -- <server cmd> [args...]
// (--skip takes a step name exactly as it appears in the report, e.g. --skip "plain as task".)
//
// The server must offer the tools of ts_task_server.mjs: slow_task (optional), required_task
// (required), plain (forbidden or absent), failing_task (optional). The client walks through
// them (see STEPS below) and prints ONE JSON document on stdout:
//   {server, steps: [{step, ok, error?, ...observed}], progress, statusNotifications, errors}
// Exit 0 iff every step behaved as the spec says ("errors" empty), 1 otherwise (each error also
// goes to stderr as `ts_task_client: <step>: <error>`), 2 on bad arguments.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  RELATED_TASK_META_KEY,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const SCRIPT = "ts_task_client.mjs";
const USAGE = `usage: ${SCRIPT} [--timeout S] [--skip STEP]... (--http URL | -- <server cmd> [args...])`;
const TTL = 60000;
const STATUSES = ["working", "input_required", "completed", "failed", "cancelled"];
const TERMINAL = ["completed", "failed", "cancelled"];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function parseArgs() {
  const args = process.argv.slice(2);
  let url;
  let command;
  let timeoutMs = 30000;
  const skip = new Set();
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--http") url = args[++i];
    else if (args[i] === "--skip") skip.add(args[++i]);
    else if (args[i] === "--timeout") timeoutMs = Number(args[++i]) * 1000;
    else if (args[i] === "--") {
      command = args.slice(i + 1);
      break;
    } else {
      console.error(`unknown argument ${args[i]}; ${USAGE}`);
      process.exit(2);
    }
  }
  if (!url === !(command && command.length) || !(timeoutMs > 0)) {
    console.error(USAGE);
    process.exit(2);
  }
  return { url, command, timeoutMs, skip };
}

const { url, command, timeoutMs, skip } = parseArgs();
const options = { timeout: timeoutMs };
const out = { server: {}, steps: [], progress: [], statusNotifications: [], errors: [] };

const client = new Client({ name: "ts-task-interop-client", version: "1.0.0" }, { capabilities: {} });
client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
  out.statusNotifications.push(n.params);
});

/** Runs one step: `fn(rec, fail)` records observed values on `rec` and calls `fail(msg)` for each deviation. */
async function step(name, fn) {
  if (skip.has(name)) {
    out.steps.push({ step: name, ok: true, skipped: true });
    return undefined;
  }
  const rec = { step: name, ok: false };
  out.steps.push(rec);
  const failures = [];
  try {
    await fn(rec, (msg) => failures.push(msg));
  } catch (e) {
    failures.push(`unexpected error: ${describe(e)}`);
  }
  rec.ok = failures.length === 0;
  if (!rec.ok) {
    rec.error = failures.join("; ");
    out.errors.push(`${name}: ${rec.error}`);
  }
  return rec;
}

const describe = (e) => (e?.code !== undefined ? `${e.code} ${e.message}` : String(e?.message ?? e));
const textOf = (result) => (result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

/** Checks the spec's required Task fields. */
function checkTask(task, fail, where) {
  if (!task || typeof task !== "object") return fail(`${where}: no task object`);
  if (typeof task.taskId !== "string" || !task.taskId) fail(`${where}: taskId missing`);
  if (!STATUSES.includes(task.status)) fail(`${where}: bad status ${JSON.stringify(task.status)}`);
  for (const k of ["createdAt", "lastUpdatedAt"]) {
    if (typeof task[k] !== "string" || Number.isNaN(Date.parse(task[k]))) fail(`${where}: ${k} is not an ISO 8601 time`);
  }
  if (!("ttl" in task) || !(task.ttl === null || Number.isInteger(task.ttl))) fail(`${where}: ttl must be an integer or null`);
  if ("pollInterval" in task && !Number.isInteger(task.pollInterval)) fail(`${where}: pollInterval is not an integer`);
}

/** Checks a tasks/result payload: CallToolResult text, isError, and the related-task _meta. */
function checkPayload(result, taskId, fail, { text, isError }) {
  if (textOf(result) !== text) fail(`tasks/result text ${JSON.stringify(textOf(result))}, expected ${JSON.stringify(text)}`);
  if ((result?.isError === true) !== isError) fail(`tasks/result isError ${result?.isError}, expected ${isError}`);
  const related = result?._meta?.[RELATED_TASK_META_KEY]?.taskId;
  if (related !== taskId) fail(`tasks/result _meta["${RELATED_TASK_META_KEY}"].taskId is ${JSON.stringify(related)}, expected ${taskId}`);
}

/** Expects `promise` to reject with JSON-RPC error `code`; records what came back. */
async function expectError(rec, promise, code, fail) {
  try {
    const result = await promise;
    rec.result = result;
    fail(`expected JSON-RPC error ${code}, got a result`);
  } catch (e) {
    rec.errorCode = e?.code;
    rec.errorMessage = e?.message;
    if (e?.code !== code) fail(`expected JSON-RPC error ${code}, got ${describe(e)}`);
  }
}

/** tools/call with `task` by hand (so the SDK's client-side guards do not interfere). */
async function createTask(name, args, task = { ttl: TTL }) {
  return client.request({ method: "tools/call", params: { name, arguments: args } }, CreateTaskResultSchema, {
    ...options,
    task,
  });
}

/** Polls tasks/get, honouring pollInterval, until `done(task)`; records every status seen. */
async function pollUntil(taskId, rec, done, limitMs = timeoutMs) {
  const deadline = Date.now() + limitMs;
  rec.polled = rec.polled ?? [];
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId, options);
    rec.polled.push(task.status);
    if (done(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status} after ${limitMs} ms`);
    await sleep(Math.min(task.pollInterval ?? 1000, 1000));
  }
}

const STEPS = async () => {
  const caps = out.server.capabilities ?? {};

  await step("capabilities", async (rec, fail) => {
    rec.tasks = caps.tasks;
    if (!caps.tasks) return fail("server does not declare the tasks capability");
    if (!caps.tasks.requests?.tools?.call) fail("tasks.requests.tools.call is not declared");
    if (!caps.tasks.list) fail("tasks.list is not declared");
    if (!caps.tasks.cancel) fail("tasks.cancel is not declared");
  });

  await step("tools/list", async (rec, fail) => {
    const { tools } = await client.listTools({}, options);
    rec.taskSupport = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport ?? null]));
    const want = { slow_task: ["optional"], required_task: ["required"], plain: ["forbidden", null], failing_task: ["optional"] };
    for (const [name, allowed] of Object.entries(want)) {
      if (!(name in rec.taskSupport)) fail(`tool ${name} is missing`);
      else if (!allowed.includes(rec.taskSupport[name])) fail(`${name} has taskSupport ${rec.taskSupport[name]}, expected ${allowed.join(" or ")}`);
    }
  });

  // The SDK's own streaming API: tools/call with task, then tasks/get until terminal, then tasks/result.
  let slowTaskId;
  await step("slow_task as task (callToolStream)", async (rec, fail) => {
    const steps = 3;
    rec.statuses = [];
    rec.pollIntervals = [];
    const started = Date.now();
    const stream = client.experimental.tasks.callToolStream(
      { name: "slow_task", arguments: { steps, ms: 100 } },
      CallToolResultSchema,
      { ...options, task: { ttl: TTL }, onprogress: (p) => out.progress.push({ tool: "slow_task", ...p }) },
    );
    for await (const message of stream) {
      if (message.type === "taskCreated") {
        rec.created = message.task;
        slowTaskId = message.task.taskId;
        checkTask(message.task, fail, "CreateTaskResult.task");
        if (message.task.status !== "working") fail(`created task has status ${message.task.status}, expected working`);
      } else if (message.type === "taskStatus") {
        checkTask(message.task, fail, "tasks/get");
        rec.statuses.push(message.task.status);
        rec.pollIntervals.push(message.task.pollInterval ?? null);
      } else if (message.type === "result") {
        rec.result = message.result;
      } else if (message.type === "error") {
        fail(`stream error: ${describe(message.error)}`);
      }
    }
    rec.elapsedMs = Date.now() - started;
    if (!rec.created) return fail("no CreateTaskResult");
    if (rec.statuses.at(-1) !== "completed") fail(`last status ${rec.statuses.at(-1)}, expected completed`);
    if (rec.result) checkPayload(rec.result, slowTaskId, fail, { text: `slow_task done after ${steps} steps`, isError: false });
    else fail("no tasks/result payload");
    // Progress keeps its token for the task's lifetime; over HTTP it comes on the GET stream, so allow it a moment.
    for (let i = 0; i < 10 && out.progress.filter((p) => p.tool === "slow_task").length < steps; i++) await sleep(50);
    rec.progress = out.progress.filter((p) => p.tool === "slow_task").map((p) => p.progress);
    if (rec.progress.length !== steps) fail(`saw ${rec.progress.length} progress notifications, expected ${steps}`);
  });

  await step("tasks/get after completion", async (rec, fail) => {
    if (!slowTaskId) return fail("no task from the previous step");
    const task = await client.experimental.tasks.getTask(slowTaskId, options);
    rec.task = task;
    checkTask(task, fail, "tasks/get");
    if (task.status !== "completed") fail(`status ${task.status}, expected completed`);
    if (task.taskId !== slowTaskId) fail(`taskId ${task.taskId}, expected ${slowTaskId}`);
  });

  await step("tasks/list", async (rec, fail) => {
    const tasks = [];
    let cursor;
    for (let page = 0; page < 100; page++) {
      const result = await client.experimental.tasks.listTasks(cursor, options);
      tasks.push(...result.tasks);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    rec.tasks = tasks.map((t) => ({ taskId: t.taskId, status: t.status }));
    for (const t of tasks) checkTask(t, fail, "tasks/list entry");
    const mine = tasks.find((t) => t.taskId === slowTaskId);
    if (!mine) fail(`the slow_task task ${slowTaskId} is not listed`);
    else if (mine.status !== "completed") fail(`listed with status ${mine.status}, expected completed`);
  });

  await step("tasks/result again (terminal task)", async (rec, fail) => {
    if (!slowTaskId) return fail("no task from an earlier step");
    rec.result = await client.experimental.tasks.getTaskResult(slowTaskId, CallToolResultSchema, options);
    checkPayload(rec.result, slowTaskId, fail, { text: "slow_task done after 3 steps", isError: false });
  });

  await step("slow_task as task, cancelled", async (rec, fail) => {
    const created = await createTask("slow_task", { steps: 1000, ms: 100 });
    const taskId = created.task.taskId;
    rec.created = created.task;
    checkTask(created.task, fail, "CreateTaskResult.task");
    const before = await client.experimental.tasks.getTask(taskId, options);
    rec.before = before.status;
    if (before.status !== "working") fail(`status before cancel ${before.status}, expected working`);
    const cancelled = await client.experimental.tasks.cancelTask(taskId, options);
    rec.cancelResult = cancelled;
    checkTask(cancelled, fail, "tasks/cancel result");
    if (cancelled.status !== "cancelled") fail(`tasks/cancel returned status ${cancelled.status}, expected cancelled`);
    const after = await client.experimental.tasks.getTask(taskId, options);
    rec.after = after.status;
    if (after.status !== "cancelled") fail(`status after cancel ${after.status}, expected cancelled`);
    // Once cancelled it MUST stay cancelled even if execution goes on.
    await sleep(Math.max(300, 3 * (after.pollInterval ?? 100)));
    const later = await client.experimental.tasks.getTask(taskId, options);
    rec.later = later.status;
    if (later.status !== "cancelled") fail(`status later ${later.status}, expected to stay cancelled`);
    const again = {};
    await expectError(again, client.experimental.tasks.cancelTask(taskId, options), -32602, (m) =>
      fail(`tasks/cancel of a cancelled task: ${m}`),
    );
    rec.cancelAgain = again;
    const listed = (await client.experimental.tasks.listTasks(undefined, options)).tasks.find((t) => t.taskId === taskId);
    rec.listed = listed?.status ?? null;
  });

  await step("required_task as task (callToolStream)", async (rec, fail) => {
    rec.statuses = [];
    let taskId;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "required_task", arguments: {} },
      CallToolResultSchema,
      { ...options, task: { ttl: TTL } },
    )) {
      if (message.type === "taskCreated") {
        taskId = message.task.taskId;
        checkTask(message.task, fail, "CreateTaskResult.task");
      } else if (message.type === "taskStatus") rec.statuses.push(message.task.status);
      else if (message.type === "result") rec.result = message.result;
      else if (message.type === "error") fail(`stream error: ${describe(message.error)}`);
    }
    if (!taskId) return fail("no CreateTaskResult");
    if (rec.result) checkPayload(rec.result, taskId, fail, { text: "required done", isError: false });
    else fail("no tasks/result payload");
  });

  await step("plain called normally", async (rec, fail) => {
    rec.result = await client.callTool({ name: "plain", arguments: {} }, CallToolResultSchema, options);
    if (textOf(rec.result) !== "plain done") fail(`text ${JSON.stringify(textOf(rec.result))}, expected "plain done"`);
    if (rec.result.task) fail("a plain call came back with a task");
  });

  // Sent by hand: after tools/list the SDK's callTool refuses locally (-32600) without sending anything.
  await step("required_task without task", async (rec, fail) => {
    await expectError(
      rec,
      client.request({ method: "tools/call", params: { name: "required_task", arguments: {} } }, CallToolResultSchema, options),
      -32601,
      fail,
    );
  });

  await step("plain as task", async (rec, fail) => {
    await expectError(rec, createTask("plain", {}), -32601, fail);
  });

  // Polled by hand: the SDK's callToolStream ends a failed task with a local error and never calls tasks/result.
  await step("failing_task as task", async (rec, fail) => {
    const created = await createTask("failing_task", {});
    const taskId = created.task.taskId;
    checkTask(created.task, fail, "CreateTaskResult.task");
    const task = await pollUntil(taskId, rec, (t) => TERMINAL.includes(t.status));
    rec.task = task;
    checkTask(task, fail, "tasks/get");
    if (task.status !== "failed") fail(`final status ${task.status}, expected failed`);
    rec.result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, options);
    checkPayload(rec.result, taskId, fail, { text: "task failed on purpose", isError: true });
  });

  await step("failing_task called normally", async (rec, fail) => {
    rec.result = await client.request(
      { method: "tools/call", params: { name: "failing_task", arguments: {} } },
      CallToolResultSchema,
      options,
    );
    if (rec.result.isError !== true) fail("expected isError: true");
    if (textOf(rec.result) !== "task failed on purpose") fail(`text ${JSON.stringify(textOf(rec.result))}`);
  });

  await step("unknown taskId", async (rec, fail) => {
    const bogus = "no-such-task";
    for (const [method, call] of [
      ["tasks/get", () => client.experimental.tasks.getTask(bogus, options)],
      ["tasks/result", () => client.experimental.tasks.getTaskResult(bogus, CallToolResultSchema, options)],
      ["tasks/cancel", () => client.experimental.tasks.cancelTask(bogus, options)],
    ]) {
      const r = {};
      await expectError(r, call(), -32602, (m) => fail(`${method}: ${m}`));
      rec[method] = r;
    }
  });
};

try {
  const transport = url
    ? new StreamableHTTPClientTransport(new URL(url))
    : new StdioClientTransport({ command: command[0], args: command.slice(1), env: { ...process.env }, stderr: "inherit" });
  // Protocol.connect chains to a handler already set, so this sees every incoming message first.
  let protocolVersion;
  transport.onmessage = (message) => {
    protocolVersion ??= message?.result?.protocolVersion;
  };
  await client.connect(transport);
  const info = client.getServerVersion();
  out.server = {
    protocolVersion,
    capabilities: client.getServerCapabilities(),
    name: info?.name,
    version: info?.version,
  };
  await STEPS();
} catch (e) {
  out.errors.push(`connect: ${describe(e)}`);
} finally {
  await client.close().catch(() => {});
}
for (const e of out.errors) console.error(`ts_task_client: ${e}`);
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(out.errors.length === 0 ? 0 : 1);
