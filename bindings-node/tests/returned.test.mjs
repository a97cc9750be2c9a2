// The cross-language table of tool return values (tests/returned/cases.json) through a
// Node server: each case's tool returns the value the table names, written as a
// JavaScript user would, and the wire result must be the table's. The Rust, Python and
// Kotlin suites run the same table.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { Client, Server } from 'oxmcp';

const table = JSON.parse(readFileSync(new URL('../../tests/returned/cases.json', import.meta.url), 'utf8'));
const ada = { name: 'Ada', age: 36 };
const image = { type: 'image', data: 'AAEC', mimeType: 'image/png' };

function server() {
  const server = new Server({ name: 'returned', version: '1.0.0' });
  const tool = (name, handler, config = {}) => server.registerTool(name, config, handler);
  tool('text', () => 'hello');
  tool('number', () => 42);
  tool('object', () => ada);
  tool('object_structured', () => ada, { outputSchema: table.objectSchema });
  tool('number_structured', () => 42, { outputSchema: table.numberSchema });
  tool('list', () => ['a', 1]);
  tool('none', () => undefined);
  tool('bytes', () => new Uint8Array([0, 1, 2]));
  tool('image', () => image);
  tool('content_blocks', () => [{ type: 'text', text: 'a' }, image]);
  tool('complete', () => ({ content: [{ type: 'text', text: 'as is' }], isError: true }));
  tool('error', () => {
    throw new Error('boom');
  });
  return server;
}

describe('the table of tool return values', () => {
  for (const era of ['legacy', 'modern']) {
    it(`gives every case's wire result (${era})`, async () => {
      const client = await Client.connectInProcess(server(), { era });
      try {
        for (const { name, result: expected } of table.cases) {
          // What the era adds is not the handler's.
          const { resultType: _resultType, _meta, ...result } = await client.callTool({ name });
          assert.deepEqual(result, expected, name);
        }
      } finally {
        await client.close();
      }
    });
  }
});
