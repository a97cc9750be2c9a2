// The echo tool written with oxmcp's Node package, as its users would.
//
//   node oxmcp_node.mjs stdio
//   node oxmcp_node.mjs http    # prints LISTENING <url> on stderr once bound
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

if (process.argv[2] === 'http') {
  const { url } = await server.listen({ transport: 'http', host: '127.0.0.1', port: 0 });
  console.error(`LISTENING ${url}`);
} else {
  await server.listen({ transport: 'stdio' });
}
