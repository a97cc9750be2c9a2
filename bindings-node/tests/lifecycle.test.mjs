// Processes end when they should: a stdio server when its stdin closes, a script when
// its work is done (its servers, HTTP listeners included, and clients closed). And both
// entry points (import, require) are one module.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';

import * as esm from 'oxmcp';

import { exitOf, FIXTURE_SERVER } from './helpers.mjs';

/** Runs an ES module script with `node`; resolves to its exit code and output. */
async function runScript(source) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
    cwd: new URL('.', import.meta.url),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  const code = await exitOf(child);
  return { code, output };
}

describe('a stdio server process', () => {
  it('answers over its pipes and exits when stdin closes', async () => {
    const child = spawn(process.execPath, [FIXTURE_SERVER], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      })}\n`,
    );
    const { value } = await lines.next();
    const answer = JSON.parse(value);
    assert.equal(answer.id, 1);
    assert.equal(answer.result.protocolVersion, '2025-06-18');
    assert.equal(answer.result.serverInfo.name, 'oxmcp-node-fixture');
    child.stdin.end();
    assert.equal(await exitOf(child), 0);
  });

  it('answers the calls in flight after stdin closes, then exits', async () => {
    const child = spawn(process.execPath, [FIXTURE_SERVER], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout });
    const received = [];
    lines.on('line', (line) => received.push(JSON.parse(line)));
    const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ method: 'notifications/initialized' });
    // The handler waits on timers and Promises between its progress notifications: each
    // step wakes the connection from outside a read of stdin.
    send({ id: 2, method: 'tools/call', params: { name: 'slow', arguments: { steps: 3 }, _meta: { progressToken: 'p' } } });
    // Two lines in one write, the second without its newline: stdin ends right after.
    child.stdin.end(
      `${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } })}\n` +
        JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } }),
    );
    assert.equal(await exitOf(child), 0);
    const answers = new Map(received.filter((m) => m.id !== undefined).map((m) => [m.id, m]));
    const seen = JSON.stringify(received);
    assert.equal(answers.get(2)?.result?.content[0].text, 'done after 3 steps', seen);
    assert.equal(answers.get(3)?.result?.content[0].text, 'a', seen);
    assert.equal(answers.get(4)?.result?.content[0].text, 'b', seen);
    const progress = received.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress);
    assert.deepEqual(progress, [1, 2, 3]);
  });
});

describe('a script', () => {
  for (const [how, connect] of [
    ['in process', 'Client.connectInProcess(server, { sampling: () => ({}) })'],
    ...['legacy', 'modern'].map((era) => [
      `over HTTP, ${era} era`,
      `Client.connectHttp((await server.listen({ transport: 'http', port: 0 })).url, { era: '${era}' })`,
    ]),
  ]) {
    it(`exits once its server and its client ${how} are closed`, async () => {
      const { code, output } = await runScript(`
        import { Client, Server } from 'oxmcp';
        const server = new Server({ name: 's', version: '1' });
        server.registerTool('hi', {}, async () => 'hello');
        const client = await ${connect};
        client.on('notification', () => {});
        const result = await client.callTool({ name: 'hi' });
        await client.close();
        await server.close();
        console.log(result.content[0].text);
      `);
      assert.equal(code, 0);
      assert.equal(output.trim(), 'hello');
    });
  }

  it('stays alive while its HTTP server listens', async () => {
    const { code, output } = await runScript(`
      import { Server } from 'oxmcp';
      const server = new Server({ name: 's', version: '1' });
      const { url } = await server.listen({ transport: 'http', port: 0 });
      // Only the listener keeps the process alive until then (an unref'd timer does not).
      setTimeout(async () => {
        const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        await server.close();
        console.log(answer.status);
      }, 200).unref();
    `);
    assert.equal(code, 0);
    assert.equal(output.trim(), '400');
  });

  it('exits when it only defined a server', async () => {
    const { code } = await runScript(`
      import { Server } from 'oxmcp';
      const server = new Server({ name: 's', version: '1' });
      server.registerTool('hi', {}, () => 'hello');
    `);
    assert.equal(code, 0);
  });

  it('exits after its stdio client closed the server process', async () => {
    const { code, output } = await runScript(`
      import { Client } from 'oxmcp';
      const server = ${JSON.stringify(FIXTURE_SERVER)};
      const client = await Client.connectStdio({ command: process.execPath, args: [server] });
      const { tools } = await client.listTools();
      await client.close();
      console.log(tools.length > 0);
    `);
    assert.equal(code, 0);
    assert.equal(output.trim(), 'true');
  });
});

describe('entry points', () => {
  it('import and require give the same classes', () => {
    const cjs = createRequire(import.meta.url)('oxmcp');
    assert.deepEqual(Object.keys(esm).sort(), Object.keys(cjs).sort());
    assert.equal(esm.Server, cjs.Server);
    assert.equal(esm.McpError, cjs.McpError);
  });
});
