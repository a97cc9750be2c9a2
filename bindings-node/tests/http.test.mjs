// `server.listen({ transport: 'http' })` in this process, on real sockets of 127.0.0.1:
// addresses, settings, many sessions of one server, closing.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';

import { Client, McpError, Server } from 'oxmcp';
import * as z from 'zod';

import { textOf } from './helpers.mjs';

function makeServer() {
  const server = new Server({ name: 'http', version: '0.0.1' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => text);
  return server;
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
