/**
 * The official TypeScript SDK's server API (`McpServer`, `StdioServerTransport`) over
 * oxmcp's `Server`, so that a server written for `@modelcontextprotocol/sdk` runs on the
 * oxmcp core with its imports changed:
 *
 * ```ts
 * import { McpServer, StdioServerTransport } from 'oxmcp';
 *
 * const server = new McpServer({ name: 'demo', version: '1.0.0' });
 * server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }, extra) => ({
 *   content: [{ type: 'text', text: String(a + b) }],
 * }));
 * await server.connect(new StdioServerTransport());
 * ```
 *
 * Handlers get the official `extra` (`signal`, `requestId`, `_meta`, `authInfo`,
 * `sendNotification`, `sendRequest`) made from oxmcp's `Context`; `mcpServer.server`
 * asks the client of the request in progress (`createMessage`, `elicitInput`, `listRoots`,
 * `sendLoggingMessage`). Everything else is oxmcp's: the protocol, both eras, validation.
 */

import { AsyncLocalStorage } from 'node:async_hooks';

import type { IncomingMessage, ServerResponse } from 'node:http';

import type { AccessToken } from './auth';
import { compact } from './compact';
import type { Context, ElicitInput } from './context';
import type { FetchHandler, NodeHandler } from './mounted';
import { ErrorCode, McpError } from './errors';
import { toJsonSchema, validate, validatorOf, type Infer, type SchemaInput, type StandardSchemaLike } from './schema';
import {
  Server,
  type ResourceTemplate,
  type DeclarableCapability,
  type HttpMountOptions,
  type PromptConfig,
  type RegisteredPrompt,
  type RegisteredResource,
  type RegisteredResourceTemplate,
  type RegisteredTool,
  type ResourceMetadata,
  type ServerOptions,
  type ToolConfig,
} from './server';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  Meta,
  ToolAnnotations,
} from './types';

/** What the official SDK calls the caller's token (`extra.authInfo`). */
export interface AuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  /** Seconds since the epoch. */
  expiresAt?: number;
  extra?: Record<string, unknown>;
}

/** A notification or request as handlers send them through `extra`. */
export interface OutgoingMessage {
  method: string;
  params?: Record<string, unknown>;
}

/** The official SDK's second handler argument, made from oxmcp's `Context`. */
export interface RequestHandlerExtra {
  /** Fires when the client cancels the request or goes away. */
  signal: AbortSignal;
  requestId: string | number;
  /** The session of the request (see `Context.sessionId`). */
  sessionId?: string;
  /** The request's `_meta` (its `progressToken` among them). */
  _meta?: Meta;
  /** The caller's verified token, on a server that requires one. */
  authInfo?: AuthInfo;
  /** `notifications/progress` and `notifications/message` about this request. */
  sendNotification(notification: OutgoingMessage): Promise<void>;
  /** `sampling/createMessage`, `elicitation/create` or `roots/list` to the client. */
  sendRequest(request: OutgoingMessage, resultSchema?: unknown, options?: unknown): Promise<unknown>;
  /** oxmcp's own context, for what the official SDK does not have. */
  ctx: Context;
}

/** `connect()`'s transport for this process's stdin and stdout. */
export class StdioServerTransport {}

/** The official HTTP transports' options that oxmcp reads (an `eventStore` is not needed: the core keeps events). */
export interface StreamableHTTPServerTransportOptions {
  /** Makes a session per client (oxmcp makes the ids, from the CSPRNG); `undefined`: stateless. */
  sessionIdGenerator?: (() => string) | undefined;
  /** Told the id of a session once its `initialize` is answered. */
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  /** Told the id of a session its client ended with DELETE. */
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
  /** Answers with one JSON object instead of an SSE stream. */
  enableJsonResponse?: boolean;
  /** `Host` names accepted (oxmcp's default: loopback names only). */
  allowedHosts?: string[];
  /** `Origin` values accepted (oxmcp's default: pages served from loopback hosts). */
  allowedOrigins?: string[];
  eventStore?: unknown;
  enableDnsRebindingProtection?: boolean;
  retryInterval?: number;
}

/**
 * What the official HTTP transports share: the endpoint settings their options give, the
 * session the endpoint opened, and its end.
 */
export abstract class HttpTransport {
  /** The session this transport serves, once its `initialize` is answered. */
  sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #server: Server | undefined;
  #closed = false;

  constructor(protected readonly options: StreamableHTTPServerTransportOptions = {}) {}

