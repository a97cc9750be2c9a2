/**
 * The official TypeScript SDK's low-level `Server` over oxmcp's `Server`, so that a server
 * written with request handlers runs on the oxmcp core with its imports changed:
 *
 * ```ts
 * import { CallToolRequestSchema, ListToolsRequestSchema, Server, StdioServerTransport } from 'oxmcp/sdk';
 *
 * const server = new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: {} } });
 * server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [echoTool] }));
 * server.setRequestHandler(CallToolRequestSchema, async (request) => ({
 *   content: [{ type: 'text', text: String(request.params.arguments?.text) }],
 * }));
 * await server.connect(new StdioServerTransport());
 * ```
 *
 * Lists, calls, prompts, reads and completions go to oxmcp's catalog and completer, the
 * subscriptions and log levels a server is told of to the core's hooks for them, other
 * methods to custom handlers: the core still speaks the protocol, in both eras. Handlers
 * get the official `extra` made from oxmcp's `Context`; `createMessage`, `elicitInput`,
 * `listRoots` and `sendLoggingMessage` ask the client of the request in progress.
 */

import { AsyncLocalStorage } from 'node:async_hooks';

import type { AccessToken } from './auth';
import type { Context, ElicitInput } from './context';
import { McpError } from './errors';
import { ExperimentalServerTasks, type CreateTaskResult, type StoredTask } from './experimental';
import { CATALOG_METHODS, Server, type Catalog, type DeclarableCapability, type ServerOptions } from './server';
import {
  HttpTransport,
  StdioServerTransport,
  isMessageTransport,
  overMessages,
  type MessageTransport,
} from './transports';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteRequestParams,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListRootsResult,
  ListToolsResult,
  LoggingLevel,
  Meta,
  ReadResourceResult,
} from './types';

/** What the official SDK calls the caller's token (`extra.authInfo`). */
export interface AuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  /** Seconds since the epoch. */
  expiresAt?: number;
  /** The resource the token was issued for (RFC 8707). */
  resource?: URL;
  extra?: Record<string, unknown>;
}

/** A notification or request as handlers send them through `extra`. */
export interface OutgoingMessage {
  method: string;
  params?: Record<string, unknown>;
}

/** What the official SDK tells a handler of the HTTP request that carried its request. */
export interface RequestInfo {
  /** Its headers, by lowercase name. */
  headers: Record<string, string>;
  /** The URL it was posted to. */
  url?: URL;
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
  /** The HTTP request that carried the request (its headers); absent over stdio. */
  requestInfo?: RequestInfo;
  /** `notifications/progress` and `notifications/message` about this request. */
  sendNotification(notification: OutgoingMessage): Promise<void>;
  /** `sampling/createMessage`, `elicitation/create` or `roots/list` to the client. */
  sendRequest(request: OutgoingMessage, resultSchema?: unknown, options?: unknown): Promise<unknown>;
  /** Ends the request's SSE stream while it goes on; the client resumes (`ctx.closeStream()`). */
  closeSSEStream: () => void;
  /** oxmcp's own context, for what the official SDK does not have. */
  ctx: Context;
}

/**
 * A message schema as `setRequestHandler` and `setNotificationHandler` read it: its
 * method in `shape.method.value`, as in the official SDK's zod schemas (which may be
 * passed) and in oxmcp's `ListToolsRequestSchema` and siblings.
 */
export interface MethodSchema<M extends string = string> {
  readonly shape: { readonly method: { readonly value: M } };
}

/** The params of a list request. */
export interface PaginatedRequestParams {
  cursor?: string;
  _meta?: Meta;
}

