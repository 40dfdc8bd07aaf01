#!/usr/bin/env node
// Interop peer: an MCP server that is the *requestor* of 2025-11-25 client-side tasks, built with the
// TypeScript SDK (@modelcontextprotocol/sdk 1.x), for our Rust client to act as task receiver against.
//
//   node ts_task_requestor.mjs              # stdio (default)
//   node ts_task_requestor.mjs --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp (stateful sessions;
//                                           # PORT 0 picks a free port; the URL is printed on stderr)
//
// Tools (no arguments; each has a 20 s budget for all its requests to the client):
//   elicit_as_task      elicitation/create {task: {ttl: 60000}}, tasks/get until terminal, tasks/result
//                       -> `elicited <action> <colour> via <taskId>`, structuredContent {created, polled, result}
//   sample_as_task      sampling/createMessage {task: {ttl: 60000}}, same polling
//                       -> `sampled <text> via <taskId>`, structuredContent {created, polled, result}
//   list_client_tasks   tasks/list (all pages) -> `<n> tasks`, structuredContent {tasks}
//   cancel_client_task  elicitation/create "Wait forever?" {task}, then tasks/cancel, then tasks/get
//                       -> `cancelled <status>`, structuredContent {created, cancelReply, afterGet}
// A missing client capability gives an isError result `client does not take elicitation tasks` (or
// `... sampling tasks`, `client does not list tasks`, `client does not cancel tasks`); a JSON-RPC error or a
// malformed reply gives an isError result `<step> failed: error <code>: <message>` (or
// `<step> failed: <what>`), structuredContent {step, code?, message, reply?}.
//
// Server→client requests go out through the tools/call's own `extra.sendRequest` (over HTTP: on that
// POST's SSE stream). No task store here: this server receives no tasks. Logs go to stderr only.
import { serve } from './ts_v1_serve.mjs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CreateMessageResultSchema,
  CreateTaskResultSchema,
  ElicitResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  CancelTaskResultSchema,
  ResultSchema
} from '@modelcontextprotocol/sdk/types.js';