  /** @internal Serves through `server`'s endpoint (`McpServer.connect`). */
  attach(server: Server): void {
    this.#server = server;
  }

  /** Ends the transport (the session lives on in the endpoint until its client or the reaper ends it). */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.onclose?.();
    }
  }

  /** The endpoint settings for requests to `path`. */
  protected settings(path: string): HttpMountOptions {
    const { sessionIdGenerator, enableJsonResponse, allowedHosts, allowedOrigins } = this.options;
    return compact({
      path,
      stateless: sessionIdGenerator === undefined,
      jsonResponse: enableJsonResponse,
      allowedHosts,
      allowedOrigins,
    });
  }

  protected server(): Server {
    if (this.#server === undefined) {
      throw new McpError(-32603, 'connect the transport first: await mcpServer.connect(transport)', undefined, 'unsupported');
    }
    return this.#server;
  }

  /** Follows the session through an answer: its id from `initialize`, its end at DELETE. */
  protected seen(method: string, status: number, sessionId: string | undefined): void {
    if (sessionId !== undefined && this.sessionId === undefined && status < 300) {
      this.sessionId = sessionId;
      void this.options.onsessioninitialized?.(sessionId);
    }
    if (method === 'DELETE' && status < 300 && this.sessionId !== undefined) {
      void this.options.onsessionclosed?.(this.sessionId);
      void this.close();
    }
  }
}

/**
 * The official `StreamableHTTPServerTransport` for Node's `(req, res)` (Express and the
 * like): `handleRequest(req, res, req.body)` hands each request to the connected server's
 * endpoint, which speaks the protocol (both eras, sessions, SSE, the Host and Origin checks).
 */
export class StreamableHTTPServerTransport extends HttpTransport {
  #handler: NodeHandler | undefined;

  /** Serves one request; `parsedBody` is what a body parser read already (`req.body`). */
  async handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    const request = req as IncomingMessage & { body?: unknown };
    if (parsedBody !== undefined && request.body === undefined) {
      request.body = parsedBody;
    }
    const server = this.server();
    // The endpoint answers at the path it is mounted at, whatever the app calls it.
    this.#handler ??= server.watchedNodeHandler(this.settings(pathOf(req.url)), (status, headers, method) =>
      this.seen(method, status, headers.find(([name]) => name?.toLowerCase() === SESSION_HEADER)?.[1]),
    );
    await this.#handler(req, res);
  }
}

/**
 * The official `WebStandardStreamableHTTPServerTransport` (Hono, Bun, Deno, Workers):
 * `handleRequest(request)` answers a web-standard `Request` through the connected
 * server's endpoint.
 */
export class WebStandardStreamableHTTPServerTransport extends HttpTransport {
  #handler: FetchHandler | undefined;

  /** Answers one request. */
  async handleRequest(request: Request): Promise<Response> {
    this.#handler ??= this.server().fetchHandler(this.settings(new URL(request.url).pathname));
    const response = await this.#handler(request);
    this.seen(request.method, response.status, response.headers.get(SESSION_HEADER) ?? undefined);
    return response;
  }
}

/** Whether `message` is an `initialize` request (the official helper, for session routing). */
export function isInitializeRequest(message: unknown): boolean {
  return isPlainObject(message) && message.method === 'initialize' && message.jsonrpc === '2.0' && 'id' in message;
}

/** An express application, as `createMcpExpressApp` makes it (express's own types describe it). */
export type McpExpressApp = ((req: IncomingMessage, res: ServerResponse, next?: () => void) => void) & Record<string, any>;

/**
 * The official `createMcpExpressApp`: an express app that parses JSON bodies and, bound
 * to a loopback address (the default), accepts only loopback `Host` names (DNS rebinding);
 * `allowedHosts` names others. Needs express installed.
 */
export function createMcpExpressApp(options: { host?: string; allowedHosts?: string[] } = {}): McpExpressApp {
  const { host = '127.0.0.1', allowedHosts } = options;
  let express: ExpressModule;
  try {
    express = require('express') as ExpressModule;
  } catch {
    throw new TypeError('createMcpExpressApp needs express installed (npm install express)');
  }
  const app = express();
  app.use(express.json());
  const accepted = allowedHosts ?? (LOOPBACK_NAMES.includes(host) ? LOOPBACK_NAMES : undefined);
  if (accepted !== undefined) {
    app.use((req: IncomingMessage, res: ServerResponse, next: () => void) => {
      if (accepted.includes(hostnameOf(req.headers.host))) {
        next();
        return;
      }
      res.writeHead(403, { 'content-type': 'application/json' }).end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Invalid Host header' }, id: null }),
      );
    });
  }
  return app;
}

