// An interceptor around every request (`server.intercept`): it sees each request, and
// answers it through the method with other params, with the method's result changed, or
// by itself, in both eras; what it passes on unchanged is sent as the method gave it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Client, McpError, Server } from 'oxmcp';
import * as z from 'zod';

import { textOf } from './helpers.mjs';

function makeServer() {
  const server = new Server({ name: 'intercepted', version: '0.0.1' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => text);
  server.registerTool('secret', {}, () => 'the secret');
  server.registerTool('weather', { outputSchema: { degrees: z.number() } }, () => ({ degrees: 21 }));
  return server;
}

for (const era of ['legacy', 'modern']) {
  describe(`an interceptor (${era})`, () => {
    it('rewrites, filters and refuses requests', async () => {
      const server = makeServer();
      const seen = [];
      server.intercept(async ({ method, params, ctx }, next) => {
        seen.push(method);
        assert.equal(typeof ctx.signal.aborted, 'boolean');
        if (method === 'tools/call' && params.name === 'secret') {
          throw new McpError(-32001, 'not for you');
        }
        if (method === 'tools/call' && params.name === 'echo') {
          const result = await next({ ...params, arguments: { text: 'rewritten' } });
          return { ...result, content: [{ type: 'text', text: `<${textOf(result)}>` }] };
        }
        const result = await next();
        if (method === 'tools/list') {
          return { ...result, tools: result.tools.filter((tool) => tool.name !== 'secret') };
        }
        return result;
      });
      const client = await Client.connectInProcess(server, { era });
      try {
        assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['echo', 'weather']);
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), '<rewritten>');
        await assert.rejects(
          client.callTool({ name: 'secret' }),
          (error) => error instanceof McpError && error.code === -32001 && error.message === 'not for you',
        );
        // A method's error reaches the interceptor as an McpError it may pass on.
        await assert.rejects(
          client.callTool({ name: 'missing' }),
          (error) => error instanceof McpError && error.code === -32602,
        );
        const expected = ['tools/list', 'tools/call', 'tools/call', 'tools/call'];
        assert.deepEqual(seen, era === 'modern' ? ['server/discover', ...expected] : expected);
      } finally {
        await client.close();
        await server.close();
      }
    });

    it('passes on unchanged what it does not change', async () => {
      const answers = [];
      for (const intercepting of [false, true]) {
        const server = makeServer();
        if (intercepting) {
          server.intercept((_request, next) => next());
        }
        const client = await Client.connectInProcess(server, { era });
        try {
          answers.push([
            await client.listTools(),
            await client.callTool({ name: 'weather' }),
            await client.callTool({ name: 'echo', arguments: { text: 42 } }),
          ]);
        } finally {
          await client.close();
          await server.close();
        }
      }
      assert.deepEqual(answers[1], answers[0]);
    });
  });
}
