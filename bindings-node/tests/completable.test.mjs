// `completable()`: prompt arguments whose zod schemas suggest values, answered through the
// core's completion/complete, in both eras.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Client, completable, Server } from 'oxmcp';
import * as z from 'zod';

const CITIES = ['paris', 'park city', 'perth', 'lima'];

function makeServer() {
  const server = new Server({ name: 'completable', version: '1' });
  server.registerPrompt(
    'trip',
    {
      description: 'Plan a trip (a raw shape)',
      argsSchema: {
        city: completable(z.string().describe('Where to'), (value) => CITIES.filter((city) => city.startsWith(value))),
        // Asynchronous, and told the arguments already given.
        hotel: completable(z.string().optional(), async (value, { arguments: given }) =>
          [`${given.city ?? 'any'}-inn`, `${given.city ?? 'any'}-lodge`].filter((hotel) => hotel.includes(value)),
        ),
        nights: z.string(),
      },
      // `complete` callbacks add to (and win over) completable fields.
      complete: { nights: () => ['1', '2', '3'] },
    },
    ({ city, nights }) => `${nights} nights in ${city}`,
  );
  server.registerPrompt(
    'object',
    { argsSchema: z.object({ colour: completable(z.string(), () => ['red', 'green']), size: z.string() }) },
    ({ colour, size }) => `${size} ${colour}`,
  );
  return server;
}

for (const era of ['legacy', 'modern']) {
  describe(`completable prompt arguments, ${era} era`, () => {
    let server;
    let client;

    before(async () => {
      server = makeServer();
      client = await Client.connectInProcess(server, { era });
    });

    after(async () => {
      await client.close();
      await server.close();
    });

    const complete = (name, argument, value, context) =>
      client.complete({
        ref: { type: 'ref/prompt', name },
        argument: { name: argument, value },
        ...(context === undefined ? {} : { context: { arguments: context } }),
      });

    it('answer completion requests with their callbacks', async () => {
      assert.deepEqual((await complete('trip', 'city', 'pa')).completion.values, ['paris', 'park city']);
      assert.deepEqual((await complete('trip', 'city', 'x')).completion.values, []);
      assert.deepEqual((await complete('trip', 'nights', '')).completion.values, ['1', '2', '3']);
      assert.deepEqual((await complete('object', 'colour', '')).completion.values, ['red', 'green']);
    });

    it('pass the arguments already given to the callback', async () => {
      const hotels = await complete('trip', 'hotel', 'lodge', { city: 'perth' });
      assert.deepEqual(hotels.completion.values, ['perth-lodge']);
    });

    it('leave the schema as it was', async () => {
      const { prompts } = await client.listPrompts();
      const trip = prompts.find((prompt) => prompt.name === 'trip');
      assert.deepEqual(trip.arguments, [
        { name: 'city', description: 'Where to', required: true },
        { name: 'hotel', required: false },
        { name: 'nights', required: true },
      ]);
      const rendered = await client.getPrompt({ name: 'trip', arguments: { city: 'lima', nights: '2' } });
      assert.equal(rendered.messages[0].content.text, '2 nights in lima');
    });

    it('are the only arguments with suggestions', async () => {
      assert.deepEqual((await complete('object', 'size', '')).completion.values, []);
    });
  });
}

describe('completable()', () => {
  it('returns the schema it marked', () => {
    const schema = z.string();
    assert.equal(
      completable(schema, () => []),
      schema,
    );
  });
});
