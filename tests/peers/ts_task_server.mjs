#!/usr/bin/env node
// Interop peer: an MCP server with 2025-11-25 core tasks, built with the TypeScript SDK
// (@modelcontextprotocol/sdk 1.x, experimental tasks API), for our Rust client to test against.
//
//   node ts_task_server.mjs              # stdio (default)
//   node ts_task_server.mjs --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp (stateful sessions)
//   ... --sdk-native                     # keep SDK 1.32.2's own answers to taskSupport mismatches
//
// Tools:
//   slow_task    {steps?: int = 3, ms?: int = 100}  taskSupport optional   progress each step, then `slow_task done after N steps`
//   required_task {}                                taskSupport required   `required done`
//   plain        {}                                 taskSupport forbidden  `plain done`
//   failing_task {}                                 taskSupport optional   isError `task failed on purpose` (task status failed)
//
// Capabilities: tasks {list, cancel, requests.tools.call} with the SDK's InMemoryTaskStore (one store
// for the process; the SDK scopes its tasks by HTTP session) and InMemoryTaskMessageQueue.
// Needs node_modules next to this file (symlink to .tools/npm/node_modules). Logs go to stderr only.
import { serve } from './ts_v1_serve.mjs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { CallToolRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const NAME = 'ts_task_server';
// --sdk-native: keep the SDK's own (non-spec) answers for taskSupport mismatches (see below).
const SDK_NATIVE = process.argv.includes('--sdk-native');
// Suggested polling interval put on every task (the SDK's store defaults to 1000 ms).
const POLL_INTERVAL_MS = 100;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });
const taskStore = new InMemoryTaskStore();
const taskMessageQueue = new InMemoryTaskMessageQueue();

function createServer() {
  const mcp = new McpServer(
    { name: 'ts-task-interop-server', version: '1.0.0' },
    {
      capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore,
      taskMessageQueue
    }
  );

  // A notification about a request: on the request's own stream while it is open, else (the
  // tools/call already answered with its CreateTaskResult) on the standalone stream (HTTP GET SSE).
  const notify = async (extra, notification) => {
    try {
      await extra.sendNotification(notification);
    } catch {
      await mcp.server.notification(notification).catch((e) => console.error(`${NAME}: notification lost: ${e}`));
    }
  };

  // Creates the task and runs `work(task, isLive)` in the background; `isLive()` is false once the
  // task is no longer `working` (cancelled by tasks/cancel, or gone after its ttl).
  // The result is stored through the request's task store, so the SDK sends notifications/tasks/status.
  const startTask = async (extra, work) => {
    const store = extra.taskStore;
    const task = await store.createTask({ ttl: extra.taskRequestedTtl, pollInterval: POLL_INTERVAL_MS });
    const isLive = async () => {
      try {
        return (await store.getTask(task.taskId)).status === 'working';
      } catch {
        return false;
      }
    };
    (async () => {
      try {
        const outcome = await work(task, isLive);
        if (outcome && (await isLive())) await store.storeTaskResult(task.taskId, outcome.status, outcome.result);
      } catch (e) {
        console.error(`${NAME}: task ${task.taskId}: ${e?.message ?? e}`);
      }
    })();
    return { task };
  };
  // getTask / getTaskResult of a ToolTaskHandler: the SDK's Protocol answers tasks/get and tasks/result
  // from the store itself, so these are never called; they are required by registerToolTask.
  const lookups = {
    getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId)
  };

  mcp.experimental.tasks.registerToolTask(
    'slow_task',
    {
      description: 'Reports progress once per step (ms apart), then returns; may run as a task',
      inputSchema: { steps: z.number().int().min(0).default(3), ms: z.number().int().min(0).default(100) },
      execution: { taskSupport: 'optional' }
    },
    {
      createTask: async ({ steps, ms }, extra) => {
        const progressToken = extra._meta?.progressToken;
        return startTask(extra, async (_task, isLive) => {
          for (let i = 1; i <= steps; i++) {
            await sleep(ms);
            if (!(await isLive())) return undefined;
            if (progressToken !== undefined) {
              await notify(extra, {
                method: 'notifications/progress',
                params: { progressToken, progress: i, total: steps, message: `step ${i} of ${steps}` }
              });
            }
          }
          return { status: 'completed', result: text(`slow_task done after ${steps} steps`) };
        });
      },
      ...lookups
    }
  );
  mcp.experimental.tasks.registerToolTask(
    'required_task',
    { description: 'Must be called as a task', inputSchema: {}, execution: { taskSupport: 'required' } },
    {
      createTask: async (_args, extra) =>
        startTask(extra, async () => {
          await sleep(50);
          return { status: 'completed', result: text('required done') };
        }),
      ...lookups
    }
  );
  mcp.registerTool('plain', { description: 'An ordinary tool (taskSupport forbidden)', inputSchema: {} }, async () =>
    text('plain done')
  );
  mcp.experimental.tasks.registerToolTask(
    'failing_task',
    { description: 'Fails with isError: true; as a task it ends failed', inputSchema: {}, execution: { taskSupport: 'optional' } },
    {
      createTask: async (_args, extra) =>
        startTask(extra, async () => {
          await sleep(50);
          return { status: 'failed', result: { ...text('task failed on purpose'), isError: true } };
        }),
      ...lookups
    }
  );

  // Two SDK 1.32.2 answers differ from the spec's Tool-Level Negotiation, which wants -32601
  // (Method not found) for both; unless --sdk-native is given, they are corrected here, ahead of the
  // SDK's own tools/call handler:
  // - taskSupport 'required' called without `task`: McpServer throws -32601 but then catches it into an
  //   isError tool result (text "MCP error -32601: Tool X requires task augmentation ...").
  // - taskSupport 'forbidden' called with `task`: the tool runs and its CallToolResult then fails the
  //   SDK's CreateTaskResult check: error -32602 "Invalid task creation result: ...".
  if (!SDK_NATIVE) {
    const sdkCallTool = mcp.server._requestHandlers.get('tools/call');
    mcp.server._requestHandlers.set('tools/call', async (request, extra) => {
      const parsed = CallToolRequestSchema.safeParse(request);
      const name = parsed.success ? parsed.data.params.name : undefined;
      const tool = name === undefined ? undefined : mcp._registeredTools[name];
      const support = tool?.execution?.taskSupport ?? 'forbidden';
      const asTask = parsed.success && parsed.data.params.task !== undefined;
      if (tool && support === 'required' && !asTask) {
        throw new McpError(ErrorCode.MethodNotFound, `Tool ${name} requires task augmentation (taskSupport: 'required')`);
      }
      if (tool && support === 'forbidden' && asTask) {
        throw new McpError(ErrorCode.MethodNotFound, `Tool ${name} does not support task augmentation (taskSupport: 'forbidden')`);
      }
      return sdkCallTool(request, extra);
    });
  }
  return mcp;
}

await serve(NAME, createServer, { exitOnStdinEnd: true });
