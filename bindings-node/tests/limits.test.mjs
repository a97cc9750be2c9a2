// The client's limits, set from Node, against `fixture-hostile` (a stdio server that
// misbehaves on purpose: a flood of requests to the client, answers larger than allowed)
// and an oxmcp HTTP server: each limit holds and the connection goes on serving other calls.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';

import { Client, McpError, Server } from 'oxmcp';
import * as z from 'zod';

import { rustServerBinary, textOf } from './helpers.mjs';

const binary = rustServerBinary('fixture-hostile');
const skip = binary === undefined ? 'fixture-hostile is not built (cargo build -p oxmcp-fixtures)' : false;

/** A client of a fresh fixture-hostile whose roots answers take long enough for a flood to pile up. */
function hostile(options = {}) {
  return Client.connectStdio({
    command: binary,
    era: 'legacy',
    stderr: 'ignore',
    roots: async () => {
      await sleep(500);
      return { roots: [{ uri: 'file:///work' }] };
    },
    ...options,
  });
}

async function withClient(connecting, use) {
  const client = await connecting;
  try {
    await use(client);
  } finally {
    await client.close();
  }
}

describe('the client limits against a hostile stdio server', { skip }, () => {
  it('refuses the server requests beyond maxServerRequests', async () => {
    const flood = (client) => client.callTool({ name: 'flood', arguments: { count: 6 } });
    await withClient(hostile({ maxServerRequests: 2 }), async (client) => {
      assert.equal(textOf(await flood(client)), '2 answered, 4 refused');
    });
    await withClient(hostile(), async (client) => {
      assert.equal(textOf(await flood(client)), '6 answered, 0 refused');
    });
  });

  it('drops a line over maxMessageSize and goes on', async () => {
    await withClient(hostile({ maxMessageSize: 1024 }), async (client) => {
      await assert.rejects(
        client.callTool({ name: 'huge', arguments: { bytes: 4096 } }, { timeout: 1000 }),
        (error) => error instanceof McpError && error.kind === 'timeout',
      );
      assert.equal(textOf(await client.callTool({ name: 'huge', arguments: { bytes: 512 } })), 'x'.repeat(512));
    });
  });

  it('checks its numbers before connecting', async () => {
    await assert.rejects(hostile({ maxServerRequests: -1 }), /maxServerRequests must be a whole, non-negative number/);
    await assert.rejects(hostile({ maxListPages: 1.5 }), /maxListPages must be a whole, non-negative number/);
  });
});

describe('the client limits over HTTP', () => {
  it('fails an answer over maxMessageSize alone', async () => {
    const server = new Server({ name: 'padding', version: '1.0.0' });
    server.registerTool('pad', { inputSchema: { size: z.number().int() } }, ({ size }) => 'x'.repeat(size));
    const { url } = await server.listen({ transport: 'http', port: 0, jsonResponse: true });
    try {
      const options = { era: 'legacy', maxMessageSize: 1024, reconnect: { initial: 100, max: 1000, attempts: 2 } };
      await withClient(Client.connectHttp(url, options), async (client) => {
        await assert.rejects(
          client.callTool({ name: 'pad', arguments: { size: 4096 } }),
          (error) => error instanceof McpError && /larger than the 1024-byte limit/.test(error.message),
        );
        assert.equal(textOf(await client.callTool({ name: 'pad', arguments: { size: 512 } })), 'x'.repeat(512));
      });
      await assert.rejects(
        Client.connectHttp(url, { reconnect: { initial: -1, max: 1000, attempts: 2 } }),
        /reconnect.initialMs must be a finite, non-negative number of milliseconds/,
      );
    } finally {
      await server.close();
    }
  });
});
