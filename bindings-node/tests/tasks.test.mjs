// Tools as tasks between Node peers: an `optional` tool runs as a task for a client that
// declares the 2026-07-28 extension (which follows it to its result, answering what it
// asks) and in place for one that does not; a `required` one refuses the latter with
// -32021. A `ToolTask` polls, waits for, reads and cancels a task in both eras; a server
// with a `taskStore` killed mid-task still answers for its tasks after a restart. The
// official TypeScript SDK's experimental task client (2025-11-25) drives an oxmcp server.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

import { Client as OfficialClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, McpError, Server } from 'oxmcp';
import * as z from 'zod';

import { roundRobin, startHttpScript, startRedis, textOf } from './helpers.mjs';

const TASKS_SERVER = fileURLToPath(new URL('./fixtures/tasks.mjs', import.meta.url));

function taskServer() {
  const server = new Server({ name: 'tasks', version: '1.0.0' }, { taskPollInterval: 50 });
  server.registerTool('confirm', { task: 'optional' }, async (ctx) => {
    const answer = await ctx.elicit({
      message: 'Sure?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
    return answer.content?.ok ? 'confirmed' : 'declined';
  });
  server.registerTool('quick', { task: 'required' }, () => 'quick');
  server.registerTool('sleep', { inputSchema: { ms: z.number() }, task: 'optional' }, async ({ ms }, ctx) => {
    assert.ok(ctx.isTask);
    await ctx.progress(1, 2);
    await ctx.taskStatus(`sleeping ${ms} ms`);
    await sleep(ms, undefined, { signal: ctx.signal });
    return `slept ${ms} ms`;
  });
  server.registerTool('plain', {}, () => 'plain');
  server.registerTool('greet_later', { task: 'required', asksBeforeTask: true }, async (ctx) => {
    const answer = await ctx.elicit({
      message: 'Sure?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
    await ctx.beginTask();
    assert.ok(ctx.isTask);
    return answer.content?.ok ? 'greeted' : 'not greeted';
  });
  server.registerTool('report', { task: 'required' }, async (ctx) => {
    for (const step of [1, 2]) {
      await sleep(20);
      await ctx.progress(step, 2);
    }
    return 'reported';
  });
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

  for (const era of ['legacy', 'modern']) {
    it(`give handles to poll, wait for, read and cancel (${era})`, async () => {
      const client = await Client.connectInProcess(taskServer(), { era, elicitation: accept });
      try {
        const task = await client.callToolAsTask({ name: 'sleep', arguments: { ms: 200 } });
        assert.equal(task.id?.length, 32);
        const now = await task.status();
        assert.equal(now?.status, 'working');
        assert.equal(now?.ttlMs, 3_600_000);
        assert.equal(textOf(await task.result()), 'slept 200 ms');
        assert.equal((await task.wait())?.status, 'completed');

        const long = await client.callToolAsTask({ name: 'sleep', arguments: { ms: 30_000 } });
        let said = await long.status();
        for (let polls = 0; said?.statusMessage === undefined && polls < 100; polls += 1) {
          await sleep(20);
          said = await long.status();
        }
        assert.equal(said?.statusMessage, 'sleeping 30000 ms');
        await long.cancel();
        assert.equal((await long.wait())?.status, 'cancelled');
        await assert.rejects(long.result(), (error) => error instanceof McpError && error.kind === 'cancelled');

        assert.equal(textOf(await client.callTool({ name: 'quick' })), 'quick');
        const asking = await client.callToolAsTask({ name: 'confirm' });
        assert.equal(textOf(await asking.result()), 'confirmed');

        // Asked in place (2026-07-28 rounds) or as the task's question (2025-11-25).
        assert.equal(textOf(await client.callTool({ name: 'greet_later' })), 'greeted');

        if (era === 'legacy') {
          // 2025-11-25: the call's progress token stays valid while its task runs.
          const seen = [];
          const reported = await client.callTool({ name: 'report' }, { onprogress: ({ progress }) => seen.push(progress) });
          assert.equal(textOf(reported), 'reported');
          assert.deepEqual(seen, [1, 2]);
        }

        const plain = await client.callToolAsTask({ name: 'plain' });
        assert.equal(plain.id, null);
        assert.equal(await plain.status(), null);
        assert.equal(textOf(await plain.result()), 'plain');
      } finally {
        await client.close();
      }
    });
  }

  it('outlive a killed server when kept in a task store', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'oxmcp-tasks-'));
    const env = { OXMCP_TASK_DB: path.join(dir, 'tasks.db') };
    try {
      const first = await startHttpScript(TASKS_SERVER, env);
      let finished;
      let running;
      try {
        const client = await Client.connectHttp(first.url, { era: 'modern' });
        finished = await client.callToolAsTask({ name: 'sleep', arguments: { ms: 0 } });
        assert.equal(textOf(await finished.result()), 'slept 0 ms');
        running = await client.callToolAsTask({ name: 'sleep', arguments: { ms: 60_000 } });
        assert.equal((await running.status())?.status, 'working');
        await first.kill();
        await client.close();
      } finally {
        await first.kill();
      }
      const second = await startHttpScript(TASKS_SERVER, env);
      try {
        const client = await Client.connectHttp(second.url, { era: 'modern' });
        try {
          assert.equal((await client.toolTask(finished.id).status())?.status, 'completed');
          assert.equal(textOf(await client.toolTask(finished.id).result()), 'slept 0 ms');
          const interrupted = await client.toolTask(running.id).wait();
          assert.equal(interrupted?.status, 'failed');
          assert.equal(interrupted?.statusMessage, 'the server stopped while the task was running');
          await assert.rejects(client.toolTask(running.id).result(), McpError);
        } finally {
          await client.close();
        }
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serve the official TypeScript SDK task client (2025-11-25)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'oxmcp-tasks-'));
    const server = await startHttpScript(TASKS_SERVER, { OXMCP_TASK_DB: path.join(dir, 'tasks.db') });
    const client = new OfficialClient({ name: 'official-client', version: '1.0.0' }, { capabilities: {} });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      assert.deepEqual(client.getServerCapabilities()?.tasks, {
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      await client.listTools();
      const tasks = client.experimental.tasks;
      const messages = [];
      const stream = tasks.callToolStream({ name: 'sleep', arguments: { ms: 100 } }, CallToolResultSchema, {
        task: { ttl: 60_000 },
      });
      for await (const message of stream) {
        messages.push(message);
      }
      assert.equal(messages[0].type, 'taskCreated', JSON.stringify(messages));
      const { taskId } = messages[0].task;
      const last = messages.at(-1);
      assert.equal(last.type, 'result', JSON.stringify(last));
      assert.equal(textOf(last.result), 'slept 100 ms');
      const got = await tasks.getTask(taskId);
      assert.equal(got.status, 'completed');
      assert.equal(got.ttl, 60_000);
      assert.ok((await tasks.listTasks()).tasks.some((task) => task.taskId === taskId));
      assert.equal(textOf(await tasks.getTaskResult(taskId, CallToolResultSchema)), 'slept 100 ms');

      const long = tasks.callToolStream({ name: 'sleep', arguments: { ms: 60_000 } }, CallToolResultSchema, { task: {} });
      const created = (await long.next()).value;
      assert.equal(created.type, 'taskCreated');
      const cancelled = await tasks.cancelTask(created.task.taskId);
      assert.equal(cancelled.status, 'cancelled');
      await long.return();
    } finally {
      await client.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('tasks and their callers', () => {
  it('are visible only to the session that made them, and expire', async () => {
    const server = new Server({ name: 'tasks', version: '1.0.0' }, { taskTtl: 500, taskPollInterval: 50 });
    server.registerTool('quick', { task: 'optional' }, () => 'quick');
    const one = await Client.connectInProcess(server, { era: 'legacy' });
    const other = await Client.connectInProcess(server, { era: 'legacy' });
    try {
      const task = await one.callToolAsTask({ name: 'quick' });
      assert.equal(textOf(await task.result()), 'quick');
      await assert.rejects(other.toolTask(task.id).status(), (error) => error instanceof McpError && error.code === -32602);
      await sleep(700);
      await assert.rejects(task.status(), (error) => error instanceof McpError && error.code === -32602);
    } finally {
      await one.close();
      await other.close();
    }
  });
});

describe('replicas sharing a store', () => {
  it('see, read and cancel each other\'s tasks through Redis', async () => {
    const redis = await startRedis();
    const replica = () => {
      const server = new Server({ name: 'replica', version: '1.0.0' }, { store: redis.url, taskPollInterval: 50 });
      server.registerTool('sleep', { inputSchema: { ms: z.number() }, task: 'optional' }, async ({ ms }, ctx) => {
        await sleep(ms, undefined, { signal: ctx.signal });
        return `slept ${ms} ms`;
      });
      return server;
    };
    const a = await Client.connectInProcess(replica(), { era: 'modern' });
    const b = await Client.connectInProcess(replica(), { era: 'modern' });
    try {
      const done = await a.callToolAsTask({ name: 'sleep', arguments: { ms: 0 } });
      assert.equal(textOf(await b.toolTask(done.id).result()), 'slept 0 ms');
      const long = await a.callToolAsTask({ name: 'sleep', arguments: { ms: 30_000 } });
      assert.equal((await b.toolTask(long.id).status())?.status, 'working');
      await b.toolTask(long.id).cancel();
      assert.equal((await long.wait())?.status, 'cancelled');
    } finally {
      await a.close();
      await b.close();
      await redis.stop();
    }
  });

  it('serve one legacy session behind round robin, for our client and the official one', async () => {
    const redis = await startRedis();
    const replicas = ['a', 'b', 'c'].map((name) => {
      const server = new Server({ name: 'replica', version: '1.0.0' }, { store: redis.url });
      server.registerTool('whoami', {}, () => name);
      server.registerTool('confirm', {}, async (ctx) => {
        const answer = await ctx.elicit({
          message: 'Sure?',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        });
        return answer.content?.ok ? `confirmed on ${name}` : 'declined';
      });
      return server;
    });
    const addresses = await Promise.all(replicas.map((server) => server.listen({ transport: 'http', port: 0 })));
    const balancer = await roundRobin(addresses.map(({ host, port }) => `http://${host}:${port}`));
    const official = new OfficialClient({ name: 'official', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    official.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { ok: true } }));
    try {
      const ours = await Client.connectHttp(balancer.url('/mcp'), {
        era: 'legacy',
        elicitation: () => ({ action: 'accept', content: { ok: true } }),
      });
      const answered = new Set();
      for (let i = 0; i < 3; i += 1) answered.add(textOf(await ours.callTool({ name: 'whoami' })));
      assert.equal(answered.size, 3, [...answered].join());
      // Each elicitation's answer is the next request: another replica takes it.
      for (let i = 0; i < 3; i += 1) assert.match(textOf(await ours.callTool({ name: 'confirm' })), /^confirmed on /);
      await ours.close();

      await official.connect(new StreamableHTTPClientTransport(new URL(balancer.url('/mcp'))));
      const seen = new Set();
      for (let i = 0; i < 3; i += 1) seen.add(textOf(await official.callTool({ name: 'whoami', arguments: {} })));
      assert.equal(seen.size, 3, [...seen].join());
      for (let i = 0; i < 3; i += 1) {
        assert.match(textOf(await official.callTool({ name: 'confirm', arguments: {} })), /^confirmed on /);
      }
    } finally {
      await official.close();
      await balancer.stop();
      await Promise.all(replicas.map((server) => server.close()));
      await redis.stop();
    }
  });
});