/** The params and result of each request a low-level server may handle. */
interface RequestTypes {
  'tools/list': [PaginatedRequestParams, ListToolsResult];
  /** A task-augmented call (`task`) of a server that keeps its own tasks answers with the task made. */
  'tools/call': [
    { name: string; arguments?: Record<string, unknown>; task?: { ttl?: number }; _meta?: Meta },
    CallToolResult | CreateTaskResult,
  ];
  'prompts/list': [PaginatedRequestParams, ListPromptsResult];
  'prompts/get': [{ name: string; arguments?: Record<string, string>; _meta?: Meta }, GetPromptResult];
  'resources/list': [PaginatedRequestParams, ListResourcesResult];
  'resources/templates/list': [PaginatedRequestParams, ListResourceTemplatesResult];
  'resources/read': [{ uri: string; _meta?: Meta }, ReadResourceResult];
  'resources/subscribe': [{ uri: string }, Record<string, unknown>];
  'resources/unsubscribe': [{ uri: string }, Record<string, unknown>];
  'logging/setLevel': [{ level: LoggingLevel }, Record<string, unknown>];
  'completion/complete': [CompleteRequestParams, CompleteResult];
  'tasks/get': [{ taskId: string }, StoredTask];
  'tasks/result': [{ taskId: string }, CallToolResult];
  'tasks/list': [PaginatedRequestParams, { tasks: StoredTask[]; nextCursor?: string }];
  'tasks/cancel': [{ taskId: string }, StoredTask];
}

/** The request a handler of `M` gets. */
export interface RequestOf<M extends string> {
  method: M;
  params: M extends keyof RequestTypes ? RequestTypes[M][0] : Record<string, unknown>;
}

/** What a handler of `M` returns. */
export type ResultOf<M extends string> = M extends keyof RequestTypes ? RequestTypes[M][1] : Record<string, unknown>;

/** An official request handler: the request and `extra` in, the result out. */
export type LowLevelRequestHandler<M extends string> = (
  request: RequestOf<M>,
  extra: RequestHandlerExtra,
) => ResultOf<M> | Promise<ResultOf<M>>;

/** An official notification handler. */
export type LowLevelNotificationHandler<M extends string> = (notification: {
  method: M;
  params?: Record<string, unknown>;
}) => void | Promise<void>;

/** The official constructor options: `capabilities` says what to declare before it is registered. */
export interface LowLevelServerOptions extends Omit<ServerOptions, 'taskStore'> {
  capabilities?: Partial<Record<DeclarableCapability | 'logging' | 'experimental' | 'tasks', unknown>>;
  /**
   * oxmcp's task store (a file, see `ServerOptions.taskStore`), or the official SDK's
   * (`InMemoryTaskStore`): oxmcp's core keeps the tasks of its task tools itself, and an
   * `McpServer`'s store holds them too while they run, under the core's ids.
   */
  taskStore?: string | object;
  /** The official SDK's queue of task messages; oxmcp's core sends them itself. */
  taskMessageQueue?: unknown;
}

/** Of the `tasks` capability declared, what says the server runs tool calls as tasks. */
interface TasksCapability {
  requests?: { tools?: { call?: unknown } };
}

/** The capabilities `declare` takes, of those an official server names. */
const DECLARABLE: readonly DeclarableCapability[] = ['tools', 'resources', 'prompts', 'completions'];

/** The catalog function serving each method. */
const CATALOG_KEYS = new Map(Object.entries(CATALOG_METHODS).map(([key, method]) => [method, key as keyof Catalog]));

/** Of the catalog's methods, the lists (their function gets only the cursor). */
const LISTS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/** Notifications the core acts on itself. */
const CORE_NOTIFICATIONS = new Set(['notifications/cancelled', 'notifications/progress']);

const INITIALIZED = 'notifications/initialized';

/**
 * The official SDK's low-level `Server`: `setRequestHandler(ListToolsRequestSchema, h)`
 * and the like, `connect`, the notifications to clients, and requests to the client of
 * the request in progress. `oxmcp` is the underlying `Server`.
 */
export class LowLevelServer {
  /** The oxmcp server that serves the handlers. */
  readonly oxmcp: Server;
  /** Called when `connect`'s transport stops serving (stdin closed, or `close()`). */
  onclose?: () => void;
  /** Told what failed while serving, where nothing else hears of it. */
  onerror?: (error: Error) => void;
  /** The official SDK's experimental APIs: `tasks.elicitInputStream` and `createMessageStream`. */
  readonly experimental: { readonly tasks: ExperimentalServerTasks } = { tasks: new ExperimentalServerTasks(this) };
  readonly #current = new AsyncLocalStorage<Context>();
  /** Whether it declared task-augmented calls: its `tools/call` handler then starts tasks it keeps. */
  readonly #keepsTasks: boolean;
  #transport: StdioServerTransport | HttpTransport | undefined;
  #oninitialized: (() => void | Promise<void>) | undefined;
  /** A handler set for `notifications/initialized`, which replaces `oninitialized`. */
  #initializedHandler: ((params: Record<string, unknown> | undefined) => void | Promise<void>) | undefined;
  /** The context of the session a legacy client's handshake opened, for asking it outside a request. */
  #session: Context | undefined;

