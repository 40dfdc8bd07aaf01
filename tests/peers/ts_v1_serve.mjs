// What the TypeScript SDK v1 peer servers share (ts_server.mjs, ts_task_server.mjs,
// ts_task_requestor.mjs): serving one `createServer()` per session over stdio, or over
// Streamable HTTP with stateful sessions (POST, GET, DELETE at /mcp on 127.0.0.1).
//
//   await serve(NAME, createServer, { exitOnStdinEnd })
//
// `--http PORT` on the command line serves HTTP on PORT (default 3000; 0 picks a free one);
// otherwise stdio. The startup line goes to stderr: `NAME running on stdio` or
// `NAME listening on http://127.0.0.1:PORT/mcp`. An unknown session gets 404/-32001, a missing
// one 400/-32000. `exitOnStdinEnd` ends the process when stdin closes on stdio (for servers
// whose timers would otherwise keep it alive once the client has gone).

import { randomUUID } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

async function serveHttp(name, createServer, port) {
  const { createMcpExpressApp } = await import('@modelcontextprotocol/sdk/server/express.js');
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  const transports = new Map();
  app.post('/mcp', async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid || !isInitializeRequest(req.body)) {
        res.status(sid ? 404 : 400).json({
          jsonrpc: '2.0',
          error: { code: sid ? -32001 : -32000, message: sid ? 'Session not found' : 'Invalid or missing session ID' },
          id: null
        });
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport)
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await createServer().connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  });
  const bySession = async (req, res) => {
    const transport = transports.get(req.headers['mcp-session-id']);
    if (!transport) return void res.status(req.headers['mcp-session-id'] ? 404 : 400).send('Invalid or missing session ID');
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', bySession);
  app.delete('/mcp', bySession);
  const listener = app.listen(port, '127.0.0.1', () =>
    console.error(`${name} listening on http://127.0.0.1:${listener.address().port}/mcp`)
  );
}

export async function serve(name, createServer, { exitOnStdinEnd = false } = {}) {
  const httpIndex = process.argv.indexOf('--http');
  if (httpIndex !== -1) {
    await serveHttp(name, createServer, Number(process.argv[httpIndex + 1] ?? 3000));
    return;
  }
  await createServer().connect(new StdioServerTransport());
  if (exitOnStdinEnd) process.stdin.on('end', () => process.exit(0));
  console.error(`${name} running on stdio`);
}
