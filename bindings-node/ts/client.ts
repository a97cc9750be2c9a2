/**
 * `Client`: connects to an MCP server (a process over stdio, a Streamable HTTP endpoint,
 * or a `Server` in this process), settles the protocol era, and calls it. Server notifications are events.
 *
 * ```ts
 * import { Client } from 'oxmcp';
 *
 * const client = await Client.connectStdio({ command: 'node', args: ['server.js'] });
 * const { tools } = await client.listTools();
 * const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
 * await client.close();
 * ```
 */

import { EventEmitter } from 'node:events';

import { compact } from './compact';
import { fromNative, McpError, native } from './errors';
import {
  nativeModule,
  type CallSettings,
  type ClientConfig,
  type HttpSettings,
  type NativeClient,
  type NativeToolTask,
} from './native';
import { settle, type Outcome } from './outcome';
import type { OAuth } from './oauth';
import type { Server } from './server';
import type {
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  EraMode,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListRootsResult,
  ListToolsResult,
  LoggingLevel,
  Meta,
  ProgressNotificationParams,
  ReadResourceResult,
  ServerCapabilities,
  ServerNotification,
  Skill,
  Task,
} from './types';

/** Answers the server's requests. Each may be sync or async; a throw answers with an error. */
export interface ClientHandlers {
  /** Answers `sampling/createMessage`: run the model. */
  sampling?: (params: CreateMessageRequestParams) => CreateMessageResult | Promise<CreateMessageResult>;
  /** Answers `elicitation/create`: ask the user. */
  elicitation?: (params: ElicitRequestParams) => ElicitResult | Promise<ElicitResult>;
  /** Answers `roots/list`. */
  roots?: () => ListRootsResult | Promise<ListRootsResult>;
}

/** How a client presents itself and behaves. */
export interface ClientOptions extends ClientHandlers {
  /** The client's name (default `oxmcp-node`). */
  name?: string;
  /** The client's version (default `0.1.0`). */
  version?: string;
  /** `auto` (default: probe the 2026-07-28 era, fall back to the handshake), `legacy` or `modern`. */
  era?: EraMode;
  /** Default timeout of each request in milliseconds (default 60 000; `Infinity`: none). */
  timeout?: number;
  /** Declare support for tools in sampling requests. */
  samplingTools?: boolean;
  /** Answer URL-mode elicitation too. */
  elicitationUrl?: boolean;
  /** How many pages re-listing the tools (after a header mismatch) follows at most (default 100). */
  maxListPages?: number;
  /** How many of the server's requests are answered at once (default 16); more are refused at once. */
  maxServerRequests?: number;
  /** How many sampling requests one 2026-07-28 `input_required` round may ask for (default 8). */
  maxSamplingPerRound?: number;
  /** How many 2026-07-28 `input_required` rounds one request may take (default 8). */
  maxInputRounds?: number;
  /**
   * Keep a full listing while the server says it is fresh (its `ttlMs`, 2026-07-28) and has
   * not said the list changed (default `true`); `false` asks the server each time.
   */
  cacheLists?: boolean;
  /**
   * Declare the 2026-07-28 tasks extension (default `true`): a tool call the server answers
   * with a task is followed to its result (polled, its questions answered by the handlers,
   * cancelled with the call).
   */
  tasks?: boolean;
}

/** A server process to start. */
export interface StdioServerParameters extends ClientOptions {
  command: string;
  args?: string[];
  /** Environment variables on top of this process's. */
  env?: Record<string, string>;
  cwd?: string;
  /** The server's stderr: `inherit` (default) or `ignore`. */
  stderr?: 'inherit' | 'ignore';
  /** The largest line accepted from the server, in bytes (default 4 MiB); a larger one is dropped. */
  maxMessageSize?: number;
}