  constructor(serverInfo: Implementation, options: LowLevelServerOptions = {}) {
    const { capabilities = {}, taskStore, taskMessageQueue: _queue, ...settings } = options;
    const declare = DECLARABLE.filter((name) => capabilities[name] !== undefined);
    this.#keepsTasks = (capabilities.tasks as TasksCapability | undefined)?.requests?.tools?.call !== undefined;
    this.oxmcp = new Server(serverInfo, {
      ...settings,
      taskStore: typeof taskStore === 'string' ? taskStore : undefined,
      declare: [...(settings.declare ?? []), ...declare],
    });
    const experimental = (capabilities.experimental ?? {}) as Record<string, Record<string, unknown>>;
    for (const [name, declared] of Object.entries(experimental)) {
      this.oxmcp.declareExperimental(name, declared);
    }
    this.#hearInitialized();
  }

  /**
   * Answers requests of the method `schema` names: `request` is `{ method, params }`,
   * the result what the handler returns. Lists go after what is registered, and calls,
   * prompts and reads serve what nothing registered has (a thrown error in a
   * `tools/call` handler is a tool error, `isError: true`). A handler of
   * `resources/subscribe`, `resources/unsubscribe` or `logging/setLevel` is told of
   * each request before the core acts on it (it keeps the subscriptions and log level;
   * a thrown error refuses the request). Other methods of the protocol are the core's.
   */
  setRequestHandler<S extends MethodSchema>(schema: S, handler: LowLevelRequestHandler<S['shape']['method']['value']>): void {
    const method = methodOf(schema);
    const serve = (params: unknown, ctx: Context): Promise<unknown> =>
      this.#current.run(ctx, async () => handler({ method, params } as never, extraOf(ctx)));
    const key = CATALOG_KEYS.get(method);
    if (key === undefined && method === 'completion/complete') {
      this.oxmcp.setCompleter(async (params, ctx) => ((await serve(params, ctx)) as CompleteResult | undefined)?.completion);
    } else if (key === undefined) {
      this.oxmcp.setRequestHandler(method, async (params, ctx) => (await serve(params ?? {}, ctx)) as Record<string, unknown>);
    } else if (LISTS.has(method)) {
      this.oxmcp.setCatalog({ [key]: (cursor: string | undefined, ctx: Context) => serve(cursor === undefined ? {} : { cursor }, ctx) });
    } else {
      const served = (params: Record<string, unknown>, ctx: Context): Promise<never> => serve(withMeta(params, ctx), ctx) as Promise<never>;
      const startsTasks = key === 'callTool' && this.#keepsTasks;
      this.oxmcp.setCatalog(startsTasks ? { callTool: served, startToolTask: served } : { [key]: served });
    }
  }

  /**
   * Acts on notifications of the method `schema` names: an extension's,
   * `notifications/roots/list_changed` (`listRoots()` in the handler asks for the new
   * roots) or `notifications/initialized` (which then no longer calls `oninitialized`, as
   * in the official SDK). The core acts on `cancelled` and `progress` itself.
   */
  setNotificationHandler<S extends MethodSchema>(schema: S, handler: LowLevelNotificationHandler<S['shape']['method']['value']>): void {
    const method = methodOf(schema);
    if (CORE_NOTIFICATIONS.has(method)) {
      throw new McpError(-32603, `oxmcp acts on ${method} itself; a handler cannot replace it`, undefined, 'unsupported');
    }
    if (method === INITIALIZED) {
      this.#initializedHandler = (params) => handler({ method, params } as never);
      return;
    }
    this.oxmcp.setNotificationHandler(method, (params, ctx) =>
      this.#current.run(ctx, async () => handler({ method, params } as never)),
    );
  }

  /**
   * Called when a legacy client has finished its handshake (`notifications/initialized`),
   * with the session's context: `getClientCapabilities()`, `getClientVersion()` and
   * `listRoots()` work in it. 2026-07-28 has no handshake.
   */
  get oninitialized(): (() => void | Promise<void>) | undefined {
    return this.#oninitialized;
  }

