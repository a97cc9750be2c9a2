// A server that serves other servers' tools, prompts and resources through clients
// connected to them (`server.proxy`): what its own clients get, in both eras, under a
// namespace and without one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Client, McpError, Server } from 'oxmcp';
import * as z from 'zod';

import { textOf } from './helpers.mjs';

function weather() {
  const server = new Server({ name: 'weather', version: '1.0.0' });
  server.registerTool('forecast', { inputSchema: { city: z.string(), days: z.number() } }, async ({ city, days }, ctx) => {
    for (let day = 1; day <= days; day += 1) {
      await ctx.progress(day, days);
    }
    return `sunny in ${city} for ${days} days`;
  });
  server.registerResource('today', 'weather://today', {}, () => 'warm');
  server.registerPrompt('ask', { argsSchema: { city: z.string() } }, ({ city }) => `Weather in ${city}?`);
  return server;
}

describe('a proxy', () => {
  for (const era of ['legacy', 'modern']) {
    it(`serves what the servers behind it offer, after its own (${era})`, async () => {
      const upstream = weather();
      const front = new Server({ name: 'front', version: '1.0.0' });
      front.registerTool('status', {}, () => 'proxying');
      const named = await Client.connectInProcess(upstream, { era: 'modern' });
      const plain = await Client.connectInProcess(upstream, { era: 'legacy' });
      front.proxy(named, { namespace: 'weather' });
      front.proxy(plain);
      const client = await Client.connectInProcess(front, { era });
      try {
        const tools = (await client.listTools()).tools.map((tool) => tool.name);
        assert.deepEqual(tools, ['status', 'weather_forecast', 'forecast']);
        const resources = (await client.listResources()).resources.map((resource) => resource.uri);
        assert.deepEqual(resources, ['weather://weather/today', 'weather://today']);
        const steps = [];
        const call = { name: 'weather_forecast', arguments: { city: 'Oslo', days: 3 } };
        const answer = await client.callTool(call, { onprogress: ({ progress }) => steps.push(progress) });
        assert.equal(textOf(answer), 'sunny in Oslo for 3 days');
        assert.deepEqual(steps, [1, 2, 3]);
        assert.equal(textOf(await client.callTool({ name: 'forecast', arguments: { city: 'Rome', days: 1 } })), 'sunny in Rome for 1 days');
        const read = await client.readResource({ uri: 'weather://weather/today' });
        assert.deepEqual([read.contents[0].uri, read.contents[0].text], ['weather://weather/today', 'warm']);
        const prompt = await client.getPrompt({ name: 'weather_ask', arguments: { city: 'Oslo' } });
        assert.equal(prompt.messages[0].content.text, 'Weather in Oslo?');
        // The other server's refusal comes back as it answered it.
        await assert.rejects(
          client.callTool({ name: 'weather_nowhere', arguments: {} }),
          (error) => error instanceof McpError && error.code === -32602,
        );
      } finally {
        await client.close();
        await named.close();
        await plain.close();
        await front.close();
        await upstream.close();
      }
    });
  }
});