interface ExpressModule {
  (): McpExpressApp;
  json(): unknown;
}

const SESSION_HEADER = 'mcp-session-id';
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '::1'];

/** The name of a `Host` header, without its port (and an IPv6 address without brackets). */
function hostnameOf(host: string | undefined): string {
  if (host === undefined) {
    return '';
  }
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return '';
  }
}

function pathOf(url: string | undefined): string {
  return new URL(url ?? '/', 'http://localhost').pathname;
}

/** The official constructor options: `capabilities` says what to declare before it is registered. */
export interface McpServerOptions extends ServerOptions {
  capabilities?: Partial<Record<DeclarableCapability | 'logging' | 'experimental', unknown>>;
}

/** What official handlers return (and anything else oxmcp turns into a result). */
type Returned = unknown;
type ToolCallback = (...args: never[]) => Returned;

/** An official tool or prompt callback: `(args, extra)` with a schema, `(extra)` without one. */
export type OfficialCallback<S> = S extends SchemaInput
  ? (args: Infer<S, 'input'>, extra: RequestHandlerExtra) => Returned
  : (extra: RequestHandlerExtra) => Returned;

/** The capabilities `declare` takes, of those an official server names. */
const DECLARABLE: readonly DeclarableCapability[] = ['tools', 'resources', 'prompts', 'completions'];

/**
 * The official SDK's `McpServer`: `registerTool` / `registerResource` / `registerPrompt`
 * (and the older `tool` / `resource` / `prompt`), `connect`, `close`, the list-changed
 * notices, and `server` for asking the client. `oxmcp` is the underlying `Server`, for
 * what oxmcp adds (HTTP listening, mounting, tasks).
 */
export class McpServer {
  /** The oxmcp server that serves the registrations. */
  readonly oxmcp: Server;
  /** The low-level server of the official SDK: asks the client of the request in progress. */
  readonly server: LowLevelServer;
  readonly #current = new AsyncLocalStorage<Context>();
  #connected = false;

  constructor(serverInfo: Implementation, options: McpServerOptions = {}) {
    const { capabilities = {}, ...settings } = options;
    const declare = DECLARABLE.filter((name) => capabilities[name] !== undefined);
    this.oxmcp = new Server(serverInfo, { ...settings, declare: [...(settings.declare ?? []), ...declare] });
    this.server = new LowLevelServer(() => this.#current.getStore());
  }

  registerTool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<I, O>,
    cb: OfficialCallback<I>,
  ): RegisteredTool {
    const { inputSchema, outputSchema } = config;
    const validator = inputSchema === undefined ? undefined : validatorOf(inputSchema);
    // A failed check is the tool's error (`isError`), as in the official SDK.
    const check = checker(validator, (issues) => new Error(`Invalid arguments for tool ${name}: ${issues}`));
    const handler = this.#adapt(cb as (...args: unknown[]) => Returned, check);
    // Listed in the official SDK's dialect, so that clients see the same schemas; a raw
    // shape is listed from the zod object made for the check, not made again.
    const listed = {
      ...config,
      inputSchema: inputSchema === undefined ? undefined : toJsonSchema(validator ?? inputSchema, 'input', 'draft-7'),
      outputSchema: outputSchema === undefined ? undefined : toJsonSchema(outputSchema, 'output', 'draft-7'),
    };
    return this.oxmcp.registerTool(name, listed, handler as never);
  }

  registerResource(
    name: string,
    uriOrTemplate: string | ResourceTemplate,
    metadata: ResourceMetadata,
    cb: (...args: never[]) => Returned,
  ): RegisteredResource | RegisteredResourceTemplate {
    const handler = this.#adapt(cb as (...args: unknown[]) => Returned);
    return this.oxmcp.registerResource(name, uriOrTemplate as string, metadata, handler as never);
  }

