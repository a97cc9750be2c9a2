// A server mounted in web apps with routes of their own: `server.nodeHandler()` inside an
// Express app and `server.fetch` inside a Hono app (served by @hono/node-server), on real
// sockets, driven by the official TypeScript client (which speaks the legacy era) and by
// oxmcp's client in the modern era. The protocol is the core's; what is tested here is
// that the adapters carry it whole: streamed answers, the core's checks, a client leaving.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { serve } from '@hono/node-server';
import { Client as OfficialClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import express from 'express';
import { Hono } from 'hono';
import { Client, Server } from 'oxmcp';
import * as z from 'zod';

/** A server with a tool that reports progress and logs, and one that waits until cancelled. */
function mcpServer() {
  const server = new Server({ name: 'mounted', version: '1.0.0' });
  const cancelled = [];
  server.registerTool('greet', { description: 'Greets', inputSchema: { name: z.string() } }, async ({ name }, ctx) => {
    await ctx.log('info', `greeting ${name}`);
    await ctx.progress(1, 2, 'halfway');
    return `hello, ${name}`;
  });
  server.registerTool('wait', { inputSchema: { name: z.string() } }, ({ name }, ctx) => {
    return new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        cancelled.push(name);
        resolve('cancelled');
      });
    });
  });
  server.registerTool('cancellations', {}, () => cancelled.join(','));
  server.registerTool('origin', {}, (ctx) => {
    const request = ctx.httpRequest;
    return `${request.url.pathname}${request.url.search} from ${request.remoteAddress ?? 'unknown'}`;
  });
  return server;
}

/** The official client over Streamable HTTP: its tools, and a call's progress and logs. */
async function officialVisit(url) {
  const client = new OfficialClient({ name: 'official', version: '1.0.0' });
  const logs = [];
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    client.setNotificationHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).LoggingMessageNotificationSchema,
      (notification) => logs.push(notification.params.data),
    );
    const { tools } = await client.listTools();
    const progress = [];
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } }, undefined, {
      onprogress: (update) => progress.push(update.message),
    });
    return { tools: tools.map((tool) => tool.name).sort(), text: result.content[0].text, progress, logs };
  } finally {
    await client.close();
  }
}

/** oxmcp's client in the modern era: a call, then a call it leaves, seen cancelled. */
async function modernVisit(url, name) {
  const client = await Client.connectHttp(url, { era: 'modern' });
  try {
    const greeted = await client.callTool({ name: 'greet', arguments: { name: 'Grace' } });
    await assert.rejects(client.callTool({ name: 'wait', arguments: { name } }, { timeout: 300 }));
    let seen = '';
    for (let i = 0; i < 100 && !seen.split(',').includes(name); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = (await client.callTool({ name: 'cancellations' })).content[0].text;
    }
    return { era: client.protocolVersion, text: greeted.content[0].text, cancelled: seen.split(',').includes(name) };
  } finally {
    await client.close();
  }
}

/** One plain request; resolves to its status and body. */
function plainRequest(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** What every app must show: both clients served, its own routes kept, the core's checks. */
function behavesAsTheListener(app) {
  it('serves the official client (legacy era), with progress and logs on the request stream', async () => {
    const seen = await officialVisit(app.endpoint);
    assert.deepEqual(seen, {
      tools: ['cancellations', 'greet', 'origin', 'wait'],
      text: 'hello, Ada',
      progress: ['halfway'],
      logs: ['greeting Ada'],
    });
  });

  it("serves oxmcp's client in the modern era, and a client leaving cancels its call", async () => {
    const seen = await modernVisit(app.endpoint, `left-${app.name}`);
    assert.deepEqual(seen, { era: '2026-07-28', text: 'hello, Grace', cancelled: true });
  });

  it('tells a handler the URL it was posted to and, where the app knows it, where it came from', async () => {
    const client = await Client.connectHttp(`${app.endpoint}?via=test`, { era: 'modern' });
    try {
      const origin = await client.callTool({ name: 'origin' });
      assert.equal(origin.content[0].text, `/mcp?via=test from ${app.peer}`);
    } finally {
      await client.close();
    }
  });

  it('keeps the app’s own routes', async () => {
    assert.deepEqual(await plainRequest(`${app.base}/health`), { status: 200, body: '{"ok":true}' });
  });

  it('applies the core’s checks: Host, body limit, content type', async () => {
    const refused = await plainRequest(app.endpoint, {
      method: 'POST',
      headers: { ...JSON_HEADERS, host: 'evil.example' },
      body: INITIALIZE,
    });
    assert.equal(refused.status, 403);
    assert.match(JSON.parse(refused.body).error.message, /evil\.example/);
    const tooLarge = await plainRequest(app.endpoint, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: ' '.repeat(1024 * 1024) + INITIALIZE,
    });
    assert.equal(tooLarge.status, 413);
    const plain = await plainRequest(app.endpoint, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    assert.equal(plain.status, 415);
  });
}

describe('inside an Express app', () => {
  const app = { name: 'express', peer: '127.0.0.1' };
  let server;
  let listener;
  before(async () => {
    server = mcpServer();
    const web = express();
    web.get('/health', (_req, res) => res.json({ ok: true }));
    web.use('/tools', server.nodeHandler({ bodyLimit: 64 * 1024 }));
    listener = web.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    app.base = `http://127.0.0.1:${listener.address().port}`;
    app.endpoint = `${app.base}/tools/mcp`;
  });
  after(async () => {
    await server.close();
    listener.closeAllConnections();
    listener.close();
  });

  behavesAsTheListener(app);

  it('reads a body express.json() parsed already', async () => {
    const parsing = express();
    parsing.use(express.json());
    parsing.use(server.nodeHandler());
    const parsed = parsing.listen(0, '127.0.0.1');
    await once(parsed, 'listening');
    try {
      const answered = await plainRequest(`http://127.0.0.1:${parsed.address().port}/mcp`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: INITIALIZE,
      });
      assert.equal(answered.status, 200);
      assert.equal(JSON.parse(answered.body).result.serverInfo.name, 'mounted');
    } finally {
      parsed.closeAllConnections();
      parsed.close();
    }
  });
});

