// The echo tool written with oxmcp's Node package, as its users would.
//
//   node oxmcp_node.mjs stdio
//   node oxmcp_node.mjs http    # prints LISTENING <url> on stderr (UNSUPPORTED <why> if it can't)
import { createServer } from 'node:net';

import { Server } from '../../../bindings-node/esm/index.mjs';

const server = new Server({ name: 'oxmcp-node-echo', version: '1.0.0' });
server.registerTool(
  'echo',
  {
    description: 'Send the text back.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);

/** A port free now, for a server that wants one up front. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

if (process.argv[2] === 'http') {
  const port = await freePort();
  const serving = server.listen({ transport: 'http', host: '127.0.0.1', port });
  // A binding without HTTP rejects at once, before the next turn of the event loop.
  serving.catch((error) => {
    console.error(`UNSUPPORTED ${error.message}`);
    process.exit(3);
  });
  setImmediate(() => console.error(`LISTENING http://127.0.0.1:${port}/mcp`));
  await serving;
} else {
  await server.listen({ transport: 'stdio' });
}
