// The oxmcp Node client drives the Rust fixture server (target/debug/fixture-server, built
// by `cargo build -p oxmcp-fixtures`) over stdio, in both eras.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Client, McpError } from 'oxmcp';

import { ANSWERING_HANDLERS, rustServerBinary, textOf } from './helpers.mjs';

const binary = rustServerBinary();
const skip = binary === undefined ? 'the Rust fixture server is not built (cargo build -p oxmcp-fixtures)' : false;

for (const era of ['legacy', 'modern']) {
  describe(`oxmcp Node client and the Rust fixture server, ${era} era`, { skip }, () => {
    let client;

    before(async () => {
      client = await Client.connectStdio({ command: binary, era, stderr: 'ignore', ...ANSWERING_HANDLERS });
    });

    after(async () => {
      await client.close();
    });

    it('connects in the era asked for', () => {
      assert.equal(client.protocolVersion, era === 'legacy' ? '2025-11-25' : '2026-07-28');
      assert.equal(client.getServerVersion().name, 'oxmcp-fixture');
    });

    it('calls tools: text, structured, failing', async () => {
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'from node' } })), 'from node');
      const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
      assert.deepEqual(sum.structuredContent, { result: 42 });
      const failed = await client.callTool({ name: 'fail' });
      assert.equal(failed.isError, true);
      await assert.rejects(
        client.callTool({ name: 'panic' }),
        (error) => error instanceof McpError && error.code === -32603,
      );
    });

    it('reads resources and templates, renders prompts', async () => {
      const greeting = await client.readResource({ uri: 'greeting://ada' });
      assert.equal(greeting.contents[0].text, 'Hello, ada!');
      const prompt = await client.getPrompt({ name: 'review', arguments: { code: 'fn main() {}', language: 'rust' } });
      assert.equal(prompt.messages[0].content.text, 'Please review this rust:\nfn main() {}');
    });

    it('reports progress and stops when cancelled', async () => {
      const seen = [];
      const done = await client.callTool(
        { name: 'slow', arguments: { steps: 2 } },
        { onprogress: (progress) => seen.push(progress.progress) },
      );
      assert.equal(textOf(done), 'done after 2 steps');
      assert.deepEqual(seen, [1, 2]);
      await assert.rejects(
        client.callTool({ name: 'slow', arguments: { steps: 100 } }, { signal: AbortSignal.timeout(120) }),
        (error) => error.name === 'TimeoutError',
      );
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'alive' } })), 'alive');
    });

    it("answers the server's elicitation and sampling requests", async () => {
      const confirmed = await client.callTool({ name: 'confirm' });
      assert.equal(textOf(confirmed), 'confirmed: {"ok":true}');
      assert.equal(textOf(await client.callTool({ name: 'ask_llm' })), 'the model said: Paris');
    });
  });
}