/** A Streamable HTTP endpoint's client settings. */
export interface HttpClientOptions extends ClientOptions {
  /** Headers sent with every HTTP request (the protocol's own headers take precedence). */
  headers?: Record<string, string>;
  /**
   * Called before every HTTP request; its token is sent as `Authorization: Bearer …`
   * (nothing when it gives none, or throws).
   */
  token?: () => string | undefined | Promise<string | undefined>;
  /** How long opening a connection may take, in milliseconds (default 10 000). */
  connectTimeout?: number;
  /**
   * How long one HTTP request may take until its JSON answer is complete (or an SSE
   * answer's headers arrive), in milliseconds (default: only `timeout` applies).
   */
  requestTimeout?: number;
  /** Fall back to the 2024-11-05 HTTP+SSE transport for old servers (default `true`). */
  legacySseFallback?: boolean;
  /** The largest message accepted from the server, in bytes (default 4 MiB); a larger answer fails its request. */
  maxMessageSize?: number;
  /**
   * How a broken SSE stream is reconnected: wait `initial` milliseconds (or the server's
   * `retry:`, up to `max`), doubling up to `max`, for at most `attempts` tries in a row
   * that bring no event (default 250 ms, 5 000 ms, 4).
   */
  reconnect?: { initial: number; max: number; attempts: number };
  /** Signs in to a protected server with OAuth (see `OAuth`). */
  auth?: OAuth;
  /**
   * The CA certificates (PEM) an https server's certificate must lead to, in place of the
   * platform's, as Node's `https` `ca` option (the file `NODE_EXTRA_CA_CERTS` names is
   * trusted besides the platform's roots, as by Node's own clients).
   */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /** `false` accepts any certificate, as Node's option: only for a server under test. */
  rejectUnauthorized?: boolean;
}

/** Per-request settings. */
export interface RequestOptions {
  /** Timeout in milliseconds (`Infinity`: none); overrides the client's. */
  timeout?: number;
  /** Cancels the request: the server is told, and the call rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Receives the request's progress notifications. */
  onprogress?: (progress: ProgressNotificationParams) => void;
  /** Restart the timeout whenever progress arrives. */
  resetTimeoutOnProgress?: boolean;
}

/** What a `subscriptions/listen` stream carries. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs. */
  resourceSubscriptions?: string[];
}

/** An open `subscriptions/listen` stream. */
export interface Subscription {
  /** What the server agreed to send: what was asked for, less what it does not offer. */
  readonly acknowledged: SubscriptionFilter;
  /** Ends the stream. */
  close(): void;
}

/** `tools/call` params. */
export interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Meta;
}

/** Events a client emits: `notification` for every server notification, and each one under its method name. */
export interface ClientEvents {
  notification: [ServerNotification];
  'notifications/tools/list_changed': [undefined];
  'notifications/prompts/list_changed': [undefined];
  'notifications/resources/list_changed': [undefined];
  'notifications/resources/updated': [{ uri: string }];
  'notifications/message': [{ level: LoggingLevel; logger?: string; data: unknown }];
  'notifications/progress': [ProgressNotificationParams];
}

/**
 * Routes what the native client reports to the handlers, progress callbacks and the
 * client's events. It holds the client only weakly, so that the native client's callback
 * into it makes no reference cycle.
 */
class ClientChannel {
  readonly progress = new Map<number, (progress: ProgressNotificationParams) => void>();
  #client: WeakRef<Client> | undefined;

  constructor(private readonly handlers: ClientHandlers & Pick<HttpClientOptions, 'token'>) {}

  attach(client: Client): void {
    this.#client = new WeakRef(client);
  }

  readonly receive = (kind: string, payload: unknown): Outcome | Promise<Outcome> | undefined => {
    const { sampling, elicitation, roots } = this.handlers;
    switch (kind) {
      case 'sampling':
        return settle(() => sampling?.(payload as CreateMessageRequestParams));
      case 'elicitation':
        return settle(() => elicitation?.(payload as ElicitRequestParams));
      case 'roots':
        return settle(() => roots?.());
      case 'token':
        return settle(() => this.handlers.token?.());
      case 'progress': {
        const { callId, progress } = payload as { callId: number; progress: ProgressNotificationParams };
        deliver(() => this.progress.get(callId)?.(progress));
        return undefined;
      }
      case 'notification': {
        const notification = payload as ServerNotification;
        const client = this.#client?.deref();
        deliver(() => {
          client?.emit('notification', notification);
          client?.emit(notification.method, notification.params ?? undefined);
        });
        return undefined;
      }
      default:
        return undefined;
    }
  };
}

/** Runs a user callback that must not throw into the native module. */
function deliver(callback: () => void): void {
  try {
    callback();
  } catch (error) {
    process.emitWarning(`an oxmcp client listener threw: ${String(error)}`);
  }
}

let nextCallId = 1;

/** A connection to an MCP server. */
export class Client extends EventEmitter<ClientEvents & Record<string, unknown[]>> {
  readonly #native: NativeClient;
  readonly #channel: ClientChannel;