const NAME = 'ts_task_requestor';
const TTL = 60000;
const BUDGET_MS = 20000;
const TERMINAL = ['completed', 'failed', 'cancelled'];
const COLOUR_SCHEMA = { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ok = (text, structuredContent) => ({ content: [{ type: 'text', text }], structuredContent });
const toolError = (text, structuredContent) => ({
  content: [{ type: 'text', text }],
  ...(structuredContent && { structuredContent }),
  isError: true
});

/** A failed step: becomes an isError tool result. */
class StepError extends Error {
  constructor(step, message, { code, reply } = {}) {
    super(message);
    this.step = step;
    this.code = code;
    this.reply = reply;
  }
  toResult() {
    const text = this.code !== undefined ? `${this.step} failed: error ${this.code}: ${this.message}` : `${this.step} failed: ${this.message}`;
    return toolError(text, {
      step: this.step,
      ...(this.code !== undefined && { code: this.code }),
      message: this.message,
      ...(this.reply !== undefined && { reply: this.reply })
    });
  }
}

/** The request context of one tool call: sends requests to the client within a shared time budget. */
function requestor(extra) {
  const deadline = Date.now() + BUDGET_MS;
  const remaining = () => deadline - Date.now();
  // Sends `method` with `params` (params omitted when undefined) and checks the reply against `schema`;
  // returns the reply as received (unknown fields and _meta kept).
  const send = async (method, params, schema, what) => {
    let reply;
    try {
      reply = await extra.sendRequest({ method, ...(params !== undefined && { params }) }, ResultSchema, {
        timeout: Math.max(1000, remaining()),
        signal: extra.signal
      });
    } catch (e) {
      const code = Number.isSafeInteger(e?.code) ? e.code : undefined;
      const message = String(e?.message ?? e).replace(/^MCP error -?\d+: /, '');
      throw new StepError(method, message, { code });
    }
    const parsed = schema.safeParse(reply);
    if (!parsed.success) {
      throw new StepError(method, `reply is not a ${what}: ${parsed.error.message.replace(/\s+/g, ' ')}`, { reply });
    }
    return reply;
  };
  return { send, remaining };
}

/** A task-augmented request; returns the task of its CreateTaskResult. */
async function createTask(req, method, params) {
  const reply = await req.send(method, { ...params, task: { ttl: TTL } }, CreateTaskResultSchema, 'CreateTaskResult');
  return reply.task;
}

/** Polls tasks/get, waiting pollInterval between polls, until the task is terminal (or input_required,
 *  which the spec answers with tasks/result); returns the statuses seen. */
async function pollUntilTerminal(req, created) {
  const polled = [];
  let pollInterval = created.pollInterval;
  for (;;) {
    const task = await req.send('tasks/get', { taskId: created.taskId }, GetTaskResultSchema, 'GetTaskResult');
    polled.push(task.status);
    if (TERMINAL.includes(task.status) || task.status === 'input_required') return polled;
    pollInterval = task.pollInterval ?? pollInterval ?? 1000;
    if (req.remaining() < pollInterval) {
      throw new StepError('tasks/get', `task ${created.taskId} still ${task.status} after ${BUDGET_MS} ms`);
    }
    await sleep(pollInterval);
  }
}

/** Creates a task for `method`, polls it to the end and fetches its payload. */
async function runAsTask(extra, method, params, payloadSchema, payloadName) {
  const req = requestor(extra);
  const created = await createTask(req, method, params);
  const polled = await pollUntilTerminal(req, created);
  const result = await req.send('tasks/result', { taskId: created.taskId }, payloadSchema, payloadName);
  return { created, polled, result };
}

const guarded = (fn) => async (_args, extra) => {
  try {
    return await fn(extra);
  } catch (e) {
    if (e instanceof StepError) return e.toResult();
    console.error(`${NAME}: ${e?.stack ?? e}`);
    return toolError(`internal error: ${e?.message ?? e}`);
  }
};

function createServer() {
  const mcp = new McpServer({ name: 'ts-task-requestor', version: '1.0.0' }, { capabilities: { tools: {} } });
  const clientTasks = () => mcp.server.getClientCapabilities()?.tasks;

  mcp.registerTool(
    'elicit_as_task',
    { description: 'Asks the client for a colour with a task-augmented elicitation/create', inputSchema: {} },
    guarded(async (extra) => {
      if (!clientTasks()?.requests?.elicitation?.create) return toolError('client does not take elicitation tasks');
      const out = await runAsTask(
        extra,
        'elicitation/create',
        { mode: 'form', message: 'Your favourite colour?', requestedSchema: COLOUR_SCHEMA },
        ElicitResultSchema,
        'ElicitResult'
      );
      const colour = out.result.content?.colour ?? '-';
      return ok(`elicited ${out.result.action} ${colour} via ${out.created.taskId}`, out);
    })
  );

  mcp.registerTool(
    'sample_as_task',
    { description: 'Asks the client for a completion with a task-augmented sampling/createMessage', inputSchema: {} },
    guarded(async (extra) => {
      if (!clientTasks()?.requests?.sampling?.createMessage) return toolError('client does not take sampling tasks');
      const out = await runAsTask(
        extra,
        'sampling/createMessage',
        { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 },
        CreateMessageResultSchema,
        'CreateMessageResult'
      );
      const blocks = Array.isArray(out.result.content) ? out.result.content : [out.result.content];
      const text = blocks.filter((b) => b?.type === 'text').map((b) => b.text).join('');
      return ok(`sampled ${text} via ${out.created.taskId}`, out);
    })
  );

  mcp.registerTool(
    'list_client_tasks',
    { description: "Lists the client's tasks (tasks/list, all pages)", inputSchema: {} },
    guarded(async (extra) => {
      if (!clientTasks()?.list) return toolError('client does not list tasks');
      const req = requestor(extra);
      const tasks = [];
      let cursor;
      for (let page = 0; page < 100; page++) {
        const reply = await req.send('tasks/list', cursor === undefined ? undefined : { cursor }, ListTasksResultSchema, 'ListTasksResult');
        tasks.push(...reply.tasks);
        cursor = reply.nextCursor;
        if (!cursor) break;
      }
      return ok(`${tasks.length} tasks`, { tasks });
    })
  );

  mcp.registerTool(
    'cancel_client_task',
    { description: 'Starts a slow elicitation task on the client, then cancels it (tasks/cancel, tasks/get)', inputSchema: {} },
    guarded(async (extra) => {
      if (!clientTasks()?.requests?.elicitation?.create) return toolError('client does not take elicitation tasks');
      if (!clientTasks()?.cancel) return toolError('client does not cancel tasks');
      const req = requestor(extra);
      const created = await createTask(req, 'elicitation/create', {
        mode: 'form',
        message: 'Wait forever?',
        requestedSchema: COLOUR_SCHEMA
      });
      const cancelReply = await req.send('tasks/cancel', { taskId: created.taskId }, CancelTaskResultSchema, 'CancelTaskResult');
      const afterGet = await req.send('tasks/get', { taskId: created.taskId }, GetTaskResultSchema, 'GetTaskResult');
      return ok(`cancelled ${afterGet.status}`, { created, cancelReply, afterGet });
    })
  );
  return mcp;
}

await serve(NAME, createServer, { exitOnStdinEnd: true });
