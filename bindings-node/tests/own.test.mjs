// A tool built on its server's own resources, prompts and tools (`ctx.readResource`,
// `ctx.getPrompt`, `ctx.callTool`), which run with the calling tool's context, and a ping of
// the client (`ctx.ping`), in both eras; a list change told to the caller's session alone
// (`ctx.notifySessionListChanged`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Client, McpError, Server } from 'oxmcp';
import * as z from 'zod';

import { nextEvent, textOf } from './helpers.mjs';

function makeServer() {
  const server = new Server({ name: 'own', version: '0.0.1' });
  server.registerResource('note', 'notes://today', {}, async (uri) => ({
    contents: [{ uri: uri.href, text: 'nothing planned' }],
  }));
  server.registerPrompt('greet', { argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }],
  }));
  server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => String(a + b));
  server.registerTool('own', { inputSchema: { what: z.string() } }, async ({ what }, ctx) => {
    await ctx.ping();
    if (what === 'read') return (await ctx.readResource('notes://today')).contents[0].text;
    if (what === 'prompt') return (await ctx.getPrompt('greet', { name: 'Ada' })).messages[0].content.text;
    if (what === 'call') return textOf(await ctx.callTool('add', { a: 2, b: 3 }));
    if (what === 'refused') return ctx.callTool('add', { a: 'two' });
    return ctx.getPrompt('missing');
  });
  return server;
}

for (const era of ['legacy', 'modern']) {
  describe(`a tool built on its own server (${era})`, () => {
    it('reads, renders and calls with its context', async () => {
      const server = makeServer();
      const client = await Client.connectInProcess(server, { era });
      try {
        const call = (what) => client.callTool({ name: 'own', arguments: { what } });
        assert.equal(textOf(await call('read')), 'nothing planned');
        assert.equal(textOf(await call('prompt')), 'Hello Ada');
        assert.equal(textOf(await call('call')), '5');
        await assert.rejects(call('refused'), (error) => error instanceof McpError && error.code === -32602);
        await assert.rejects(call('missing'), (error) => error instanceof McpError && /unknown prompt: missing/.test(error.message));
      } finally {
        await client.close();
        await server.close();
      }
    });
  });
}

describe('a list change told to one session', () => {
  it('reaches the caller and not another client', async () => {
    const server = new Server({ name: 'per-session', version: '0.0.1' });
    server.registerTool('unlock', {}, async (ctx) => {
      await ctx.notifySessionListChanged('tool');
      return 'unlocked';
    });
    const caller = await Client.connectInProcess(server, { era: 'legacy' });
    const other = await Client.connectInProcess(server, { era: 'legacy' });
    try {
      let told = false;
      other.on('notifications/tools/list_changed', () => {
        told = true;
      });
      const changed = nextEvent(caller, 'notifications/tools/list_changed');
      await caller.callTool({ name: 'unlock' });
      await changed;
      await other.listTools();
      assert.equal(told, false, 'another session is not told');
    } finally {
      await caller.close();
      await other.close();
      await server.close();
    }
  });
});