  private constructor(nativeClient: NativeClient, channel: ClientChannel) {
    super();
    this.#native = nativeClient;
    this.#channel = channel;
    channel.attach(this);
  }

  /** Starts `command` and connects to it over its stdin and stdout. */
  static async connectStdio(parameters: StdioServerParameters): Promise<Client> {
    const { command, args, env, cwd, stderr, maxMessageSize } = parameters;
    const channel = new ClientChannel(parameters);
    const spawn = compact({ command, args, env, cwd, stderr, maxMessageSize });
    const connected = await native(nativeModule.connectStdio(spawn, clientConfig(parameters), channel.receive));
    return new Client(connected, channel);
  }

  /**
   * Connects to the Streamable HTTP endpoint at `url` (an old HTTP+SSE endpoint works
   * too). Nothing is sent until the era is settled: `auto` probes the 2026-07-28 era and
   * falls back to the legacy handshake.
   */
  static async connectHttp(url: string | URL, options: HttpClientOptions = {}): Promise<Client> {
    const { headers, token, connectTimeout, requestTimeout, legacySseFallback, maxMessageSize, reconnect, auth } =
      options;
    const { ca, rejectUnauthorized } = options;
    const channel = new ClientChannel(options);
    const http: HttpSettings = compact({
      headers,
      bearer: token !== undefined,
      connectTimeoutMs: connectTimeout,
      requestTimeoutMs: requestTimeout,
      legacySseFallback,
      maxMessageSize,
      reconnect: reconnect && { initialMs: reconnect.initial, maxMs: reconnect.max, attempts: reconnect.attempts },
      ca: ca === undefined ? undefined : (Array.isArray(ca) ? ca : [ca]).map(String),
      rejectUnauthorized,
    });
    const connect = auth ? auth.native.connectHttp.bind(auth.native) : nativeModule.connectHttp;
    const connected = await native(connect(String(url), http, clientConfig(options), channel.receive));
    return new Client(connected, channel);
  }

  /** Connects to `server` in this process (no process, no pipes). */
  static async connectInProcess(server: Server, options: ClientOptions = {}): Promise<Client> {
    const channel = new ClientChannel(options);
    const connected = await native(
      nativeModule.connectInProcess(server.native, clientConfig(options), channel.receive),
    );
    return new Client(connected, channel);
  }

  /** @internal The native client, for a server that proxies through it. */
  get native(): NativeClient {
    return this.#native;
  }

  /** The protocol version the connection settled on, such as `2025-11-25`. */
  get protocolVersion(): string {
    return this.#details().protocolVersion as string;
  }

