#!/usr/bin/env node
// Interop peer: a small MCP server built with the TypeScript SDK v2 (`@modelcontextprotocol/server`,
// pinned in xtask/peers/package.json), for our Rust client to test against. Same surface as
// ts_server.mjs, served in BOTH protocol eras from one process: the 2026-07-28 stateless era
// (server/discover, per-request `_meta`, input_required results) and the 2025-11-25 handshake era.
//
//   node ts_server_v2.mjs              # stdio (default): serveStdio, the opening message picks the era
//   node ts_server_v2.mjs --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp
//
// Over HTTP, modern requests (with the `_meta` envelope) go to createMcpHandler (one fresh server per
// request); 2025-era requests go to a sessionful WebStandardStreamableHTTPServerTransport wiring (like
// ts_server.mjs), so elicitation and sampling work there too. ask_user / ask_model are written once,
// multi-round-trip style: they return `inputRequired(...)`; on 2026-07-28 that is the wire result and
// the client retries with `inputResponses`; on 2025-11-25 the SDK's legacy shim sends the real
// elicitation/create or sampling/createMessage request and re-enters the handler with the answer.
//
// Needs node_modules next to this file (symlink to .tools/npm/node_modules). Logs go to stderr only.
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import {
  McpServer,
  ResourceTemplate,
  WebStandardStreamableHTTPServerTransport,
  completable,
  createMcpHandler,
  hostHeaderValidationResponse,
  inputRequired,
  inputResponse,
  isInitializeRequest,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });

// One factory for both eras (the SDK calls it per connection on stdio, per request on modern HTTP).
function createServer() {
  const mcp = new McpServer(
    { name: 'ts-v2-interop-server', version: '1.0.0' },
    { capabilities: { logging: {}, completions: {} } }
  );

  mcp.registerTool(
    'echo',
    { description: 'Echoes the message back', inputSchema: z.object({ message: z.string() }) },
    async ({ message }, ctx) => {
      // Honours logging/setLevel (2025) or the per-request log-level opt-in (2026-07-28).
      await ctx.mcpReq.log('info', `echo called with: ${message}`, 'ts_server_v2');
      return text(`Echo: ${message}`);
    }
  );
  mcp.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() })
    },
    async ({ a, b }) => ({ ...text(String(a + b)), structuredContent: { sum: a + b } })
  );
  mcp.registerTool(
    'slow',
    { description: 'Reports 3 progress notifications, then returns', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= 3; i++) {
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
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
    { description: 'Asks the user (form elicitation) and returns the answer', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const reply = inputResponse(ctx.mcpReq.inputResponses, 'answer');
      if (reply.kind === 'elicit') {
        return text(reply.action === 'accept' ? String(reply.content?.answer) : `elicitation ${reply.action}`);
      }
      return inputRequired({
        inputRequests: {
          answer: inputRequired.elicit({
            mode: 'form',
            message: 'What is your answer?',
            requestedSchema: {
              type: 'object',
              properties: { answer: { type: 'string', description: 'Your answer' } },
              required: ['answer']
            }
          })
        }
      });
    }
  );
  mcp.registerTool(
    'ask_model',
    {
      description: 'Asks the client LLM (sampling) and returns its text',
      inputSchema: z.object({ prompt: z.string().optional() })
    },
    async ({ prompt }, ctx) => {
      const reply = inputResponse(ctx.mcpReq.inputResponses, 'model');
      if (reply.kind === 'sampling') {
        const content = Array.isArray(reply.result.content) ? reply.result.content[0] : reply.result.content;
        return text(content?.type === 'text' ? content.text : JSON.stringify(reply.result.content));
      }
      return inputRequired({
        inputRequests: {
          model: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: prompt ?? 'Say hello' } }],
            maxTokens: 100
          })
        }
      });
    }
  );
  mcp.registerTool(
    'fail',
    { description: 'Always fails with isError: true', inputSchema: z.object({}) },
    async () => ({ ...text('This tool always fails'), isError: true })
  );

  mcp.registerResource(
    'hello',
    'test://hello',
    { title: 'Hello', description: 'A static greeting', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Hello from TypeScript v2' }] })
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
      argsSchema: z.object({
        name: completable(z.string(), (value) => ['Alice', 'Bob'].filter((n) => n.startsWith(value)))
      })
    },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] })
  );
  return mcp;
}

// ---- Streamable HTTP on node:http, bridged to the SDK's web-standard (Request -> Response) handlers.

const jsonRpcError = (status, code, message) =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });

async function serveHttp(port) {
  // 2026-07-28: one fresh server per request; 2025-era traffic is routed to `legacy` below instead of
  // the SDK's stateless fallback (a stateless 2025 server cannot send elicitation/sampling requests).
  const modern = createMcpHandler(createServer, { legacy: 'reject', onerror: (e) => console.error(`ts_server_v2: ${e?.message ?? e}`) });
  const sessions = new Map();

  async function legacy(request) {
    const sid = request.headers.get('mcp-session-id');
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      const body = request.method === 'POST' ? await request.clone().json().catch(() => undefined) : undefined;
      if (sid || !isInitializeRequest(body)) {
        return sid
          ? jsonRpcError(404, -32001, 'Session not found')
          : jsonRpcError(400, -32000, 'Invalid or missing session ID');
      }
      transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport)
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await createServer().connect(transport);
    }
    return transport.handleRequest(request);
  }

  async function handle(request) {
    const rejected =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
      originValidationResponse(request, localhostAllowedOrigins());
    if (rejected) return rejected;
    if (new URL(request.url).pathname !== '/mcp') return new Response('Not Found', { status: 404 });
    return (await isLegacyRequest(request)) ? legacy(request) : modern.fetch(request);
  }

  const server = createHttpServer(async (req, res) => {
    const aborter = new AbortController();
    res.on('close', () => res.writableFinished || aborter.abort());
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        for (const v of [value].flat()) if (v !== undefined) headers.append(name, v);
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(`http://${req.headers.host ?? `127.0.0.1:${port}`}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? Buffer.concat(chunks) : undefined,
        signal: aborter.signal
      });
      const response = await handle(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.flushHeaders();
      if (response.body) {
        const reader = response.body.getReader();
        aborter.signal.addEventListener('abort', () => reader.cancel().catch(() => {}));
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
      }
      res.end();
    } catch (e) {
      console.error('ts_server_v2: request failed:', e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  server.listen(port, '127.0.0.1', () => console.error(`ts_server_v2 listening on http://127.0.0.1:${port}/mcp`));
}

const httpIndex = process.argv.indexOf('--http');
if (httpIndex !== -1) {
  await serveHttp(Number(process.argv[httpIndex + 1] ?? 3000));
} else {
  serveStdio(createServer, { onerror: (e) => console.error(`ts_server_v2: ${e?.message ?? e}`) });
  console.error('ts_server_v2 running on stdio');
}
