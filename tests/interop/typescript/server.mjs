// The MCP server written with the official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json; `make node-peers` installs it) that oxmcp's clients are tested against: the Rust
// client (core/tests/http_client_typescript.rs) and the Node binding's
// (bindings-node/tests/interop.test.mjs). McpServer over stdio, or over
// StreamableHTTPServerTransport on node:http (one McpServer per session).
//
//     node server.mjs                    # stdio
//     node server.mjs --http [--json-response] [--stateless] [--port N]
//
// Over HTTP it binds 127.0.0.1 (a free port unless --port says) and, once it accepts
// connections, prints one line `LISTENING <url>` on stdout, the URL of its endpoint (/mcp);
// nothing else goes to stdout. SIGTERM closes it and it exits with status 0. The same options and
// announcement as tests/interop/python/server.py (which alone has --sse and --event-store).
// The SDK (v1) speaks only the legacy era.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ElicitResultSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

const { values: options } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    http: { type: 'boolean', default: false },
    'json-response': { type: 'boolean', default: false },
    stateless: { type: 'boolean', default: false },
    port: { type: 'string', default: '0' },
  },
});

// Sessions the clients ended with DELETE, for the `sessions_closed` tool.
let sessionsClosed = 0;

const text = (value) => ({ content: [{ type: 'text', text: value }] });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server with every definition the tests use. */
function makeServer() {
  const server = new McpServer(
    { name: 'official-typescript', version: '1.0.0' },
    { instructions: 'Written with the official SDK.' },
  );

  server.registerTool('echo', { description: 'Returns its input.', inputSchema: { text: z.string() } }, async ({ text: value }) =>
    text(value),
  );

  server.registerTool(
    'add',
    {
      description: 'Adds two numbers (structured output).',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { result: z.number() },
    },
    async ({ a, b }) => ({ ...text(String(a + b)), structuredContent: { result: a + b } }),
  );

  server.registerTool('fail', { description: 'Fails, as a tool execution error.' }, async () => ({
    ...text('failed on purpose'),
    isError: true,
  }));

  server.registerTool(
    'slow',
    {
      description: 'Reports progress `steps` times, `delay` seconds apart; stops when cancelled.',
      inputSchema: { steps: z.number().int(), delay: z.number().optional() },
    },
    async ({ steps, delay = 0.05 }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        await sleep(delay * 1000);
        if (extra.signal.aborted) {
          return text('cancelled');
        }
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: step, total: steps, message: `step ${step}` },
          });
        }
      }
      return text(`done after ${steps} steps`);
    },
  );

  server.registerTool('greet', { description: 'Asks the user for a name (elicitation/create).' }, async (extra) => {
    const answer = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
      ElicitResultSchema,
    );
    return text(`Hello, ${answer.content?.name}!`);
  });

  server.registerTool('confirm', { description: 'Asks the user to confirm (elicitation/create).' }, async () => {
    const answer = await server.server.elicitInput({
      message: 'Confirm?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    return text(`${answer.action}: ${JSON.stringify(answer.content ?? {})}`);
  });

  server.registerTool('ask_llm', { description: 'Asks the client to sample (sampling/createMessage).' }, async () => {
    const reply = await server.server.createMessage({
      messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }],
      maxTokens: 20,
    });
    return text(`the model said: ${reply.content.text}`);
  });

  server.registerTool('headers_seen', { description: "The client's Authorization and X-Tenant headers." }, async (extra) => {
    const headers = extra.requestInfo?.headers ?? {};
    return text(`authorization=${headers.authorization ?? 'None'} x-tenant=${headers['x-tenant'] ?? 'None'}`);
  });

  server.registerTool('sessions_closed', { description: 'How many sessions were ended by DELETE.' }, async () =>
    text(String(sessionsClosed)),
  );

  server.registerResource('world', 'greeting://world', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Hello, world' }],
  }));

  server.registerResource(
    'person',
    new ResourceTemplate('greeting://people/{name}', { list: undefined }),
    { mimeType: 'text/plain' },
    async (uri, { name }) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Hello, ${decodeURIComponent(name)}` }],
    }),
  );

  server.registerResource('notes', 'file:///notes.txt', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'remember the milk' }],
  }));

  server.registerPrompt('review', { description: 'Review code.', argsSchema: { code: z.string() } }, ({ code }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please review:\n${code}` } }],
  }));

  return server;
}

/** A request's JSON body, or undefined (none, or not JSON: the transport answers that). */
async function jsonBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const raw = Buffer.concat(chunks).toString();
  try {
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

function refuse(response, status, code, message) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/** Serves Streamable HTTP: stateless (a server per request) or a session (and server) per `initialize`. */
async function serveHttp() {
  const enableJsonResponse = options['json-response'];
  const sessions = new Map();
  const http = createServer(async (request, response) => {
    const body = await jsonBody(request);
    if (options.stateless) {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
      await makeServer().connect(transport);
      await transport.handleRequest(request, response, body);
      return;
    }
    const sessionId = request.headers['mcp-session-id'];
    let transport = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && transport === undefined) {
      refuse(response, 404, -32001, 'Session not found');
      return;
    }
    if (transport === undefined) {
      if (!isInitializeRequest(body)) {
        refuse(response, 400, -32000, 'Bad Request: no valid session ID');
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableJsonResponse,
        onsessioninitialized: (id) => sessions.set(id, transport),
        onsessionclosed: (id) => {
          sessions.delete(id);
          sessionsClosed += 1;
        },
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(request, response, body);
  });
  await new Promise((resolve) => http.listen(Number(options.port), '127.0.0.1', resolve));
  console.log(`LISTENING http://127.0.0.1:${http.address().port}/mcp`);
  process.once('SIGTERM', async () => {
    http.close();
    await Promise.all([...sessions.values()].map((transport) => transport.close()));
    http.closeAllConnections();
  });
}

if (options.http) {
  await serveHttp();
} else {
  await makeServer().connect(new StdioServerTransport());
}
