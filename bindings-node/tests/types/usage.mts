// Compiled by `npm run typecheck`, never run: what handlers receive and may return, as
// the types of the `oxmcp` package say (ESM entry point). `@ts-expect-error` marks what
// must not compile.
import {
  Client,
  completable,
  InputRequired,
  McpError,
  McpServer,
  ResourceTemplate,
  Server,
  SSEServerTransport,
  StdioServerTransport,
  StreamableHTTPServerTransport,
  createMcpExpressApp,
  getOAuthProtectedResourceMetadataUrl,
  InvalidTokenError,
  isInitializeRequest,
  mcpAuthMetadataRouter,
  requireBearerAuth,
  WebStandardStreamableHTTPServerTransport,
  type CallToolResult,
  type GetPromptResult,
  type HttpAddress,
  type ReadResourceResult,
  type RequestHandlerExtra,
} from 'oxmcp';
import {
  CompleteRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  InMemoryTaskStore,
  isTerminal,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  Server as LowLevelServer,
} from 'oxmcp/sdk';
import { CallToolRequestSchema as OfficialCallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';

const server = new Server({ name: 'types', version: '1.0.0' }, { instructions: 'for the compiler' });

server.registerTool(
  'add',
  { description: 'Add', inputSchema: { a: z.number(), b: z.number().optional() }, outputSchema: { result: z.number() } },
  async ({ a, b }, ctx) => {
    const sum: number = a + (b ?? 0);
    ctx.signal.throwIfAborted();
    await ctx.progress(1, 2, 'half');
    return { result: sum };
  },
);

// @ts-expect-error the output schema wants a number
server.registerTool('bad_output', { outputSchema: { result: z.number() } }, () => ({ result: 'no' }));

// @ts-expect-error `a` is a number, not a string
server.registerTool('wrong_args', { inputSchema: { a: z.number() } }, ({ a }: { a: string }) => a);

server.registerTool('object', { inputSchema: z.object({ name: z.string() }) }, ({ name }) => name.toUpperCase());

server.registerTool(
  'json',
  { inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } },
  (args) => String(args['n']),
);

server.registerTool('no_args', { description: 'Takes only the context' }, (ctx): CallToolResult => ({
  content: [{ type: 'text', text: ctx.protocolVersion }],
}));

// A tool built on its server's own resources, prompts and tools.
server.registerTool('own', {}, async (ctx): Promise<string> => {
  await ctx.ping();
  const read: ReadResourceResult = await ctx.readResource('greeting://Ada');
  const rendered: GetPromptResult = await ctx.getPrompt('plain', { topic: 'x' });
  const called: CallToolResult = await ctx.callTool('no_args');
  return `${read.contents.length} ${rendered.messages.length} ${called.content.length}`;
});

server.registerResource('greeting', 'greeting://{name}{?lang}', { mimeType: 'text/plain' }, (uri, { name, lang }) => {
  const greeting: string = `Hello, ${name} (${lang ?? 'en'}) at ${uri.href}`;
  return greeting;
});

server.registerResource('readme', 'file:///readme.md', {}, (uri, ctx) => `${uri.pathname} ${ctx.era}`);

server.registerResource(
  'user',
  new ResourceTemplate('users://{id}', { complete: { id: (value) => [value] } }),
  {},
  (_uri, { id }) => ({ text: id }),
);

server.registerPrompt('review', { argsSchema: { code: z.string() } }, ({ code }) => `Review ${code}`);

server.registerPrompt(
  'completable',
  { argsSchema: { city: completable(z.string(), (value, { arguments: given }) => [value, given['other'] ?? '']) } },
  ({ city }) => `Visit ${city}`,
);

server.registerTool('explicit', {}, (ctx) => {
  const answer = ctx.inputResponses?.['name'];
  if (answer === undefined) {
    throw new InputRequired({ name: { method: 'roots/list' } }, ctx.requestState);
  }
  return JSON.stringify(answer);
});

const address: HttpAddress = await server.listen({ transport: 'http', port: 0, stateless: true, allowedHosts: [] });
const overHttp = await Client.connectHttp(address.url, { headers: { 'x-tenant': 'a' }, token: async () => 'secret' });
await overHttp.close();
// @ts-expect-error: a stdio listen resolves to nothing
const none: HttpAddress = await server.listen({ transport: 'stdio' });
void none;

