// The example server written with oxmcp's Node package: the same tools, resource and prompt
// as the Python and Rust example servers, with plain JSON Schema (zod works too, and is not
// needed).
//
//   node examples/node/server.mjs          # stdio
//   node examples/node/server.mjs --http   # Streamable HTTP on a free port; the URL on stderr

import { ResourceTemplate, Server } from 'oxmcp';

const server = new Server({ name: 'oxmcp-node-example', version: '0.1.0' }, { instructions: 'Echo, add, greet, review.' });

/** An object schema of string, integer or boolean properties, all required. */
const object = (properties) => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(properties).map(([name, type]) => [name, { type }])),
  required: Object.keys(properties),
});

server.registerTool('echo', { description: 'Send the text back.', inputSchema: object({ text: 'string' }) }, ({ text }) => text);

server.registerTool(
  'add',
  { description: 'Add two numbers.', inputSchema: object({ a: 'integer', b: 'integer' }), outputSchema: object({ result: 'integer' }) },
  ({ a, b }) => a + b,
);

server.registerTool(
  'book',
  { description: 'Book a table, once the user confirms (works in both protocol eras).', inputSchema: object({ date: 'string' }) },
  async ({ date }, ctx) => {
    const answer = await ctx.elicit({
      message: `Book a table on ${date}?`,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean' }, seats: { type: 'integer', default: 1 } },
        required: ['confirm'],
      },
    });
    if (answer.action === 'accept' && answer.content?.confirm) {
      return `booked ${answer.content.seats ?? 1} seats on ${date}`;
    }
    return `not booked (${answer.action})`;
  },
);

server.registerResource('greeting', new ResourceTemplate('greeting://{name}'), { description: 'A greeting for someone.' }, (_uri, { name }) => `Hello, ${name}!`);

server.registerPrompt(
  'review',
  { description: 'Ask for a code review.', argsSchema: object({ code: 'string' }) },
  ({ code }) => `Please review this code:\n${code}`,
);

if (process.argv.includes('--http')) {
  const { url } = await server.listen({ transport: 'http', port: 0 });
  console.error(`serving Streamable HTTP at ${url}`);
} else {
  await server.listen({ transport: 'stdio' });
}
