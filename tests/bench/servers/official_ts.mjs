// The echo tool written with the official TypeScript SDK (@modelcontextprotocol/sdk), as its
// users would, following the SDK's documented stdio, stateful and stateless server patterns.
//
//   node official_ts.mjs stdio
//   node official_ts.mjs http        # sessions; prints LISTENING <url> on stderr
//   node official_ts.mjs stateless   # no sessions, one JSON answer per POST
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

function echoServer() {
  const server = new McpServer({ name: 'official-ts-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Send the text back.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Sessions: one transport and server per session, found by its `Mcp-Session-Id`. */
function stateful() {
  const transports = new Map();
  return async (req, res) => {
    const id = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    let transport = id ? transports.get(id) : undefined;
    if (!transport && !id && req.method === 'POST' && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => transports.set(sessionId, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await echoServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(400).end('no valid session');
      return;
    }
    await transport.handleRequest(req, res, body);
  };
}

/** No sessions: a fresh server and transport per request, answering in JSON. */
function stateless() {
  return async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const body = await readJson(req);
    const server = echoServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

const mode = process.argv[2] ?? 'stdio';
if (mode === 'stdio') {
  await echoServer().connect(new StdioServerTransport());
} else {
  const handler = mode === 'stateless' ? stateless() : stateful();
  const http = createServer((req, res) => {
    handler(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  http.listen(0, '127.0.0.1', () => {
    console.error(`LISTENING http://127.0.0.1:${http.address().port}/mcp`);
  });
}