// The bounds: counts, durations in milliseconds, event bytes kept as a pair.
const bounded = new Server({ name: 'bounded', version: '1' }, { maxInFlight: 8, maxSubscriptions: 8, endGrace: 500 });
await bounded.listen({ transport: 'http', maxConnections: 8, shutdownTimeout: 500, eventBytesKept: { perSession: 1, total: 2 } });
// @ts-expect-error: both amounts of event bytes are given
await bounded.listen({ transport: 'http', eventBytesKept: { perSession: 1 } });

server.registerPrompt('plain', {}, (ctx) => [{ role: 'user', content: { type: 'text', text: ctx.era } }]);

const client = await Client.connectInProcess(server, {
  era: 'modern',
  elicitation: (params) => ({ action: 'accept', content: { ok: params.message.length > 0 } }),
});
const result: CallToolResult = await client.callTool(
  { name: 'add', arguments: { a: 1 } },
  { timeout: 1000, signal: AbortSignal.timeout(500), onprogress: (p) => p.progress },
);
client.on('notifications/tools/list_changed', () => {});
const error: unknown = new McpError(-32602, 'bad', { field: 'a' });
void [result, error];
await client.close();
await server.close();

// The official SDK's McpServer: handlers get `extra`; `declare` and `capabilities` name capabilities.
const official = new McpServer({ name: 'ported', version: '1' }, { capabilities: { prompts: {}, logging: {} } });
official.registerTool('count', { inputSchema: { n: z.number() } }, async ({ n }, extra: RequestHandlerExtra) => {
  const count: number = n;
  await extra.sendNotification({ method: 'notifications/progress', params: { progress: 1, total: count } });
  return { content: [{ type: 'text', text: String(extra.requestId) }] };
});
official.tool('ping', async () => ({ content: [] }));
// @ts-expect-error: without an input schema the callback gets `extra` alone
official.registerTool('none', {}, async (args: { n: number }, extra: RequestHandlerExtra) => [args, extra]);
await official.connect(new StdioServerTransport());
const declaring = new Server({ name: 'declaring', version: '1' }, { declare: ['tools', 'prompts'] });
// @ts-expect-error: logging is always declared; only what follows registrations may be declared ahead
new Server({ name: 'wrong', version: '1' }, { declare: ['logging'] });
void declaring;
const http = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'unused', enableJsonResponse: true });
await official.connect(http);
const app = createMcpExpressApp();
app.post('/mcp', (req: unknown) => isInitializeRequest(req));
// An HTTP+SSE session's id is known as soon as its transport is made: apps key a map by it.
const sseSessions: Record<string, SSEServerTransport> = {};
app.get('/sse', async (_req: IncomingMessage, res: ServerResponse) => {
  const sse = new SSEServerTransport('/messages', res, { allowedHosts: ['localhost:3000'] });
  sseSessions[sse.sessionId] = sse;
  await official.connect(sse);
});
app.post('/messages', async (req: IncomingMessage, res: ServerResponse) => {
  await sseSessions['id']?.handlePostMessage(req, res, { jsonrpc: '2.0', method: 'ping', id: 1 });
});
// The SDK's bearer middleware and metadata router, in an Express app: the verifier gives
// an `AuthInfo`, which handlers see as `extra.authInfo`.
const mcpUrl = new URL('http://localhost:3000/mcp');
app.use(mcpAuthMetadataRouter({ oauthMetadata: { issuer: 'https://auth.example.com' }, resourceServerUrl: mcpUrl }));
const bearer = requireBearerAuth({
  verifier: {
    verifyAccessToken: async (token: string) => {
      if (token === '') throw new InvalidTokenError('empty');
      return { token, clientId: 'app', scopes: ['mcp'], expiresAt: 2e9, resource: mcpUrl };
    },
  },
  requiredScopes: ['mcp'],
  resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
});
app.post('/mcp', bearer, async (req: IncomingMessage, res: ServerResponse) => http.handleRequest(req, res));
// @ts-expect-error: a verifier gives an AuthInfo, with its scopes
requireBearerAuth({ verifier: { verifyAccessToken: async (token: string) => ({ token }) } });
const web = new WebStandardStreamableHTTPServerTransport();
await web.handleRequest(new Request('http://localhost/mcp'), { authInfo: { token: 't', clientId: 'c', scopes: [] } });