  set oninitialized(callback: (() => void | Promise<void>) | undefined) {
    this.#oninitialized = callback;
  }

  /**
   * Serves over `transport`: a `StdioServerTransport` serves this process's stdin and
   * stdout (or the streams it was given) until the input ends, telling its `onclose`; an
   * HTTP transport serves the requests handed to its `handleRequest`; a transport of the
   * official SDK's `Transport` shape (its `InMemoryTransport`) the messages it hands over,
   * as stdio is served. Resolves once serving (as the official `connect` does).
   */
  async connect(given: StdioServerTransport | HttpTransport | MessageTransport): Promise<void> {
    const transport = isMessageTransport(given) ? await overMessages(given) : given;
    if (transport instanceof HttpTransport) {
      transport.attach(this.oxmcp);
      this.#transport = transport;
      await transport.start();
      return;
    }
    if (!(transport instanceof StdioServerTransport)) {
      throw new McpError(
        -32603,
        "oxmcp's servers connect to a StdioServerTransport, a StreamableHTTPServerTransport, a WebStandardStreamableHTTPServerTransport, an SSEServerTransport or a Transport (start, send, close)",
        undefined,
        'unsupported',
      );
    }
    this.#transport = transport;
    transport.attach(() => this.close());
    this.oxmcp.listen({ transport: 'stdio', stdin: transport.stdin, stdout: transport.stdout }).then(
      () => this.#ended(),
      (failure: unknown) => {
        this.#ended();
        const error = failure instanceof Error ? failure : new Error(String(failure));
        transport.onerror?.(error);
        if (this.onerror === undefined) {
          console.error('oxmcp: serving stdio failed:', error);
        } else {
          this.onerror(error);
        }
      },
    );
  }

  /** The transport `connect` serves, while it serves. */
  get transport(): StdioServerTransport | HttpTransport | undefined {
    return this.#transport;
  }

  /** Stops serving. */
  async close(): Promise<void> {
    await this.oxmcp.close();
    this.#ended();
  }

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

  /**
   * What tells the client of the request in progress that the user completed the URL-mode
   * elicitation `elicitationId` (`notifications/elicitation/complete`): call it once they
   * have, after the request too. The client must have declared URL-mode elicitation.
   */
  createElicitationCompletionNotifier(elicitationId: string): () => Promise<void> {
    const ctx = this.#ctx('createElicitationCompletionNotifier');
    if (ctx.clientCapabilities.elicitation?.url === undefined) {
      throw new Error('Client does not support URL elicitation (required for notifications/elicitation/complete)');
    }
    return () => ctx.notifyElicitationComplete(elicitationId);
  }

  /** `notifications/message` to the client of the request in progress (`sessionId` is its session). */
  async sendLoggingMessage(params: { level: LoggingLevel; data: unknown; logger?: string }, _sessionId?: string): Promise<void> {
    await this.#ctx('sendLoggingMessage').log(params.level, params.data, params.logger);
  }

  /** Tells clients subscribed to `uri` that it changed. */
  async sendResourceUpdated(params: { uri: string }): Promise<void> {
    this.oxmcp.notifyResourceUpdated(params.uri);
  }

  /** Tells clients the resource list changed. */
  async sendResourceListChanged(): Promise<void> {
    this.oxmcp.notifyListChanged('resource');
  }

  /** Tells clients the tool list changed. */
  async sendToolListChanged(): Promise<void> {
    this.oxmcp.notifyListChanged('tool');
  }

  /** Tells clients the prompt list changed. */
  async sendPromptListChanged(): Promise<void> {
    this.oxmcp.notifyListChanged('prompt');
  }

  /**
   * Sends one of the notifications above by its method (`notifications/resources/updated`,
   * a list change, or `notifications/message` within a request).
   */
  async notification(notification: OutgoingMessage): Promise<void> {
    const { method, params = {} } = notification;
    const kind = LIST_CHANGES[method];
    if (kind !== undefined) {
      this.oxmcp.notifyListChanged(kind);
    } else if (method === 'notifications/resources/updated') {
      this.oxmcp.notifyResourceUpdated(String(params.uri));
    } else if (method === 'notifications/message') {
      await this.sendLoggingMessage(params as { level: LoggingLevel; data: unknown });
    } else {
      throw new McpError(-32603, `server.notification() sends list changes, resource updates and log messages, not ${method}`, undefined, 'unsupported');
    }
  }

