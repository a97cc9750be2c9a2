// Handler values reach the wire the same whichever way they cross into the native module:
// plain data as JSON text (ts/json.ts), anything else read by the native module itself.
// Each expected result is what the native module gives when it reads the value itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Client, Server } from 'oxmcp';

class Point {
  constructor() {
    this.x = 1;
  }
}

const nested = (levels) => {
  let value = 1;
  for (let i = 0; i < levels; i++) {
    value = [value];
  }
  return { value };
};

/** name: [what the tool returns, its structuredContent, or the text of its (error) result]. */
const cases = {
  // Floats come back as the very numbers: JSON text parses exactly.
  floats: [
    { a: 0.1 + 0.2, b: 1e-7, c: 5e-324, d: Number.MAX_VALUE, e: -0, f: 2.5 },
    { a: 0.1 + 0.2, b: 1e-7, c: 5e-324, d: Number.MAX_VALUE, e: 0, f: 2.5 },
  ],
  // Whole numbers past 2^53 - 1 stay floats, as the native module reads them.
  whole: [
    { big: 2 ** 60, edge: 2 ** 53, safe: 2 ** 53 - 1, huge: 1e21 },
    '{\n  "big": 1.152921504606847e+18,\n  "edge": 9007199254740992.0,\n  "safe": 9007199254740991,\n  "huge": 1e+21\n}',
  ],
  // A lone surrogate is U+FFFD (a key with one is dropped); a pair is its character.
  surrogates: [{ ['k\uD800']: 1, lone: 'a\uDC00b', pair: '\uD83D\uDE00' }, { lone: 'a\uFFFDb', pair: '\uD83D\uDE00' }],
  escapes: [{ text: 'back\\ud800slash "quoted"\n' }, { text: 'back\\ud800slash "quoted"\n' }],
  date: [{ when: new Date(0) }, { when: {} }],
  instance: [{ item: new Point() }, { item: { x: 1 } }],
  noPrototype: [Object.assign(Object.create(null), { a: 1 }), { a: 1 }],
  undefinedMember: [{ a: undefined, b: 1 }, { b: 1 }],
  undefinedItem: [{ list: [1, undefined] }, 'the JavaScript callback failed: undefined cannot be represented as a serde_json::Value'],
  hole: [{ list: [1, , 2] }, 'the JavaScript callback failed: undefined cannot be represented as a serde_json::Value'],
  nan: [{ x: NaN }, 'the JavaScript callback failed: Failed to convert js number to serde_json::Number'],
  infinity: [{ x: [Infinity] }, 'the JavaScript callback failed: Failed to convert js number to serde_json::Number'],
  toJSON: [{ toJSON: () => 1 }, 'the JavaScript callback failed: JS functions cannot be represented as a serde_json::Value'],
  deep: [nested(100), nested(100)],
  long: [{ text: 'x'.repeat(10_000) }, { text: 'x'.repeat(10_000) }],
};

describe('handler values', () => {
  it('reach the wire as the native module reads them', async () => {
    const server = new Server({ name: 'values', version: '1.0.0' });
    for (const [name, [value]] of Object.entries(cases)) {
      server.registerTool(name, { outputSchema: { type: 'object' } }, () => value);
    }
    const client = await Client.connectInProcess(server, { era: 'legacy' });
    try {
      for (const [name, [, expected]] of Object.entries(cases)) {
        const result = await client.callTool({ name });
        if (typeof expected === 'string') {
          assert.equal(result.content[0].text, expected, name);
        } else {
          assert.equal(result.isError, undefined, name);
          assert.deepEqual(result.structuredContent, expected, name);
        }
      }
    } finally {
      await client.close();
      await server.close();
    }
  });
});
