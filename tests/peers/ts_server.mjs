#!/usr/bin/env node
// Interop peer: a small MCP server built with the TypeScript SDK (@modelcontextprotocol/sdk 1.x),
// for our Rust client to test against.
//
//   node ts_server.mjs              # stdio (default)
//   node ts_server.mjs --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp (stateful sessions)
//
// Needs node_modules next to this file (symlink to .tools/npm/node_modules). Logs go to stderr only.
import { serve } from './ts_v1_serve.mjs';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { z } from 'zod';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });

function createServer() {
  const mcp = new McpServer(
    { name: 'ts-interop-server', version: '1.0.0' },
    { capabilities: { logging: {}, completions: {} } }
  );
  // Log notification related to the current request (so over HTTP it rides the POST's SSE stream),
  // honouring the level set with logging/setLevel.
  const log = async (extra, level, data) => {
    if (mcp.server.isMessageIgnored(level, extra.sessionId)) return;
    await extra.sendNotification({ method: 'notifications/message', params: { level, logger: 'ts_server', data } });
  };

  mcp.registerTool(
    'echo',
    { description: 'Echoes the message back', inputSchema: { message: z.string() } },
    async ({ message }, extra) => {
      await log(extra, 'info', `echo called with: ${message}`);
      return text(`Echo: ${message}`);
    }
  );
  mcp.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() }
    },
    async ({ a, b }) => ({ ...text(String(a + b)), structuredContent: { sum: a + b } })
  );
  mcp.registerTool(
    'slow',
    { description: 'Reports 3 progress notifications, then returns', inputSchema: {} },
    async (_args, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let i = 1; i <= 3; i++) {
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: i, total: 3, message: `step ${i} of 3` }
          });
        }
        await sleep(20);
      }
      return text('slow done');
    }
  );
  mcp.registerTool(
    'ask_user',
    { description: 'Asks the user (form elicitation) and returns the answer', inputSchema: {} },
    async (_args, extra) => {
      const result = await mcp.server.elicitInput(
        {
          mode: 'form',
          message: 'What is your answer?',
          requestedSchema: {
            type: 'object',
            properties: { answer: { type: 'string', description: 'Your answer' } },
            required: ['answer']
          }
        },
        { relatedRequestId: extra.requestId }
      );
      return text(result.action === 'accept' ? String(result.content?.answer) : `elicitation ${result.action}`);
    }
  );
  mcp.registerTool(
    'ask_model',
    { description: 'Asks the client LLM (sampling) and returns its text', inputSchema: { prompt: z.string().optional() } },
    async ({ prompt }, extra) => {
      const result = await mcp.server.createMessage(
        {
          messages: [{ role: 'user', content: { type: 'text', text: prompt ?? 'Say hello' } }],
          maxTokens: 100
        },
        { relatedRequestId: extra.requestId }
      );
      return text(result.content.type === 'text' ? result.content.text : JSON.stringify(result.content));
    }
  );
  mcp.registerTool('fail', { description: 'Always fails with isError: true', inputSchema: {} }, async () => ({
    ...text('This tool always fails'),
    isError: true
  }));

  mcp.registerResource(
    'hello',
    'test://hello',
    { title: 'Hello', description: 'A static greeting', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Hello from TypeScript' }] })
  );
  mcp.registerResource(
    'item',
    new ResourceTemplate('test://items/{id}', {
      list: undefined,
      complete: { id: (value) => ['1', '2', '3', '42'].filter((id) => id.startsWith(value)) }
    }),
    { title: 'Item', description: 'An item by id', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, name: `Item ${id}` }) }]
    })
  );

  mcp.registerPrompt(
    'greet',
    {
      title: 'Greet',
      description: 'Greets someone by name',
      argsSchema: { name: completable(z.string(), (value) => ['Alice', 'Bob'].filter((n) => n.startsWith(value))) }
    },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] })
  );
  return mcp;
}

await serve('ts_server', createServer);
