// Compiled by `npm run typecheck`, never run: the CommonJS entry point has the same types.
import oxmcp = require('oxmcp');

const server = new oxmcp.Server({ name: 'types', version: '1.0.0' });
server.registerTool('echo', { inputSchema: { type: 'object' } }, (args) => JSON.stringify(args));
export const registered: oxmcp.RegisteredTool = server.registerTool('none', {}, () => 'x');