// A catalog: listers get a cursor, the others their params, each returns its method's result.
server.setCatalog({
  listTools: (cursor: string | undefined) => ({ tools: [], nextCursor: cursor }),
  callTool: async ({ name, arguments: args }) => ({ content: [{ type: 'text', text: `${name} ${Object.keys(args)}` }] }),
  readResource: ({ uri }) => ({ contents: [{ uri, text: uri.toUpperCase() }] }),
});
// @ts-expect-error: a prompt's arguments are strings
server.setCatalog({ getPrompt: ({ arguments: args }) => ({ messages: [], description: args.who * 2 }) });
// @ts-expect-error: a list of tools is not a list of prompts
server.setCatalog({ listPrompts: () => ({ tools: [] }) });

// An interceptor gets the request and the method to run, and gives a result object.
server.intercept(async ({ method, params, ctx }, next) => {
  const started: number = Date.now();
  const result: Record<string, unknown> = await next(method === 'tools/call' ? { ...params, arguments: {} } : undefined);
  void ctx.signal;
  return { ...result, took: Date.now() - started };
});
// @ts-expect-error: an interceptor answers with the result object
server.intercept(async (_request, next) => (await next()).content as string);

// The official low-level server, from `oxmcp/sdk`: each handler's request and result are
// those of the method its schema names, whether oxmcp's schema or the official SDK's.
const lowLevel = new LowLevelServer({ name: 'low', version: '1' }, { capabilities: { tools: {} } });
lowLevel.setRequestHandler(ListToolsRequestSchema, async (request) => ({ tools: [], nextCursor: request.params.cursor }));
lowLevel.setRequestHandler(OfficialCallToolRequestSchema, async (request, extra) => ({
  content: [{ type: 'text', text: `${request.params.name} ${extra.requestId}` }],
}));
lowLevel.setRequestHandler(CompleteRequestSchema, ({ params }) => ({ completion: { values: [params.argument.value] } }));
lowLevel.setRequestHandler({ shape: { method: { value: 'weather/forecast' } } }, ({ params }) => ({ city: params.city }));
// @ts-expect-error: a list of tools is not a list of prompts
lowLevel.setRequestHandler(ListPromptsRequestSchema, async () => ({ tools: [] }));
// @ts-expect-error: a read has a URI, not a name
lowLevel.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => ({ contents: [{ uri: params.name, text: '' }] }));
// A server that keeps its own tasks: a task-augmented call answers with the task made,
// and the task requests are answered from its store.
const store = new InMemoryTaskStore();
const keeping = new LowLevelServer({ name: 'tasks', version: '1' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } } });
keeping.setRequestHandler(OfficialCallToolRequestSchema, async ({ params }, extra) =>
  params.task === undefined
    ? { content: [] }
    : { task: await store.createTask({ ttl: params.task.ttl }, extra.requestId, { method: 'tools/call', params }, extra.sessionId) },
);
keeping.setRequestHandler(GetTaskRequestSchema, async ({ params }) => {
  const task = await store.getTask(params.taskId);
  if (task === null || isTerminal(task.status)) throw new Error('no task running');
  return task;
});
keeping.setRequestHandler(GetTaskPayloadRequestSchema, async ({ params }) => store.getTaskResult(params.taskId));
for await (const message of keeping.experimental.tasks.elicitInputStream({ message: 'Sure?', requestedSchema: { type: 'object', properties: {} } })) {
  const action: 'accept' | 'decline' | 'cancel' | undefined = message.type === 'result' ? message.result.action : undefined;
  void action;
}
await lowLevel.connect(new StdioServerTransport());
await lowLevel.sendResourceUpdated({ uri: 'file:///x' });
lowLevel.oninitialized = async () => {
  const name: string | undefined = lowLevel.getClientVersion()?.name;
  void name;
};
lowLevel.onclose = () => {};
