// Schemas as tools/list and prompts/list show them: converted from zod by zod's own JSON
// Schema export, or passed through as JSON Schema; checked once, by the core.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Client, Server } from 'oxmcp';
import * as z from 'zod';
import { z as zod3 } from 'zod3';
import * as zod325v4 from 'zod3/v4';

import { textOf } from './helpers.mjs';

describe('schemas', () => {
  const server = new Server({ name: 'schemas', version: '1' });
  const jsonSchema = {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 1 } },
    required: ['n'],
    additionalProperties: false,
  };
  server.registerTool(
    'zod_object',
    {
      inputSchema: z.object({ name: z.string(), times: z.number().int().default(1), tag: z.string().optional() }),
      outputSchema: z.object({ greeting: z.string(), times: z.number().default(1) }),
    },
    ({ name, times }) => ({ greeting: `hi ${name}`, times: times ?? 1 }),
  );
  server.registerTool('json_schema', { inputSchema: jsonSchema }, ({ n }) => String(n));
  server.registerTool('bad_output', { outputSchema: { count: z.number() } }, () => ({ count: 'many' }));
  server.registerPrompt(
    'json_args',
    { argsSchema: { type: 'object', properties: { topic: { type: 'string', description: 'What about' } }, required: ['topic'] } },
    ({ topic }) => `Tell me about ${topic}`,
  );
  let requestedSchema;
  server.registerTool('ask', {}, async (ctx) => {
    const answer = await ctx.elicit({ message: 'Age?', requestedSchema: { age: z.number().int() } });
    return JSON.stringify(answer.content);
  });

  let client;
  before(async () => {
    client = await Client.connectInProcess(server, {
      era: 'legacy',
      elicitation: (params) => {
        requestedSchema = params.requestedSchema;
        return { action: 'accept', content: { age: 42 } };
      },
    });
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  async function tool(name) {
    return (await client.listTools()).tools.find((t) => t.name === name);
  }

  it('converts a zod object with its input side for arguments and output side for results', async () => {
    const { inputSchema, outputSchema } = await tool('zod_object');
    assert.deepEqual(inputSchema.required, ['name']);
    assert.equal(inputSchema.properties.times.default, 1);
    assert.equal(inputSchema.additionalProperties, undefined);
    assert.deepEqual(outputSchema.required, ['greeting', 'times']);
  });

  it('passes JSON Schema through unchanged and validates with it', async () => {
    assert.deepEqual((await tool('json_schema')).inputSchema, jsonSchema);
    assert.equal(textOf(await client.callTool({ name: 'json_schema', arguments: { n: 3 } })), '3');
    for (const bad of [{ n: 0 }, { n: 1.5 }, { n: 1, extra: true }, {}]) {
      const result = await client.callTool({ name: 'json_schema', arguments: bad });
      assert.equal(result.isError, true, JSON.stringify(bad));
    }
  });

  it('checks structured output against the output schema', async () => {
    await assert.rejects(client.callTool({ name: 'bad_output' }), (error) => {
      assert.equal(error.code, -32603);
      assert.match(error.message, /\/count/);
      return true;
    });
  });

  it('makes prompt arguments from JSON Schema', async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts[0].arguments, [{ name: 'topic', description: 'What about', required: true }]);
  });

  it('converts a zod shape in an elicitation request', async () => {
    assert.equal(textOf(await client.callTool({ name: 'ask' })), '{"age":42}');
    assert.equal(requestedSchema.type, 'object');
    assert.deepEqual(requestedSchema.properties.age, { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER });
  });

  it("takes zod 3.25's zod/v4 schemas", async () => {
    const input = zod325v4.object({ a: zod325v4.number(), b: zod325v4.string().optional() });
    const registration = server.registerTool('zod325', { inputSchema: input }, ({ a }) => String(a));
    try {
      const { inputSchema } = await tool('zod325');
      assert.deepEqual(inputSchema.properties, { a: { type: 'number' }, b: { type: 'string' } });
      assert.deepEqual(inputSchema.required, ['a']);
      assert.equal(textOf(await client.callTool({ name: 'zod325', arguments: { a: 7 } })), '7');
    } finally {
      registration.remove();
    }
  });

  it('refuses zod 3 schemas, which have no JSON Schema export', () => {
    assert.throws(() => server.registerTool('old_zod', { inputSchema: zod3.object({ a: zod3.number() }) }, () => 'x'), /zod\/v4/);
    assert.throws(() => server.registerTool('old_shape', { inputSchema: { a: zod3.number() } }, () => 'x'), /zod\/v4/);
  });
});