describe('inside a Hono app', () => {
  // A web-standard Request says nothing of its peer.
  const app = { name: 'hono', peer: 'unknown' };
  let server;
  let listener;
  before(async () => {
    server = mcpServer();
    const mcp = server.fetchHandler({ bodyLimit: 64 * 1024 });
    const web = new Hono();
    web.get('/health', (c) => c.json({ ok: true }));
    web.all('/mcp', (c) => mcp(c.req.raw));
    listener = serve({ fetch: web.fetch, port: 0, hostname: '127.0.0.1' });
    await once(listener, 'listening');
    app.base = `http://127.0.0.1:${listener.address().port}`;
    app.endpoint = `${app.base}/mcp`;
  });
  after(async () => {
    await server.close();
    listener.closeAllConnections();
    listener.close();
  });

  behavesAsTheListener(app);

  it('is reached through server.fetch, bound, with the default settings', async () => {
    const plain = new Server({ name: 'plain', version: '1.0.0' });
    const { fetch } = plain;
    const answered = await fetch(
      new Request('http://127.0.0.1/mcp', { method: 'POST', headers: JSON_HEADERS, body: INITIALIZE }),
    );
    assert.equal(answered.status, 200);
    assert.equal((await answered.json()).result.serverInfo.name, 'plain');
    await plain.close();
    await assert.rejects(fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', body: INITIALIZE })), /closed/);
  });
});

/** A CA of the test's own and a certificate it issued for 127.0.0.1 (openssl, from Debian's ca-certificates' dependencies). */
function issueCertificates(directory) {
  const run = (...args) => execFileSync('openssl', args, { cwd: directory, stdio: 'pipe' });
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run('req', '-x509', ...curve, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=oxmcp test CA');
  run('req', ...curve, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(directory, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-days', '1', '-extfile', 'server.ext', '-out', 'server.pem');
  const read = (name) => readFileSync(join(directory, name), 'utf8');
  return { ca: read('ca.pem'), cert: read('server.pem'), key: read('server.key'), caPath: join(directory, 'ca.pem') };
}

describe('over https, behind node:https', () => {
  it("trusts the server's certificate as ca, NODE_EXTRA_CA_CERTS and rejectUnauthorized say", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'oxmcp-tls-'));
    const { ca, cert, key, caPath } = issueCertificates(directory);
    const server = mcpServer();
    const listener = createHttpsServer({ key, cert }, server.nodeHandler());
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const url = `https://127.0.0.1:${listener.address().port}/mcp`;
    const greets = async (options) => {
      const client = await Client.connectHttp(url, { era: 'legacy', ...options });
      try {
        return (await client.listTools()).tools.some((tool) => tool.name === 'greet');
      } finally {
        await client.close();
      }
    };
    try {
      await assert.rejects(greets({}), /invalid peer certificate: UnknownIssuer/);
      assert.equal(await greets({ ca }), true);
      assert.equal(await greets({ ca: [Buffer.from(ca)] }), true);
      assert.equal(await greets({ rejectUnauthorized: false }), true);
      process.env.NODE_EXTRA_CA_CERTS = caPath;
      assert.equal(await greets({}), true);
    } finally {
      delete process.env.NODE_EXTRA_CA_CERTS;
      await server.close();
      listener.closeAllConnections();
      listener.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