  /** Who the server says it is (`getServerVersion()` in the official SDK). */
  getServerVersion(): Implementation | undefined {
    return (this.#details().serverInfo ?? undefined) as Implementation | undefined;
  }

  /** What the server can do. */
  getServerCapabilities(): ServerCapabilities {
    return this.#details().capabilities as ServerCapabilities;
  }

  /** The server's guidance for the model. */
  getInstructions(): string | undefined {
    return (this.#details().instructions ?? undefined) as string | undefined;
  }

  /** One page of tools. */
  async listTools(params: { cursor?: string } = {}): Promise<ListToolsResult> {
    return (await native(this.#native.listTools(params.cursor))) as ListToolsResult;
  }

  /** One page of resources. */
  async listResources(params: { cursor?: string } = {}): Promise<ListResourcesResult> {
    return (await native(this.#native.listResources(params.cursor))) as ListResourcesResult;
  }

  /** One page of resource templates. */
  async listResourceTemplates(params: { cursor?: string } = {}): Promise<ListResourceTemplatesResult> {
    return (await native(this.#native.listResourceTemplates(params.cursor))) as ListResourceTemplatesResult;
  }

  /** One page of prompts. */
  async listPrompts(params: { cursor?: string } = {}): Promise<ListPromptsResult> {
    return (await native(this.#native.listPrompts(params.cursor))) as ListPromptsResult;
  }

  /**
   * Calls a tool. A tool that failed resolves with `isError: true`; a request the server
   * refused rejects with an `McpError`.
   */
  async callTool(params: CallToolParams, options?: RequestOptions): Promise<CallToolResult> {
    if (params._meta !== undefined) {
      return (await this.#request('tools/call', { ...params }, options)) as CallToolResult;
    }
    return (await this.#call(
      (settings) => this.#native.callTool(params.name, params.arguments, settings),
      options,
    )) as CallToolResult;
  }

  /**
   * Calls a tool as a task, when the server runs it as one, and gives a `ToolTask` to poll,
   * wait for, read or cancel. In 2026-07-28 the server decides (for clients that declare the
   * tasks extension, as this one does unless `tasks: false`); in 2025-11-25 the call asks for
   * a task when the server runs tool calls as tasks. A server that answers in place gives a
   * `ToolTask` whose `id` is null and whose `result()` is that answer. `callTool` follows
   * tasks on its own: use it unless you want the handle.
   *
   * ```ts
   * const task = await client.callToolAsTask({ name: 'build', arguments: { target: 'release' } });
   * console.log((await task.status())?.status); // 'working'
   * const result = await task.result(); // waits for the end
   * ```
   */
  async callToolAsTask(params: { name: string; arguments?: Record<string, unknown> }): Promise<ToolTask> {
    return new ToolTask(await native(this.#native.callToolAsTask(params.name, params.arguments)));
  }

  /**
   * A handle on a task an earlier call made (of this connection, or of another one of the
   * same caller: say, before the app restarted).
   */
  toolTask(taskId: string): ToolTask {
    return new ToolTask(this.#native.toolTask(taskId));
  }

  /**
   * Sends a request of any method (an extension's, or one the typed methods do not
   * cover) and resolves to its result; a JSON-RPC error rejects with `McpError`.
   */
  async request(
    request: { method: string; params?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<Record<string, unknown>> {
    return (await this.#request(request.method, { ...request.params }, options)) as Record<string, unknown>;
  }

  /** Sends a notification of any method (an extension's, say). */
  async notification(notification: { method: string; params?: Record<string, unknown> }): Promise<void> {
    await native(this.#native.notify(notification.method, notification.params));
  }

  /**
   * Every skill the server offers (the skills extension), with the size and digest of each
   * of its files; no skill file is read. Rejects with kind `unsupported` when the server
   * does not offer skills.
   */
  async listSkills(): Promise<Skill[]> {
    return (await native(this.#native.listSkills())) as Skill[];
  }

  /**
   * The skill whose `SKILL.md` is at `uri` (`skills/get`), listed or not. Rejects with
   * kind `unsupported` when the server does not offer skills, and with the server's -32602
   * error for a URI that is not a skill's.
   */
  async getSkill(uri: string): Promise<Skill> {
    return (await native(this.#native.getSkill(uri))) as Skill;
  }

  /**
   * Loads `skill`: the text of its `SKILL.md`, once the bytes have the size and digest the
   * skill lists and the front matter matches, field by field. A mismatch rejects with kind
   * `verification`: do not use the skill. Its other files are read when needed, with
   * `readSkillFile`.
   */
  async loadSkill(skill: Skill): Promise<string> {
    return native(this.#native.loadSkill(skill));
  }

  /**
   * The bytes of file `uri` of `skill`, once they match what the skill lists for it; a file
   * it does not list, or a mismatch, rejects with kind `verification`.
   */
  async readSkillFile(skill: Skill, uri: string): Promise<Uint8Array> {
    return native(this.#native.readSkillFile(skill, uri));
  }

  /** Reads a resource. */
  async readResource(params: { uri: string; _meta?: Meta }, options?: RequestOptions): Promise<ReadResourceResult> {
    return (await this.#request('resources/read', { ...params }, options)) as ReadResourceResult;
  }

  /** Gets a prompt with its arguments. */
  async getPrompt(
    params: { name: string; arguments?: Record<string, string>; _meta?: Meta },
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    return (await this.#request('prompts/get', { ...params }, options)) as GetPromptResult;
  }

  /** Asks for completions of a prompt argument or template variable. */
  async complete(params: CompleteRequestParams, options?: RequestOptions): Promise<CompleteResult> {
    return (await this.#request('completion/complete', { ...params }, options)) as CompleteResult;
  }

  /** Checks the server answers. */
  async ping(): Promise<void> {
    await native(this.#native.ping());
  }

  /**
   * Tells the server the roots `roots` answers with changed, so that it asks again
   * (`notifications/roots/list_changed`, legacy era; a 2026-07-28 server asks for the
   * roots within each request, so nothing is sent).
   */
  async sendRootsListChanged(): Promise<void> {
    await native(this.#native.sendRootsListChanged());
  }

  /** Sets the lowest level of `notifications/message` to receive. */
  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    await native(this.#native.setLogLevel(level));
  }

  /** Asks for `notifications/resources/updated` about a resource. */
  async subscribeResource(params: { uri: string }): Promise<void> {
    await native(this.#native.subscribeResource(params.uri));
  }

  /** Stops updates about a resource. */
  async unsubscribeResource(params: { uri: string }): Promise<void> {
    await native(this.#native.unsubscribeResource(params.uri));
  }

  /**
   * Opens a `subscriptions/listen` stream (2026-07-28 era; the legacy era sends these
   * notifications unasked) for list changes and resource updates; they arrive as events
   * until the returned subscription is closed. Resolves once the server acknowledged it.
   */
  async listen(filter: SubscriptionFilter): Promise<Subscription> {
    const { id, acknowledged } = await native(this.#native.listen({ ...filter }));
    return { acknowledged: acknowledged as SubscriptionFilter, close: () => this.#native.unlisten(id) };
  }

  /** Closes the connection; a server process is shut down (stdin closed, then signals). */
  async close(): Promise<void> {
    await native(this.#native.close());
  }

  #details(): Record<string, unknown> {
    return this.#native.serverDetails();
  }

  #request(method: string, params: Record<string, unknown>, options: RequestOptions | undefined): Promise<unknown> {
    return this.#call((settings) => this.#native.request(method, params, settings), options);
  }

  /** Runs one native call with the timeout, progress and cancellation `options` ask for. */
  async #call(
    start: (settings: CallSettings | undefined) => Promise<unknown>,
    options?: RequestOptions,
  ): Promise<unknown> {
    if (options === undefined) {
      return native(start(undefined));
    }
    const { signal, onprogress } = options;
    signal?.throwIfAborted();
    const callId = nextCallId;
    nextCallId = (nextCallId % 0xffff_fffe) + 1; // a u32 for the native side
    const settings: CallSettings = compact({
      callId,
      timeoutMs: options.timeout,
      progress: onprogress !== undefined,
      resetTimeoutOnProgress: options.resetTimeoutOnProgress,
    });
    if (onprogress !== undefined) {
      this.#channel.progress.set(callId, onprogress);
    }
    const onAbort = (): void => this.#native.cancel(callId);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await start(settings);
    } catch (error) {
      const failure = fromNative(error);
      if (signal?.aborted && failure instanceof McpError && failure.kind === 'cancelled') {
        throw signal.reason;
      }
      throw failure;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#channel.progress.delete(callId);
    }
  }
}

function clientConfig(options: ClientOptions): ClientConfig {
  return compact({
    name: options.name ?? 'oxmcp-node',
    version: options.version ?? '0.1.0',
    era: options.era,
    timeoutMs: options.timeout,
    sampling: options.sampling !== undefined,
    samplingTools: options.samplingTools,
    elicitation: options.elicitation !== undefined,
    elicitationUrl: options.elicitationUrl,
    roots: options.roots !== undefined,
    maxListPages: options.maxListPages,
    maxServerRequests: options.maxServerRequests,
    maxSamplingPerRound: options.maxSamplingPerRound,
    maxInputRounds: options.maxInputRounds,
    cacheLists: options.cacheLists,
    tasks: options.tasks,
  }) as unknown as ClientConfig;
}

/**
 * A tool call the server runs as a task; see `Client.callToolAsTask`. What the task asks for
 * while it runs goes to the client's elicitation, sampling and roots handlers.
 */
export class ToolTask {
  readonly #native: NativeToolTask;

  /** @internal */
  constructor(nativeTask: NativeToolTask) {
    this.#native = nativeTask;
  }

  /** The task's id; null when the server answered the call in place. */
  get id(): string | null {
    return this.#native.id ?? null;
  }

  /** The task as the server shows it now; null when the call was answered in place. */
  async status(): Promise<Task | null> {
    return (await native(this.#native.status())) as Task | null;
  }

  /** Waits until the task ends, and gives it as it ended. */
  async wait(): Promise<Task | null> {
    return (await native(this.#native.wait())) as Task | null;
  }

  /**
   * What the tool returned, once the task ended (waiting for it). A task that failed rejects
   * with its `McpError`; one that was cancelled, with an `McpError` of kind `cancelled`.
   */
  async result(): Promise<CallToolResult> {
    return (await native(this.#native.result())) as CallToolResult;
  }

  /** Asks the server to stop the task; a task that ended stays as it ended. */
  async cancel(): Promise<void> {
    await native(this.#native.cancel());
  }
}
