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

import type { AccessToken } from './auth';
import type { Context, ElicitInput } from './context';
import { McpError } from './errors';
import { toJsonSchema, type Infer, type SchemaInput } from './schema';
import {
  Server,
  type ResourceTemplate,
  type DeclarableCapability,
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
    const handler = this.#adapt(cb as (...args: unknown[]) => Returned);
    // Listed in the official SDK's dialect, so that clients see the same schemas.
    const { inputSchema, outputSchema } = config;
    const listed = {
      ...config,
      inputSchema: inputSchema === undefined ? undefined : toJsonSchema(inputSchema, 'input', 'draft-7'),
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
    const handler = this.#adapt(cb as (...args: unknown[]) => Returned);
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
   * stdout until stdin closes. Resolves once serving (as the official `connect` does).
   * For HTTP, serve `mcpServer.oxmcp` with `listen({ transport: 'http' })`, `nodeHandler()`
   * or `fetch`: one endpoint for every session.
   */
  async connect(transport: StdioServerTransport): Promise<void> {
    if (!(transport instanceof StdioServerTransport)) {
      throw new McpError(
        -32603,
        "oxmcp's McpServer connects to a StdioServerTransport; for HTTP use mcpServer.oxmcp.listen({ transport: 'http' }), nodeHandler() or fetch",
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

  /** `cb` as oxmcp calls it: its last argument, the context, becomes the official `extra`. */
  #adapt(cb: (...args: unknown[]) => Returned): (...args: unknown[]) => Returned {
    return (...args) => {
      const ctx = args.pop() as Context;
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

/** The official `extra` of a handler run with `ctx`. */
function extraOf(ctx: Context): RequestHandlerExtra {
  return {
    signal: ctx.signal,
    requestId: ctx.requestId ?? 0,
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
