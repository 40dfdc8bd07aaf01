#!/usr/bin/env node
// Interop peer: the Skills extension (SEP-2640) served by its reference SDK, `@olaservo/ext-skills`
// (pinned in xtask/peers/package.json), on the TypeScript SDK v2 server, for our Rust client to
// test against. It serves the skills under tests/peers/skills/ (or `--skills DIR`) with
// `discoverSkills` + `registerSkillResources` (`skills/list`, `skills/get`, the skill files as
// resources, and `resources/directory/read`, declared with `directoryRead: true`), in BOTH
// protocol eras from one process, like ts_server_v2.mjs.
//
//   node ts_skills_server.mjs [--skills DIR]          # stdio (default); the opening message picks the era
//   node ts_skills_server.mjs [--skills DIR] --http   # Streamable HTTP on 127.0.0.1, a port the OS picks
//
// Over HTTP it listens on 127.0.0.1:0 and prints `listening on http://127.0.0.1:PORT/mcp` on stderr.
// Modern requests (with the `_meta` envelope) go to createMcpHandler (one fresh server per
// request); 2025-era requests to sessionful WebStandardStreamableHTTPServerTransports.
//
// Needs node_modules next to this file (symlink to .tools/npm/node_modules). Logs go to stderr only.
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  hostHeaderValidationResponse,
  isInitializeRequest,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { discoverSkills, registerSkillResources } from '@olaservo/ext-skills/server';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const here = path.dirname(fileURLToPath(import.meta.url));
const skillsDir = arg('--skills') ?? path.join(here, 'skills');
// Read once: every server the factory makes serves this snapshot (digests and bytes).
const skillMap = discoverSkills(skillsDir);
if (skillMap.size === 0) {
  console.error(`ts_skills_server: no skills found in ${skillsDir}`);
  process.exit(1);
}

// One factory for both eras (the SDK calls it per connection on stdio, per request on modern HTTP).
function createServer() {
  const mcp = new McpServer(
    { name: 'ts-skills-interop-server', version: '1.0.0' },
    { capabilities: { resources: {} } }
  );
  registerSkillResources(mcp, skillMap, skillsDir, { directoryRead: true, ttlMs: 60_000 });
  return mcp;
}

const onerror = (e) => console.error(`ts_skills_server: ${e?.message ?? e}`);
const jsonRpcError = (status, code, message) =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });

async function serveHttp() {
  const modern = createMcpHandler(createServer, { legacy: 'reject', onerror });
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

  // node:http bridged to the SDK's web-standard (Request -> Response) handlers.
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
      const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url}`, {
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
      console.error('ts_skills_server: request failed:', e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  server.listen(0, '127.0.0.1', () =>
    console.error(`listening on http://127.0.0.1:${server.address().port}/mcp`)
  );
}

if (process.argv.includes('--http')) {
  await serveHttp();
} else {
  serveStdio(createServer, { onerror });
  console.error(`ts_skills_server running on stdio (${skillMap.size} skills from ${skillsDir})`);
}