  registerPrompt<A extends SchemaInput | undefined = undefined>(
    name: string,
    config: PromptConfig<A>,
    cb: OfficialCallback<A>,
  ): RegisteredPrompt {
    const check = checker(
      config.argsSchema === undefined ? undefined : validatorOf(config.argsSchema),
      (issues) => new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${name}: ${issues}`),
    );
    const handler = this.#adapt(cb as (...args: unknown[]) => Returned, check);
    return this.oxmcp.registerPrompt(name, config, handler as never);
  }

  /**
   * The older form: `tool(name, [description], [paramsSchema], [annotations], cb)`, where
   * an object of zod schemas (or `{}`) is the parameters and any other object the annotations.
   */
  tool(name: string, ...rest: unknown[]): RegisteredTool {
    const description = typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
    let inputSchema: SchemaInput | undefined;
    let annotations: ToolAnnotations | undefined;
    if (rest.length > 1 && isRawShape(rest[0])) {
      inputSchema = rest.shift() as SchemaInput;
      if (rest.length > 1 && isPlainObject(rest[0]) && !isRawShape(rest[0])) {
        annotations = rest.shift() as ToolAnnotations;
      }
    } else if (rest.length > 1 && isPlainObject(rest[0])) {
      annotations = rest.shift() as ToolAnnotations;
    }
    return this.registerTool<SchemaInput | undefined>(name, { description, inputSchema, annotations }, callbackOf(rest, 'tool', name) as never);
  }

  /** The older form: `resource(name, uriOrTemplate, [metadata], cb)`. */
  resource(name: string, uriOrTemplate: string | ResourceTemplate, ...rest: unknown[]): RegisteredResource | RegisteredResourceTemplate {
    const metadata = (isPlainObject(rest[0]) ? rest.shift() : {}) as ResourceMetadata;
    return this.registerResource(name, uriOrTemplate, metadata, callbackOf(rest, 'resource', name));
  }

  /** The older form: `prompt(name, [description], [argsSchema], cb)`. */
  prompt(name: string, ...rest: unknown[]): RegisteredPrompt {
    const description = typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
    const argsSchema = (rest.length > 1 ? rest.shift() : undefined) as SchemaInput | undefined;
    return this.registerPrompt<SchemaInput | undefined>(name, { description, argsSchema }, callbackOf(rest, 'prompt', name) as never);
  }

  /**
   * Serves over `transport`: a `StdioServerTransport` serves this process's stdin and
   * stdout until stdin closes; an HTTP transport serves the requests handed to its
   * `handleRequest`. Resolves once serving (as the official `connect` does). (Without the
   * official routing code, `mcpServer.oxmcp.listen({ transport: 'http' })`, `nodeHandler()`
   * or `fetch` serve every session from one endpoint.)
   */
  async connect(transport: StdioServerTransport | HttpTransport): Promise<void> {
    if (transport instanceof HttpTransport) {
      transport.attach(this.oxmcp);
      this.#connected = true;
      return;
    }
    if (!(transport instanceof StdioServerTransport)) {
      throw new McpError(
        -32603,
        "oxmcp's McpServer connects to a StdioServerTransport, a StreamableHTTPServerTransport or a WebStandardStreamableHTTPServerTransport",
        undefined,
        'unsupported',
      );
    }
    this.#connected = true;
    this.oxmcp.listen({ transport: 'stdio' }).then(
      () => (this.#connected = false),
      (error: unknown) => {
        this.#connected = false;
        console.error('oxmcp: serving stdio failed:', error);
      },
    );
  }

  /** Whether `connect` serves. */
  isConnected(): boolean {
    return this.#connected;
  }

  /** Stops serving. */
  async close(): Promise<void> {
    await this.oxmcp.close();
  }

  /** Tells clients the tool list changed (registering and removing tell them already). */
  sendToolListChanged(): void {
    this.oxmcp.notifyListChanged('tool');
  }

  /** Tells clients the resource list changed. */
  sendResourceListChanged(): void {
    this.oxmcp.notifyListChanged('resource');
  }

  /** Tells clients the prompt list changed. */
  sendPromptListChanged(): void {
    this.oxmcp.notifyListChanged('prompt');
  }

  /** A log message to the client of the request in progress. */
  async sendLoggingMessage(params: { level: LoggingLevel; data: unknown; logger?: string }): Promise<void> {
    await this.server.sendLoggingMessage(params);
  }

  /**
   * `cb` as oxmcp calls it: its last argument, the context, becomes the official `extra`;
   * with `check`, its first (the arguments) is read through the schema first.
   */
  #adapt(cb: (...args: unknown[]) => Returned, check?: Check): (...args: unknown[]) => Returned {
    return async (...args) => {
      const ctx = args.pop() as Context;
      if (check !== undefined) {
        args[0] = await check(args[0]);
      }
      return this.#current.run(ctx, () => cb(...args, extraOf(ctx)));
    };
  }
}

/**
 * The official low-level server's requests to the client, sent for the request in
 * progress (oxmcp asks the client from within a request, in both eras).
 */
export class LowLevelServer {
  constructor(private readonly current: () => Context | undefined) {}

  /** `sampling/createMessage`. */
  createMessage(params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    return this.#ctx('createMessage').sample(params);
  }

  /** `elicitation/create`. */
  elicitInput(params: ElicitInput): Promise<ElicitResult> {
    return this.#ctx('elicitInput').elicit(params);
  }

  /** `roots/list`. */
  listRoots(): Promise<ListRootsResult> {
    return this.#ctx('listRoots').listRoots();
  }

  /** `notifications/message`. */
  async sendLoggingMessage(params: { level: LoggingLevel; data: unknown; logger?: string }): Promise<void> {
    await this.#ctx('sendLoggingMessage').log(params.level, params.data, params.logger);
  }

  /** What the client of the request in progress can do. */
  getClientCapabilities(): ClientCapabilities | undefined {
    return this.current()?.clientCapabilities;
  }

  /** Who the client of the request in progress is. */
  getClientVersion(): Implementation | undefined {
    return this.current()?.clientInfo;
  }

  #ctx(what: string): Context {
    const ctx = this.current();
    if (ctx === undefined) {
      throw new McpError(-32603, `server.${what}() needs a request in progress: call it from a handler`, undefined, 'unsupported');
    }
    return ctx;
  }
}

/** Reads arguments through their schema, or throws. */
type Check = (args: unknown) => Promise<unknown>;

/**
 * The check of arguments by `validator` in JavaScript, as the official SDK makes it
 * before its handlers run: the core has validated them against the JSON Schema already,
 * and this applies what JSON Schema cannot say (zod's `.default()`, `.transform()`,
 * refinements). `undefined` without one (plain JSON Schema, which the core's check covers).
 */
function checker(validator: StandardSchemaLike | undefined, refused: (issues: string) => Error): Check | undefined {
  if (validator === undefined) {
    return undefined;
  }
  return async (args) => {
    const checked = await validate(validator, args ?? {});
    if ('issues' in checked) {
      throw refused(checked.issues.join('; '));
    }
    return checked.value;
  };
}

/** The official `extra` of a handler run with `ctx`. */
function extraOf(ctx: Context): RequestHandlerExtra {
  return {
    signal: ctx.signal,
    requestId: ctx.requestId ?? 0,
    sessionId: ctx.sessionId,
    _meta: ctx.meta,
    authInfo: ctx.accessToken === undefined ? undefined : authInfoOf(ctx.accessToken),
    ctx,
    async sendNotification({ method, params = {} }) {
      switch (method) {
        case 'notifications/progress':
          return ctx.progress(Number(params.progress), optionalNumber(params.total), optionalString(params.message));
        case 'notifications/message':
          return ctx.log(params.level as LoggingLevel, params.data, optionalString(params.logger));
        default:
          throw new McpError(-32603, `extra.sendNotification sends progress and log messages, not ${method}`, undefined, 'unsupported');
      }
    },
    async sendRequest({ method, params = {} }) {
      switch (method) {
        case 'sampling/createMessage':
          return ctx.sample(params as unknown as CreateMessageRequestParams);
        case 'elicitation/create':
          return ctx.elicit(params as unknown as ElicitInput);
        case 'roots/list':
          return ctx.listRoots();
        default:
          throw new McpError(-32603, `extra.sendRequest asks for sampling, elicitation or roots, not ${method}`, undefined, 'unsupported');
      }
    },
  };
}

function authInfoOf(token: AccessToken): AuthInfo {
  return {
    token: token.token,
    clientId: token.clientId ?? '',
    scopes: token.scopes,
    expiresAt: token.expiresAt ?? undefined,
    extra: token.claims,
  };
}

function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The official test for a parameters object: `{}`, or an object of zod schemas. */
function isRawShape(value: unknown): boolean {
  if (!isPlainObject(value) || '~standard' in value) {
    return false;
  }
  const fields = Object.values(value);
  return fields.length === 0 || fields.some((field) => typeof field === 'object' && field !== null && '~standard' in field);
}

/** The callback the older forms end with. */
function callbackOf(rest: unknown[], kind: string, name: string): ToolCallback {
  const [cb] = rest;
  if (rest.length !== 1 || typeof cb !== 'function') {
    throw new TypeError(`${kind} ${name}: the arguments end with the callback`);
  }
  return cb as ToolCallback;
}
