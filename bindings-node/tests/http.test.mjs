// `server.listen({ transport: 'http' })` in this process, on real sockets of 127.0.0.1:
// addresses, settings and bounds, many sessions of one server, closing.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, it } from 'node:test';

import { Client, McpError, Server } from 'oxmcp';
import * as z from 'zod';

import { registerEndlessTool, textOf } from './helpers.mjs';

function makeServer() {
  const server = new Server({ name: 'http', version: '0.0.1' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => text);
  return server;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

/**
 * One raw HTTP exchange on a connection of its own: `answer` resolves to the answer's
 * `{ status, headers }` (its body read to the end), `closed` once the connection closed.
 */
function exchange(url, method, headers, body) {
  const call = request(url, {
    method,
    agent: false,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  });
  const closed = new Promise((resolve) => call.on('socket', (socket) => socket.on('close', resolve)));
  const answer = new Promise((resolve, reject) => {
    call.on('response', (response) => {
      response.resume();
      resolve({ status: response.statusCode, headers: response.headers });
    });
    call.on('error', reject);
  });
  // A connection closed before its answer is what some tests wait for.
  answer.catch(() => {});
  call.end(body === undefined ? undefined : JSON.stringify(body));
  return { answer, closed };
}

/** `promise`, or a failure naming `what` after `ms` (the timer keeps the event loop alive meanwhile). */
async function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${ms} ms for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** POSTs a legacy `initialize` to `url` with `headers`; resolves to the status code. */
function initializeStatus(url, headers = {}) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const call = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

describe('an HTTP listener', () => {
  it('binds a free port for port 0 and serves both eras, many sessions at once', async () => {
    const server = makeServer();
    const address = await server.listen({ transport: 'http', host: '127.0.0.1', port: 0 });
    const clients = [];
    try {
      assert.equal(address.host, '127.0.0.1');
      assert.ok(address.port > 0);
      assert.equal(address.url, `http://127.0.0.1:${address.port}/mcp`);
      for (const era of ['legacy', 'modern', 'legacy', 'modern']) {
        clients.push(await Client.connectHttp(address.url, { era }));
      }
      assert.deepEqual(
        clients.map((client) => client.protocolVersion),
        ['2025-11-25', '2026-07-28', '2025-11-25', '2026-07-28'],
      );
      const calls = Array.from({ length: 40 }, (_, i) =>
        clients[i % clients.length].callTool({ name: 'echo', arguments: { text: `n${i}` } }),
      );
      const texts = (await Promise.all(calls)).map(textOf);
      assert.deepEqual(texts, Array.from({ length: 40 }, (_, i) => `n${i}`));
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await server.close();
    }
  });

  it("tells a handler its legacy session's id, and none to a modern request", async () => {
    const server = new Server({ name: 'sessions', version: '0.0.1' });
    server.registerTool('session', {}, (ctx) => ctx.sessionId ?? 'none');
    const address = await server.listen({ transport: 'http', host: '127.0.0.1', port: 0 });
    const clients = [];
    try {
      for (const era of ['legacy', 'legacy', 'modern']) {
        clients.push(await Client.connectHttp(address.url, { era }));
      }
      const [one, again, other, alone] = await Promise.all(
        [0, 0, 1, 2].map(async (i) => textOf(await clients[i].callTool({ name: 'session', arguments: {} }))),
      );
      assert.match(one, /^[0-9a-f]{32}$/);
      assert.equal(again, one);
      assert.match(other, /^[0-9a-f]{32}$/);
      assert.notEqual(other, one);
      assert.equal(alone, 'none');
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await server.close();
    }
  });

  it('tells a handler the URL of its request and the address it came from', async () => {
    const server = new Server({ name: 'origins', version: '0.0.1' });
    server.registerTool('origin', {}, (ctx) => `${ctx.httpRequest.url.pathname} from ${ctx.httpRequest.remoteAddress}`);
    const address = await server.listen({ transport: 'http', host: '127.0.0.1', port: 0 });
    try {
      const client = await Client.connectHttp(address.url, { era: 'modern' });
      try {
        assert.equal(textOf(await client.callTool({ name: 'origin', arguments: {} })), '/mcp from 127.0.0.1');
      } finally {
        await client.close();
      }
    } finally {
      await server.close();
    }
  });

  it('serves one server on several listeners and in process at once', async () => {
    const server = makeServer();
    const first = await server.listen({ transport: 'http' });
    const second = await server.listen({ transport: 'http', path: '/other' });
    const overFirst = await Client.connectHttp(first.url);
    const overSecond = await Client.connectHttp(second.url, { era: 'legacy' });
    const inProcess = await Client.connectInProcess(server);
    try {
      assert.notEqual(first.port, second.port);
      assert.equal(new URL(second.url).pathname, '/other');
      server.registerTool('late', {}, () => 'seen by all');
      for (const client of [overFirst, overSecond, inProcess]) {
        assert.equal(textOf(await client.callTool({ name: 'late' })), 'seen by all');
      }
    } finally {
      await Promise.all([overFirst.close(), overSecond.close(), inProcess.close()]);
      await server.close();
    }
  });

  it('serves only its path', async () => {
    const server = makeServer();
    const { url } = await server.listen({ transport: 'http', path: '/custom/mcp' });
    try {
      assert.equal(new URL(url).pathname, '/custom/mcp');
      assert.equal(await initializeStatus(url), 200);
      assert.equal(await initializeStatus(new URL('/mcp', url)), 404);
    } finally {
      await server.close();
    }
  });

  it('refuses other Host names unless told to accept them', async () => {
    const server = makeServer();
    const guarded = await server.listen({ transport: 'http' });
    const open = await server.listen({ transport: 'http', allowedHosts: ['mcp.example.com'] });
    try {
      assert.equal(await initializeStatus(guarded.url, { host: 'evil.example.com' }), 403);
      assert.equal(await initializeStatus(open.url, { host: 'mcp.example.com' }), 200);
      assert.equal(await initializeStatus(open.url, { host: 'evil.example.com' }), 403);
    } finally {
      await server.close();
    }
  });

  for (const [setting, options] of [
    ['stateless', { stateless: true }],
    ['JSON-response', { jsonResponse: true }],
    [
      'bounded',
      {
        sessionIdleTimeout: 60_000,
        newSessionTimeout: 5000,
        maxSessions: 2,
        bodyLimit: 65_536,
        headerReadTimeout: 5000,
        bodyReadTimeout: 5000,
        maxConnections: 4,
        maxInFlight: 4,
        eventBytesKept: { perSession: 65_536, total: 1 << 20 },
        shutdownTimeout: 1000,
      },
    ],
  ]) {
    it(`serves both eras in ${setting} mode`, async () => {
      const server = makeServer();
      const { url } = await server.listen({ transport: 'http', ...options });
      try {
        for (const era of ['legacy', 'modern']) {
          const client = await Client.connectHttp(url, { era });
          try {
            assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: era } })), era);
          } finally {
            await client.close();
          }
        }
      } finally {
        await server.close();
      }
    });
  }

  it('refuses settings it cannot use', async () => {
    const server = makeServer();
    await assert.rejects(
      server.listen({ transport: 'http', path: 'mcp' }),
      (error) => error instanceof McpError && error.kind === 'definition' && /must start with '\/'/.test(error.message),
    );
    await assert.rejects(server.listen({ transport: 'http', port: 70000 }), McpError);
    for (const duration of ['sessionIdleTimeout', 'newSessionTimeout', 'headerReadTimeout', 'bodyReadTimeout', 'shutdownTimeout']) {
      await assert.rejects(
        server.listen({ transport: 'http', [duration]: -1 }),
        (error) =>
          error instanceof McpError &&
          error.message === `${duration} must be a finite, non-negative number of milliseconds`,
      );
    }
    for (const [options, name] of [
      [{ maxSessions: -1 }, 'maxSessions'],
      [{ bodyLimit: 1.5 }, 'bodyLimit'],
      [{ maxConnections: Number.POSITIVE_INFINITY }, 'maxConnections'],
      [{ maxInFlight: -2 }, 'maxInFlight'],
      [{ eventBytesKept: { perSession: 1024, total: -1 } }, 'eventBytesKept.total'],
    ]) {
      await assert.rejects(
        server.listen({ transport: 'http', ...options }),
        (error) => error instanceof McpError && error.message === `${name} must be a whole, non-negative number`,
      );
    }
  });

  it('fails to bind a port in use', async () => {
    const server = makeServer();
    const { port } = await server.listen({ transport: 'http' });
    try {
      await assert.rejects(
        server.listen({ transport: 'http', port }),
        (error) => error instanceof McpError && error.kind === 'io',
      );
    } finally {
      await server.close();
    }
  });

  it('ends streams and requests in flight when it closes, by the shutdown timeout', async () => {
    // A legacy GET stream, and a call that never ends. Closing ends the stream, lets the
    // call run until `shutdownTimeout` (3 s: longer than the grace after which `close()`
    // used to give up), cancels it, closes every connection, and resolves only then.
    const server = makeServer();
    const { running, aborted: abort } = registerEndlessTool(server, 'nap');
    const { url, port } = await server.listen({ transport: 'http', shutdownTimeout: 3000 });
    const initialized = await exchange(url, 'POST', {}, INITIALIZE).answer;
    assert.equal(initialized.status, 200);
    const session = { 'mcp-session-id': initialized.headers['mcp-session-id'], 'mcp-protocol-version': '2025-11-25' };
    assert.equal((await exchange(url, 'POST', session, INITIALIZED).answer).status, 202);
    const stream = exchange(url, 'GET', { ...session, accept: 'text/event-stream' });
    assert.equal((await stream.answer).status, 200);
    // Its answer begins with the tool's result, which never comes.
    const call = exchange(url, 'POST', session, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'nap', arguments: {} },
    });
    await running;

    await within(server.close(), 10_000, 'close()');
    await within(stream.closed, 500, 'the GET stream to close');
    await within(call.closed, 500, "the call's connection to close");
    // The handler hears of it through its own channel, maybe just after.
    await within(abort, 500, "the call's AbortSignal");
    const refused = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.on('error', (error) => resolve(error.code === 'ECONNREFUSED'));
    });
    assert.equal(refused, true, 'nothing listens on the port');
  });

  it('stops accepting connections when the server closes, and opens no more', async () => {
    const server = makeServer();
    const { url } = await server.listen({ transport: 'http' });
    await server.close();
    await assert.rejects(Client.connectHttp(url, { era: 'legacy', connectTimeout: 2000 }), McpError);
    await assert.rejects(
      server.listen({ transport: 'http' }),
      (error) => error instanceof McpError && error.kind === 'closed',
    );
  });
});
