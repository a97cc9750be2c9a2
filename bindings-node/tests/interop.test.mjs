// Interoperability with the official TypeScript SDK over stdio and Streamable HTTP, both
// directions: its client against the oxmcp Node server, and the oxmcp Node client against
// the server written with it (tests/interop/typescript/server.mjs).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Client as OfficialClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client, McpError } from 'oxmcp';

import {
  ANSWERING_HANDLERS,
  connectOver,
  FIXTURE_SERVER,
  OFFICIAL_SERVER,
  startHttpScript,
  textOf,
  TRANSPORTS,
} from './helpers.mjs';

/** The official SDK's client transport to the oxmcp fixture, and what stops the fixture. */
async function officialTransport(transport) {
  if (transport === 'stdio') {
    const stdio = new StdioClientTransport({ command: process.execPath, args: [FIXTURE_SERVER], stderr: 'inherit' });
    return { transport: stdio, stop: async () => {} };
  }
  const server = await startHttpScript(FIXTURE_SERVER);
  return { transport: new StreamableHTTPClientTransport(new URL(server.url)), stop: server.stop };
}

for (const transport of TRANSPORTS) {
  describe(`the official SDK client drives the oxmcp server over ${transport}`, () => {
    let client;
    let stop;
    const listChanges = [];

    before(async () => {
      client = new OfficialClient(
        { name: 'official-client', version: '1.0.0' },
        { capabilities: { elicitation: {}, sampling: {}, roots: {} } },
      );
      client.setRequestHandler(ElicitRequestSchema, (request) => ANSWERING_HANDLERS.elicitation(request.params));
      client.setRequestHandler(CreateMessageRequestSchema, (request) => ANSWERING_HANDLERS.sampling(request.params));
      client.setRequestHandler(ListRootsRequestSchema, () => ANSWERING_HANDLERS.roots());
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanges.push(Date.now()));
      const connection = await officialTransport(transport);
      stop = connection.stop;
      await client.connect(connection.transport);
    });

    after(async () => {
      await client.close();
      await stop();
    });

    it('negotiates the newest legacy version and reads the server info', () => {
      assert.deepEqual(client.getServerVersion(), { name: 'oxmcp-node-fixture', version: '1.0.0' });
      assert.ok(client.getServerCapabilities().tools);
    });

    it('lists tools and calls them, with structured output it validates', async () => {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'add' && tool.outputSchema));
      const sum = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
      assert.deepEqual(sum.structuredContent, { result: 42 });
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hello' } })), 'hello');
    });

    it('sees handler errors as tool errors and McpErrors as JSON-RPC errors', async () => {
      const thrown = await client.callTool({ name: 'sync_fail', arguments: {} });
      assert.equal(thrown.isError, true);
      assert.equal(textOf(thrown), 'thrown synchronously');
      await assert.rejects(client.callTool({ name: 'rpc_fail', arguments: {} }), (error) => error.code === -32001);
    });

    it('reads resources and prompts', async () => {
      const greeting = await client.readResource({ uri: 'greeting://grace' });
      assert.equal(greeting.contents[0].text, 'Hello, grace!');
      const prompt = await client.getPrompt({ name: 'review', arguments: { code: 'let x;' } });
      assert.equal(prompt.messages[0].content.text, 'Please review this code:\nlet x;');
    });

    it('gets progress and cancels through its AbortSignal', async () => {
      const seen = [];
      const controller = new AbortController();
      const call = client.callTool({ name: 'slow', arguments: { steps: 100 } }, undefined, {
        signal: controller.signal,
        onprogress: (progress) => {
          seen.push(progress.progress);
          if (progress.progress === 2) {
            controller.abort();
          }
        },
      });
      await assert.rejects(call);
      assert.deepEqual(seen, [1, 2]);
      let cancellations = '0';
      for (let attempt = 0; attempt < 50 && cancellations === '0'; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        cancellations = textOf(await client.callTool({ name: 'cancellations', arguments: {} }));
      }
      assert.equal(cancellations, '1');
    });

    it('answers elicitation, sampling and roots requests of oxmcp handlers', async () => {
      assert.equal(textOf(await client.callTool({ name: 'confirm', arguments: {} })), 'confirmed: {"ok":true}');
      assert.equal(textOf(await client.callTool({ name: 'ask_llm', arguments: {} })), 'the model said: Paris');
      assert.equal(textOf(await client.callTool({ name: 'roots', arguments: {} })), 'file:///work,file:///tmp');
    });

    it('is told when tools change at runtime', async () => {
      const before = listChanges.length;
      await client.callTool({ name: 'add_tool', arguments: { name: 'from_official' } });
      for (let attempt = 0; attempt < 50 && listChanges.length === before; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.ok(listChanges.length > before);
      assert.equal(textOf(await client.callTool({ name: 'from_official', arguments: {} })), 'I am from_official');
    });
  });
}

