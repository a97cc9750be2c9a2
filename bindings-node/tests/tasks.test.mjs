// Tools as tasks (the 2026-07-28 tasks extension) between Node peers over HTTP: an
// `optional` tool runs as a task for a client that declares the extension (which follows
// it to its result, answering what it asks) and in place for one that does not; a
// `required` one refuses the latter with -32021.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Client, McpError, Server } from 'oxmcp';

import { textOf } from './helpers.mjs';

function taskServer() {
  const server = new Server({ name: 'tasks', version: '1.0.0' });
  server.registerTool('confirm', { task: 'optional' }, async (ctx) => {
    const answer = await ctx.elicit({
      message: 'Sure?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
    return answer.content?.ok ? 'confirmed' : 'declined';
  });
  server.registerTool('quick', { task: 'required' }, () => 'quick');
  return server;
}

const accept = () => ({ action: 'accept', content: { ok: true } });

describe('tools as tasks', () => {
  it('run as tasks for clients that support tasks, in place for the others', async () => {
    const server = taskServer();
    const { url } = await server.listen({ transport: 'http', port: 0 });
    try {
      const client = await Client.connectHttp(url, { era: 'modern', elicitation: accept });
      try {
        assert.equal(textOf(await client.callTool({ name: 'confirm' })), 'confirmed');
        assert.equal(textOf(await client.callTool({ name: 'quick' })), 'quick');
      } finally {
        await client.close();
      }
      const plain = await Client.connectHttp(url, { era: 'modern', elicitation: accept, tasks: false });
      try {
        assert.equal(textOf(await plain.callTool({ name: 'confirm' })), 'confirmed');
        await assert.rejects(plain.callTool({ name: 'quick' }), (error) => error instanceof McpError && error.code === -32021);
      } finally {
        await plain.close();
      }
    } finally {
      await server.close();
    }
  });
});