  /** What the client of the request in progress (else of the transport `connect` serves) can do. */
  getClientCapabilities(): ClientCapabilities | undefined {
    return this.#client()?.clientCapabilities;
  }

  /** Who the client of the request in progress (else of the transport `connect` serves) is. */
  getClientVersion(): Implementation | undefined {
    return this.#client()?.clientInfo;
  }

  /** @internal Runs `fn` as the handler of the request `ctx` is of (`McpServer`'s handlers). */
  within<T>(ctx: Context, fn: () => T): T {
    return this.#current.run(ctx, fn);
  }

  /**
   * Hears `notifications/initialized`: keeps the session's context, and calls
   * `oninitialized` or the handler set for it.
   */
  #hearInitialized(): void {
    this.oxmcp.setNotificationHandler(INITIALIZED, (params, ctx) => {
      this.#session = ctx;
      return this.#current.run(ctx, async () => {
        await (this.#initializedHandler === undefined ? this.#oninitialized?.() : this.#initializedHandler(params));
      });
    });
  }

  /**
   * The context of the request in progress; outside one, that of the session of the client
   * `connect`'s transport serves (the official server's one client), once it has finished
   * its handshake.
   */
  #client(): Context | undefined {
    return this.#current.getStore() ?? (this.#transport === undefined ? undefined : this.#session);
  }

  #ended(): void {
    const transport = this.#transport;
    if (transport !== undefined) {
      this.#transport = undefined;
      if (transport instanceof StdioServerTransport) {
        transport.onclose?.();
      }
      this.onclose?.();
    }
  }

  #ctx(what: string): Context {
    const ctx = this.#client();
    if (ctx === undefined) {
      throw new McpError(
        -32603,
        `server.${what}() needs a client: call it from a handler, or once a legacy client of the transport connect() serves has finished its handshake`,
        undefined,
        'unsupported',
      );
    }
    return ctx;
  }
}

/** The list-changed notifications, by the kind of list. */
const LIST_CHANGES: Record<string, 'tool' | 'resource' | 'prompt'> = {
  'notifications/tools/list_changed': 'tool',
  'notifications/resources/list_changed': 'resource',
  'notifications/prompts/list_changed': 'prompt',
};

/** The method a message schema names. */
function methodOf(schema: MethodSchema): string {
  const method: unknown = schema?.shape?.method?.value;
  if (typeof method !== 'string') {
    throw new TypeError('a request or notification schema names its method (shape.method.value), as ListToolsRequestSchema does');
  }
  return method;
}

/** A catalog request's params with the request's `_meta`, as the official handlers get them. */
function withMeta(params: Record<string, unknown>, ctx: Context): Record<string, unknown> {
  return ctx.meta === undefined ? params : { ...params, _meta: ctx.meta };
}

/** The official `requestInfo` of the HTTP request that carried `ctx`'s request. */
function requestInfoOf(ctx: Context): RequestInfo | undefined {
  const headers = ctx.httpHeaders;
  if (headers === undefined) {
    return undefined;
  }
  // Made when read: every official-style handler gets an `extra`, few read its URL.
  return {
    headers,
    get url() {
      return ctx.httpRequest?.url;
    },
  };
}

/** The official `extra` of a handler run with `ctx`. */
export function extraOf(ctx: Context): RequestHandlerExtra {
  return {
    signal: ctx.signal,
    requestId: ctx.requestId ?? 0,
    sessionId: ctx.sessionId,
    _meta: ctx.meta,
    authInfo: ctx.accessToken === undefined ? undefined : authInfoOf(ctx.accessToken),
    requestInfo: requestInfoOf(ctx),
    ctx,
    closeSSEStream: () => void ctx.closeStream(),
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
  const [resource] = token.audience;
  return {
    token: token.token,
    clientId: token.clientId ?? '',
    scopes: token.scopes,
    expiresAt: token.expiresAt ?? undefined,
    resource: resource !== undefined && URL.canParse(resource) ? new URL(resource) : undefined,
    extra: token.claims,
  };
}

function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