for (const transport of TRANSPORTS) {
  describe(`the oxmcp client drives a server written with the official SDK over ${transport}`, () => {
    for (const era of ['legacy', 'auto']) {
      describe(`era ${era}`, () => {
        let client;
        let close;

        before(async () => {
          ({ client, close } = await connectOver(transport, OFFICIAL_SERVER, { era, ...ANSWERING_HANDLERS }));
        });

        after(async () => {
          await close();
        });

        it('settles on the legacy era (the official v1 SDK speaks only that)', () => {
          assert.equal(client.protocolVersion, '2025-11-25');
          assert.equal(client.getServerVersion().name, 'official-typescript');
        });

        it('calls tools, with structured output', async () => {
          assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'hi');
          const sum = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
          assert.deepEqual(sum.structuredContent, { result: 3 });
        });

        it('gets progress and cancels through an AbortSignal', async () => {
          const seen = [];
          const controller = new AbortController();
          const call = client.callTool(
            { name: 'slow', arguments: { steps: 100 } },
            {
              signal: controller.signal,
              onprogress: (progress) => {
                seen.push(progress.progress);
                if (progress.progress === 2) {
                  controller.abort();
                }
              },
            },
          );
          await assert.rejects(call, (error) => error.name === 'AbortError');
          assert.deepEqual(seen, [1, 2]);
        });

        it('answers elicitation and sampling requests', async () => {
          assert.equal(textOf(await client.callTool({ name: 'confirm' })), 'accept: {"ok":true}');
          assert.equal(textOf(await client.callTool({ name: 'ask_llm' })), 'the model said: Paris');
        });

        it('reads resource templates and prompts', async () => {
          const greeting = await client.readResource({ uri: 'greeting://people/ada' });
          assert.equal(greeting.contents[0].text, 'Hello, ada');
          const prompt = await client.getPrompt({ name: 'review', arguments: { code: 'x' } });
          assert.equal(prompt.messages[0].content.text, 'Please review:\nx');
        });
      });
    }

    it('fails to connect in the modern era, which the official v1 SDK does not speak', async () => {
      // Over stdio it does not know `server/discover`; over HTTP it refuses any request
      // outside a session.
      const refusal = transport === 'stdio' ? -32601 : -32000;
      await assert.rejects(connectOver(transport, OFFICIAL_SERVER, { era: 'modern' }), (error) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, refusal);
        return true;
      });
    });
  });
}

describe('the oxmcp HTTP client talks to a server written with the official SDK', () => {
  it('sends its headers and bearer token with every request', async () => {
    const server = await startHttpScript(OFFICIAL_SERVER);
    const tokens = ['first', 'second'];
    const client = await Client.connectHttp(server.url, {
      era: 'legacy',
      headers: { 'x-tenant': 'acme' },
      token: async () => tokens.shift() ?? 'last',
    });
    try {
      const seen = textOf(await client.callTool({ name: 'headers_seen' }));
      assert.match(seen, /^authorization=Bearer (first|second|last) x-tenant=acme$/);
      assert.ok(!seen.startsWith('authorization=Bearer first '), 'the token is asked for again for each request');
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
