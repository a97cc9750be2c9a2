// A `Server` and its clients in one process (over the core's in-memory transport):
// one server, many connections, runtime changes, values that cannot be sent, the bounds
// on each client, definition errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Client, McpError, Server } from 'oxmcp';
import * as z from 'zod';

import { nextEvent, registerEndlessTool, textOf } from './helpers.mjs';

function makeServer() {
  const server = new Server({ name: 'in-process', version: '0.0.1' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => text);
  return server;
}

describe('in-process connections', () => {
  it('serve any number of clients of one server, in both eras at once', async () => {
    const server = makeServer();
    const legacy = await Client.connectInProcess(server, { era: 'legacy' });
    const modern = await Client.connectInProcess(server, { era: 'modern' });
    try {
      assert.equal(legacy.protocolVersion, '2025-11-25');
      assert.equal(modern.protocolVersion, '2026-07-28');
      const calls = Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? legacy : modern).callTool({ name: 'echo', arguments: { text: `n${i}` } }),
      );
      const texts = (await Promise.all(calls)).map(textOf);
      assert.deepEqual(texts, Array.from({ length: 50 }, (_, i) => `n${i}`));
    } finally {
      await legacy.close();
      await modern.close();
      await server.close();
    }
  });

  it('see tools registered, removed, disabled and enabled at runtime', async () => {
    const server = makeServer();
    const client = await Client.connectInProcess(server, { era: 'legacy' });
    try {
      let changed = nextEvent(client, 'notifications/tools/list_changed');
      const late = server.registerTool('late', { description: 'Registered after connecting' }, () => 'late answer');
      await changed;
      assert.equal(textOf(await client.callTool({ name: 'late' })), 'late answer');

      changed = nextEvent(client, 'notifications/tools/list_changed');
      late.disable();
      await changed;
      assert.equal(late.enabled, false);
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['echo']);
      await assert.rejects(client.callTool({ name: 'late' }), McpError);
      // Disabled, its name stays taken.
      assert.throws(
        () => server.registerTool('late', {}, () => 'another'),
        (error) => error instanceof McpError && error.kind === 'definition' && /already registered/.test(error.message),
      );

      late.enable();
      assert.equal(textOf(await client.callTool({ name: 'late' })), 'late answer');

      changed = nextEvent(client, 'notifications/tools/list_changed');
      late.remove();
      await changed;
      await assert.rejects(client.callTool({ name: 'late' }), McpError);
      // Removed for good: the name is free again.
      server.registerTool('late', {}, () => 'again');
      assert.equal(textOf(await client.callTool({ name: 'late' })), 'again');
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('announce resource and prompt changes', async () => {
    const server = makeServer();
    const client = await Client.connectInProcess(server, { era: 'legacy' });
    try {
      const resources = nextEvent(client, 'notifications/resources/list_changed');
      const note = server.registerResource('note', 'memo://note', {}, () => 'remember');
      await resources;
      assert.equal((await client.readResource({ uri: 'memo://note' })).contents[0].text, 'remember');
      note.remove();
      await assert.rejects(client.readResource({ uri: 'memo://note' }), McpError);

      const prompts = nextEvent(client, 'notifications/prompts/list_changed');
      server.registerPrompt('hello', {}, () => 'Hello!');
      await prompts;
      assert.deepEqual((await client.listPrompts()).prompts.map((prompt) => prompt.name), ['hello']);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('survive a notification listener that throws, with a warning', async () => {
    const server = makeServer();
    const client = await Client.connectInProcess(server, { era: 'legacy' });
    try {
      client.on('notifications/tools/list_changed', () => {
        throw new Error('listener bug');
      });
      const warning = nextEvent(process, 'warning');
      server.registerTool('trigger', {}, () => 'x');
      assert.match((await warning).message, /listener bug/);
      assert.equal(textOf(await client.callTool({ name: 'trigger' })), 'x');
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('end when the server closes', async () => {
    const server = makeServer();
    const client = await Client.connectInProcess(server);
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'before' } })), 'before');
    await server.close();
    await assert.rejects(client.callTool({ name: 'echo', arguments: { text: 'after' } }), (error) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.kind, 'closed');
      return true;
    });
    await client.close();
  });

  it('fire the handler AbortSignal when the client cancels', async () => {
    const server = new Server({ name: 'cancel', version: '1' });
    let signalled;
    const reason = new Promise((resolve) => {
      signalled = resolve;
    });
    server.registerTool('wait', {}, (ctx) => {
      ctx.signal.addEventListener('abort', () => signalled(ctx.signal.reason));
      return new Promise(() => {});
    });
    const client = await Client.connectInProcess(server);
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: 'wait' }, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('changed my mind')), 50);
      await assert.rejects(call, /changed my mind/);
      // The abort reaches the handler after the call rejected: wait for it (a timer keeps
      // the event loop alive meanwhile; the server's callbacks never do).
      let timer;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('no abort within 5 s')), 5000);
      });
      try {
        assert.equal((await Promise.race([reason, timeout])).name, 'AbortError');
      } finally {
        clearTimeout(timer);
      }
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('answer failing resource and prompt handlers with JSON-RPC errors', async () => {
    const server = new Server({ name: 'failing', version: '1' });
    server.registerResource('broken', 'memo://broken', {}, () => {
      throw new Error('cannot read');
    });
    server.registerPrompt('broken', {}, async () => {
      throw new McpError(-32602, 'bad prompt');
    });
    const client = await Client.connectInProcess(server);
    try {
      await assert.rejects(client.readResource({ uri: 'memo://broken' }), (error) => {
        assert.equal(error.code, -32603);
        assert.match(error.message, /cannot read/);
        return true;
      });
      await assert.rejects(
        client.getPrompt({ name: 'broken' }),
        (error) => error.code === -32602 && error.message === 'bad prompt',
      );
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('a tool handler', () => {
  it('gets its context however it declares it, and runs without one when it declares none', async () => {
    const server = new Server({ name: 'contexts', version: '1' });
    const input = { text: z.string() };
    const seen = (ctx) => (ctx === undefined ? 'none' : typeof ctx.requestId);
    server.registerTool('declared', { inputSchema: input }, (_args, ctx) => seen(ctx));
    server.registerTool('rest', { inputSchema: input }, (...all) => seen(all[1]));
    server.registerTool('arguments', { inputSchema: input }, function () {
      return seen(arguments[1]);
    });
    server.registerTool('alone', {}, (ctx) => seen(ctx));
    server.registerTool('none', { inputSchema: input }, ({ text }) => text);
    const client = await Client.connectInProcess(server);
    try {
      const call = async (name) => textOf(await client.callTool({ name, arguments: { text: '!' } }));
      assert.deepEqual(
        await Promise.all(['declared', 'rest', 'arguments', 'alone', 'none'].map(call)),
        ['number', 'number', 'number', 'number', '!'],
      );
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('what a handler returns', () => {
  /** A value `levels` containers deep, each made by `make(inner)`. */
  function nested(levels, make) {
    let value = 0;
    for (let i = 0; i < levels; i++) {
      value = make(value);
    }
    return value;
  }

  function cyclicObject() {
    const value = { name: 'loop' };
    value.self = value;
    return value;
  }

  function cyclicArray() {
    const value = [1];
    value.push(value);
    return value;
  }

  for (const [name, make, problem] of [
    ['an object that contains itself', cyclicObject, 'that contains itself'],
    ['an array that contains itself', cyclicArray, 'that contains itself'],
    ['a value with a cycle inside', () => ({ items: [cyclicObject()] }), 'that contains itself'],
    ['objects 100 000 deep', () => nested(100_000, (inner) => ({ a: inner })), 'nested more than 128 levels deep'],
    ['arrays 100 000 deep', () => nested(100_000, (inner) => [inner]), 'nested more than 128 levels deep'],
  ]) {
    it(`is an error result, not a crash, when it is ${name}`, async () => {
      const server = new Server({ name: 'shapes', version: '1' });
      server.registerTool('now', {}, () => make());
      server.registerTool('later', {}, async () => make());
      server.registerTool('structured', { outputSchema: { type: 'object' } }, () => ({ value: make() }));
      server.registerTool('deepEnough', {}, () => nested(64, (inner) => ({ a: [inner] })));
      const client = await Client.connectInProcess(server);
      try {
        for (const tool of ['now', 'later', 'structured']) {
          const result = await client.callTool({ name: tool });
          assert.equal(result.isError, true, tool);
          assert.equal(textOf(result), `the handler returned what cannot be sent: a value ${problem}`, tool);
        }
        assert.notEqual((await client.callTool({ name: 'deepEnough' })).isError, true, '128 levels are not too deep');
      } finally {
        await client.close();
        await server.close();
      }
    });
  }
});

describe('server options', () => {
  it('bound each client: requests in flight, subscriptions, the grace once it left', async () => {
    const server = new Server({ name: 'bounded', version: '1' }, { maxInFlight: 1, maxSubscriptions: 1, endGrace: 200 });
    const { running, aborted: abort } = registerEndlessTool(server, 'wait');
    server.registerResource('a', 'memo://a', {}, () => 'a');
    server.registerResource('b', 'memo://b', {}, () => 'b');
    const client = await Client.connectInProcess(server, { era: 'legacy' });
    let timer;
    try {
      await client.subscribeResource({ uri: 'memo://a' });
      await assert.rejects(client.subscribeResource({ uri: 'memo://b' }), /at most 1/);
      const call = client.callTool({ name: 'wait' });
      await running;
      await assert.rejects(client.callTool({ name: 'wait' }), /at most 1/);
      const failed = assert.rejects(call, McpError);
      await client.close();
      await failed;
      // The client left with its call in flight: the call ends after `endGrace` (200 ms,
      // not the default 5 s). A timer keeps the event loop alive meanwhile.
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('the call was not cancelled within 3 s')), 3000);
      });
      await Promise.race([abort, late]);
    } finally {
      clearTimeout(timer);
      await server.close();
    }
  });

  it('mask what a handler error says when asked to', async () => {
    for (const [maskErrorDetails, expected] of [
      [false, 'the vault key is 1234'],
      [true, 'the request failed'],
    ]) {
      const server = new Server({ name: 'masked', version: '1' }, { maskErrorDetails });
      server.registerTool('leak', {}, () => {
        throw new Error('the vault key is 1234');
      });
      const client = await Client.connectInProcess(server);
      try {
        const result = await client.callTool({ name: 'leak' });
        assert.equal(result.isError, true);
        assert.match(result.content[0].text, new RegExp(expected));
      } finally {
        await client.close();
        await server.close();
      }
    }
  });

  it('are refused when they cannot be used', () => {
    for (const [options, pattern] of [
      [{ endGrace: -1 }, /endGrace must be a finite, non-negative number of milliseconds/],
      [{ clientRequestTimeout: -1 }, /clientRequestTimeout must be a finite, non-negative number of milliseconds/],
      [{ maxInFlight: -1 }, /maxInFlight must be a whole, non-negative number/],
      [{ maxSubscriptions: 1.5 }, /maxSubscriptions must be a whole, non-negative number/],
      [{ pageSize: Number.NaN }, /pageSize must be a whole, non-negative number/],
    ]) {
      assert.throws(
        () => new Server({ name: 'bad', version: '1' }, options),
        (error) => error instanceof McpError && error.kind === 'definition' && pattern.test(error.message),
      );
    }
  });
});

describe('definitions', () => {
  it('are refused twice under one name', () => {
    const server = makeServer();
    assert.throws(
      () => server.registerTool('echo', {}, () => 'again'),
      (error) => error instanceof McpError && error.kind === 'definition' && /already registered/.test(error.message),
    );
  });

  it('are checked by the core', () => {
    const server = makeServer();
    assert.throws(
      () => server.registerTool('has space', {}, () => 'x'),
      (error) => error instanceof McpError && error.kind === 'definition' && /tool name/.test(error.message),
    );
    assert.throws(() => server.registerTool('strings', { inputSchema: { type: 'string' } }, () => 'x'), /type/);
    assert.throws(() => server.registerResource('bad', 'bad://{a b}', {}, () => 'x'), McpError);
    // A refused definition leaves its name free.
    server.registerTool('strings', { inputSchema: { type: 'object' } }, () => 'x');
  });
});

describe('the client bounds the input rounds of a request', () => {
  it('fails a 2026-07-28 call that asks more rounds than maxInputRounds allows', async () => {
    const server = new Server({ name: 'asking', version: '1.0.0' });
    server.registerTool('survey', {}, async (ctx) => {
      for (let round = 0; round < 3; round++) {
        await ctx.elicit({ message: 'Again?', requestedSchema: { ok: z.boolean() } });
      }
      return 'asked thrice';
    });
    const elicitation = () => ({ action: 'accept', content: { ok: true } });
    const bounded = await Client.connectInProcess(server, { era: 'modern', elicitation, maxInputRounds: 2 });
    const roomy = await Client.connectInProcess(server, { era: 'modern', elicitation });
    try {
      await assert.rejects(bounded.callTool({ name: 'survey' }), /after 2 input rounds/);
      assert.equal(textOf(await roomy.callTool({ name: 'survey' })), 'asked thrice');
    } finally {
      await bounded.close();
      await roomy.close();
      await server.close();
    }
  });
});
