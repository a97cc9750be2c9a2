/**
 * `Server`: tools, resources and prompts written in TypeScript, served by the Rust core
 * in both protocol eras. One `Server` serves any number of connections.
 *
 * ```ts
 * import { Server } from 'oxmcp';
 * import * as z from 'zod';
 *
 * const server = new Server({ name: 'demo', version: '1.0.0' });
 * server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ result: a + b }));
 * await server.listen({ transport: 'stdio' });
 * ```
 */

import { authOptions, type Verifier } from './auth';
import type { Client } from './client';
import { compact } from './compact';
import { completersOf, type CompleteCallback } from './completable';
import { Context } from './context';
import { ErrorCode, McpError, native, nativeSync } from './errors';
import type { CreateTaskResult } from './experimental';
import { answerFetch, answerNode, type FetchHandler, type HeadWatcher, type NodeHandler } from './mounted';
import {
  nativeModule,
  type HttpOptions,
  type NativeHttpEndpoint,
  type NativeHttpListener,
  type NativeServer,
  type NativeContext,
} from './native';
import { failure, settle, type Outcome } from './outcome';
import { EMPTY_OBJECT, promptArguments, toJsonSchema, type Infer, type SchemaInput } from './schema';
import { serveStdio, type StdioStreams } from './stdio';
import type {
  Annotations,
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  Icon,
  Implementation,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  Meta,
  PromptArgument,
  PromptMessage,
  ReadResourceResult,
  ResourceContents,
  ToolAnnotations,
} from './types';

/** Server settings beyond its name and version. */
export interface ServerOptions {
  /** Guidance for the model on how to use the server. */
  instructions?: string;
  /** Splits list results into pages of at most this many items (default: one page). */
  pageSize?: number;
  /** The most requests one client may have in flight (default 256; past it a request gets an error at once). */
  maxInFlight?: number;
  /** The most resources one legacy client may subscribe to (default 1024). */
  maxSubscriptions?: number;
  /**
   * How long a client's requests in flight may finish once its input ended (stdin closed,
   * the peer gone), in milliseconds (default 5000); then they are cancelled.
   */
  endGrace?: number;
  /**
   * How long a request to a legacy client (elicitation, sampling, roots) waits for its answer,
   * in milliseconds (default 300000); then the handler gets an error.
   */
  clientRequestTimeout?: number;
  /** Send a generic message instead of what a handler's error says (default false; the detail is logged). */
  maskErrorDetails?: boolean;
  /**
   * Makes the server an OAuth resource server over HTTP: every request needs a token this
   * verifier accepts, meant for the server's URL; handlers read it from `ctx.accessToken`.
   * `listen` names the `resourceUrl`, `authorizationServers` and `requiredScopes`.
   */
  auth?: Verifier;
  /**
   * The SQLite file tools run as tasks are kept in (default: in memory): a restarted server
   * still gives the results of tasks that finished, and reports those it was running as failed.
   */
  taskStore?: string;
  /** How long a task is kept after it was created, in milliseconds (default 3600000). */
  taskTtl?: number;
  /** How often clients are asked to poll a task, in milliseconds (default 500). */
  taskPollInterval?: number;
  /** The most tasks kept at once (default 10000). */
  maxTasks?: number;
  /**
   * The store replicas behind a load balancer share (a `redis://` URL; default: the
   * `OXMCP_STORE` environment variable): tasks, list changes and resource updates, and the
   * key that seals `requestState` go through it.
   */
  store?: string;
  /**
   * A directory of Agent Skills to serve (the skills extension, SEP-2640): each directory
   * below it with a `SKILL.md` (YAML front matter with `name`, the directory's name, and
   * `description`) is a skill. Each `SKILL.md` is listed as a resource, every file is read
   * at `skill://<path>/<file>`, and clients list the skills with the digest and size of
   * each file (`client.listSkills()`).
   */
  skills?: string;
  /**
   * Capabilities to declare while nothing is registered for them. A server declares what it
   * has when a client asks (tools, resources or prompts once one is registered, completions
   * once a completion callback is); name here what it will add while clients are connected,
   * as a client of 2025-11-25 or earlier reads capabilities once, at its handshake.
   */
  declare?: DeclarableCapability[];
}

/** A capability a server may declare before it has anything registered for it. */
export type DeclarableCapability = 'tools' | 'resources' | 'prompts' | 'completions';

/** Serve this process's stdin and stdout, or the streams given. */
export interface StdioListenOptions extends StdioStreams {
  transport: 'stdio';
}

/** Serve Streamable HTTP (both eras on one endpoint); every setting has a default. */
export interface HttpListenOptions {
  transport: 'http';
  /** The address to bind (default `127.0.0.1`: local servers must not listen on every interface). */
  host?: string;
  /** The port (default 0: the system picks a free one; see the resolved `port`). */
  port?: number;
  /** The endpoint's path (default `/mcp`). */
  path?: string;
  /** `Origin` values allowed to call (default: pages served from loopback hosts). */
  allowedOrigins?: string[];
  /** `Host` names accepted (default: loopback names, against DNS rebinding); `[]` accepts any. */
  allowedHosts?: string[];
  /** Serve the legacy era without sessions (no `Mcp-Session-Id`, no GET stream). */
  stateless?: boolean;
  /** Answer every request with one JSON object, never an SSE stream. */
  jsonResponse?: boolean;
  /** How long an idle legacy session lives, in milliseconds (default 30 minutes). */
  sessionIdleTimeout?: number;
  /** How long a legacy session lives when its client sends nothing after `initialize`, in milliseconds (default 30 000). */
  newSessionTimeout?: number;
  /** The most sessions at once, legacy and `/sse` together (default 10 000; past it `initialize` gets 503). */
  maxSessions?: number;
  /** The largest request body accepted, in bytes (default 4 MiB; larger gets 413). */
  bodyLimit?: number;
  /**
   * How long a client may take to send a request's headers, in milliseconds (default
   * 10 000); a kept-alive connection idle this long is closed too.
   */
  headerReadTimeout?: number;
  /** How long a client may take to send a request's body, in milliseconds (default 30 000; past it 408). */
  bodyReadTimeout?: number;
  /** The most connections open at once (default 1024; more wait in the listen backlog). */
  maxConnections?: number;
  /**
   * The most requests in flight at once outside sessions: modern ones, and legacy ones
   * when `stateless` (default 1024; past it a request gets an error at once). Each
   * session's own bound is the server's `maxInFlight`.
   */
  maxInFlight?: number;
  /**
   * Bytes of SSE events kept for resumption, per session (default 8 MiB; past it the
   * oldest go first) and in all (default 256 MiB; past it events are sent but not kept).
   */
  eventBytesKept?: { perSession: number; total: number };
  /**
   * How long `close()` lets requests in flight finish before it cancels them, in
   * milliseconds (default 10 000).
   */
  shutdownTimeout?: number;
  /** Also serve the 2024-11-05 HTTP+SSE transport at `/sse` and `/messages`. */
  legacySse?: boolean;
  /** How many events each legacy SSE stream keeps for resumption (default 1024). */
  eventsKept?: number;
  /** The reconnection delay suggested to legacy SSE clients, in milliseconds (default 1000). */
  retry?: number;
  /** Origins allowed by CORS. */
  corsOrigins?: string[];
  /**
   * With `auth`: the endpoint's public URL, what tokens must be meant for (default: the
   * bound URL; its path must be the endpoint's).
   */
  resourceUrl?: string;
  /** With `auth`: the issuers clients are sent to for tokens (default: the verifier's). */
  authorizationServers?: string[];
  /** With `auth`: the scopes every request's token must grant (default none). */
  requiredScopes?: string[];
  /** With `auth`: scope hierarchies, e.g. `{ notes: ['notes:read', 'notes:write'] }`. */
  scopeImplies?: Record<string, string[]>;
  /**
   * With `auth`: list only the tools, resources and prompts the caller's scopes permit
   * (default off: everything is listed, and calling one without its scopes gets `403
   * insufficient_scope` naming them, so that the client can step up). Such lists are
   * marked `cacheScope: "private"`.
   */
  listOnlyPermitted?: boolean;
  /** With `auth`: DPoP proofs must carry the nonce the server hands out (default off). */
  dpopNonces?: boolean;
  /**
   * With `auth`: a token must name `resourceUrl` in its audience (default on, as the MCP
   * spec asks). Turn it off only for a verifier that checks the audience itself.
   */
  checkAudience?: boolean;
}

/** How `listen` serves. */
export type ListenOptions = StdioListenOptions | HttpListenOptions;

/**
 * The settings of the endpoint mounted in a web app (`fetchHandler`, `nodeHandler`): those of
 * `listen({ transport: 'http' })` but the listener's, which are the app's server's.
 */
export type HttpMountOptions = Omit<HttpListenOptions, 'transport' | 'host' | 'port' | 'headerReadTimeout' | 'maxConnections'>;

/** Where an HTTP listener is bound. */
export interface HttpAddress {
  /** The endpoint's URL, such as `http://127.0.0.1:8000/mcp`. */
  url: string;
  /** The bound address. */
  host: string;
  /** The bound port (the one the system chose, for port 0). */
  port: number;
}

/** A tool's description. */
export interface ToolConfig<I extends SchemaInput | undefined, O extends SchemaInput | undefined> {
  title?: string;
  description?: string;
  /** A zod raw shape, a zod object (any Standard JSON Schema), or an object JSON Schema. */
  inputSchema?: I;
  /** The schema of `structuredContent`; the core checks results against it. */
  outputSchema?: O;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Meta;
  /**
   * The scopes a caller's token must grant to call it, on a server with `auth` over HTTP
   * (a call without them gets `403 insufficient_scope`, from which clients step up).
   */
  scopes?: string[];
  /**
   * Whether it runs as a task: `optional` gives a task to poll (to a 2025-11-25 call that
   * asks for one, and to 2026-07-28 clients with the tasks extension) while the same handler
   * runs in the background, `required` also refuses other calls. Default `forbidden`.
   */
  task?: 'forbidden' | 'optional' | 'required';
  /**
   * The handler's questions come before the call becomes a task: answered in place, then the
   * call becomes a task where the handler calls `await ctx.beginTask()`.
   */
  asksBeforeTask?: boolean;
}

/**
 * What a tool handler may return: a `CallToolResult`, a string (text), content blocks
 * (`{ type: 'image', … }`), a `Uint8Array` (an embedded blob), an array of these, or any
 * other data (sent as its JSON text). With an `outputSchema` the value is also sent as
 * `structuredContent`. The rules are the core's, the same in every language.
 */
export type ToolReturn<O> =
  | CallToolResult
  | (O extends SchemaInput ? Infer<O, 'output'> : unknown);

/** A tool handler: `(args, ctx)` with an `inputSchema`, `(ctx)` without one. Sync or async. */
export type ToolHandler<I, O> = I extends SchemaInput
  ? (args: Infer<I, 'input'>, ctx: Context) => ToolReturn<O> | Promise<ToolReturn<O>>
  : (ctx: Context) => ToolReturn<O> | Promise<ToolReturn<O>>;

/** A resource's description. */
export interface ResourceMetadata {
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  size?: number;
  _meta?: Meta;
  /** The scopes a caller's token must grant to read it (as for tools). */
  scopes?: string[];
}

/**
 * What a resource handler may return: a string (text contents, with the definition's
 * MIME type), a `Uint8Array` (blob contents), `{ text }` / `{ blob }` (one contents item;
 * `blob` may be a `Uint8Array`), or a full `ReadResourceResult`.
 */
export type ResourceReturn =
  | string
  | Uint8Array
  | ReadResourceResult
  | Partial<ResourceContents>
  | { blob: Uint8Array; mimeType?: string };

type TemplateExpressions<T extends string> = T extends `${string}{${infer Expression}}${infer Rest}`
  ? Expression | TemplateExpressions<Rest>
  : never;
type VariableName<N extends string> = N extends `${infer V}*` ? V : N extends `${infer V}:${string}` ? V : N;
type ExpressionNames<E extends string> = E extends `${infer A},${infer B}`
  ? VariableName<A> | ExpressionNames<B>
  : VariableName<E>;
type OptionalNames<E> = E extends `${'?' | '&'}${infer Names}` ? ExpressionNames<Names> : never;
type RequiredNames<E> = E extends `${'?' | '&'}${string}`
  ? never
  : E extends `${'+' | '#' | '.' | '/' | ';'}${infer Names}`
    ? ExpressionNames<Names>
    : E extends string
      ? ExpressionNames<E>
      : never;

/** The variables of an RFC 6570 URI template (query variables may be missing). */
export type TemplateVariables<T extends string> = string extends T
  ? Record<string, string | undefined>
  : { [K in RequiredNames<TemplateExpressions<T>>]: string } & {
      [K in OptionalNames<TemplateExpressions<T>>]?: string;
    };

type HasVariables<T extends string> = string extends T
  ? false
  : [TemplateExpressions<T>] extends [never]
    ? false
    : true;

/** A static resource handler. */
export type StaticResourceHandler = (uri: URL, ctx: Context) => ResourceReturn | Promise<ResourceReturn>;

/** A resource template handler: it receives the matched variables. */
export type TemplateResourceHandler<T extends string> = (
  uri: URL,
  variables: TemplateVariables<T>,
  ctx: Context,
) => ResourceReturn | Promise<ResourceReturn>;

/** The handler `registerResource` expects for `uri`: a template's when it has variables. */
export type ResourceHandlerFor<T extends string> = HasVariables<T> extends true
  ? TemplateResourceHandler<T>
  : StaticResourceHandler;

/** A family of resources: an RFC 6570 URI template, with completions for its variables. */
export class ResourceTemplate<T extends string = string> {
  /**
   * @param uriTemplate such as `users://{id}/profile`
   * @param options `list`: lists the resources the template serves, which `resources/list`
   * gives after the registered ones, each with the template's metadata where it names none
   * of its own; `complete`: completion callbacks by variable name.
   */
  constructor(
    readonly uriTemplate: T,
    readonly options: { list?: TemplateLister; complete?: Record<string, CompleteCallback> } = {},
  ) {}
}

/** Lists the resources a template serves (all of them: `resources/list` gives them on its first page). */
export type TemplateLister = (ctx: Context) => ListResourcesResult | Promise<ListResourcesResult>;

/** A prompt's description. */
export interface PromptConfig<A extends SchemaInput | undefined> {
  title?: string;
  description?: string;
  /** A zod raw shape (string fields), or JSON Schema: becomes the prompt's arguments. */
  argsSchema?: A;
  /** The arguments as listed, where they should not be read from `argsSchema`. */
  arguments?: PromptArgument[];
  /**
   * Completion callbacks by argument name (or mark fields of `argsSchema` with
   * `completable()`).
   */
  complete?: Record<string, CompleteCallback>;
  icons?: Icon[];
  _meta?: Meta;
  /** The scopes a caller's token must grant to get it (as for tools). */
  scopes?: string[];
}

/** What a prompt handler may return: a string (one user message), messages, or a result. */
export type PromptReturn = string | PromptMessage[] | GetPromptResult;

/** A prompt handler: `(args, ctx)` with an `argsSchema`, `(ctx)` without one. */
export type PromptHandler<A> = A extends SchemaInput
  ? (args: Infer<A, 'input'>, ctx: Context) => PromptReturn | Promise<PromptReturn>
  : (ctx: Context) => PromptReturn | Promise<PromptReturn>;

/**
 * A registered tool, resource, template or prompt. Disabling removes it from the lists
 * (clients are told the list changed) and from service until it is enabled again; its
 * name stays taken meanwhile (the core's rule).
 */
export class Registration {
  #enabled = true;
  #removed = false;

  /** @internal */
  constructor(
    private readonly setEnabled: (enabled: boolean) => void,
    private readonly unregister: () => void,
  ) {}

  /** Whether clients see it. */
  get enabled(): boolean {
    return this.#enabled;
  }

  /** Shows it again. */
  enable(): void {
    this.#toggle(true);
  }

  /** Hides it from clients. */
  disable(): void {
    this.#toggle(false);
  }

  /** Removes it for good; its name may be registered again. */
  remove(): void {
    if (!this.#removed) {
      this.#removed = true;
      this.#enabled = false;
      this.unregister();
    }
  }

  #toggle(enabled: boolean): void {
    if (this.#enabled !== enabled && !this.#removed) {
      this.setEnabled(enabled);
      this.#enabled = enabled;
    }
  }
}

/** A registered tool. */
export type RegisteredTool = Registration;
/** A registered static resource. */
export type RegisteredResource = Registration;
/** A registered resource template. */
export type RegisteredResourceTemplate = Registration;
/** A registered prompt. */
export type RegisteredPrompt = Registration;

/** Runs one registered handler with the core's input for it. */
type Runner = (input: unknown, ctx: Context | undefined) => unknown;

/** What a registration is, as the native server names it. */
type DefinitionKind = Parameters<NativeServer['setEnabled']>[0];

/**
 * The handlers the native server calls, by id, and the runs in flight (for their
 * AbortSignals). It holds no reference to the native server, so the native server's
 * callbacks into it make no reference cycle.
 */
class HandlerTable {
  readonly #runners = new Map<number, { run: Runner; convert: (value: unknown) => unknown }>();
  readonly #runs = new Map<number, Context>();
  #nextId = 0;

  add(run: Runner, convert: (value: unknown) => unknown = (value) => value): number {
    const id = this.#nextId++;
    this.#runners.set(id, { run, convert });
    return id;
  }

  delete(id: number): void {
    this.#runners.delete(id);
  }

  readonly dispatch = (
    handlerId: number,
    input: unknown,
    nativeContext: NativeContext | null,
    callId: number,
  ): Outcome | Promise<Outcome> => {
    const runner = this.#runners.get(handlerId);
    if (runner === undefined) {
      return failure(new McpError(-32603, 'the handler was removed'));
    }
    if (nativeContext === null) {
      return settle(() => runner.run(input, undefined), runner.convert);
    }
    const ctx = new Context(nativeContext, callId);
    this.#runs.set(callId, ctx);
    const outcome = settle(() => runner.run(input, ctx), runner.convert);
    if (outcome instanceof Promise) {
      return outcome.then((settled) => {
        this.#runs.delete(callId);
        return settled;
      });
    }
    this.#runs.delete(callId);
    return outcome;
  };

  readonly cancel = (callId: number): void => {
    this.#runs.get(callId)?.cancel();
    this.#runs.delete(callId);
  };
}

/** An MCP server whose tools, resources and prompts are TypeScript functions. */
export class Server {
  readonly #native: NativeServer;
  readonly #handlers = new HandlerTable();
  readonly #listeners = new Set<NativeHttpListener>();
  /** The endpoints mounted in web apps, each made on its first request. */
  readonly #endpoints = new Set<Promise<NativeHttpEndpoint>>();
  #defaultFetch: FetchHandler | undefined;
  /** The handler id of each function of the catalog. */
  readonly #catalog = new Map<keyof Catalog, number>();
  /** The templates that list their resources, by URI template, with their metadata. */
  readonly #listingTemplates = new Map<string, { list: TemplateLister; metadata: object }>();
  /** The app's own resource lister, which the templates' resources follow. */
  #resourceLister: ResourceLister | undefined;
  #completer: number | undefined;
  #interceptor: number | undefined;
  #listening = false;
  #closed = false;

  /**
   * @param info the server's name and version (and optional title, icons…)
   * @param options instructions for the model, page size of list results, bounds on each client
   */
  constructor(info: Implementation, options: ServerOptions = {}) {
    const { endGrace, clientRequestTimeout, taskTtl, taskPollInterval, auth, ...settings } = options;
    const verifier =
      auth === undefined ? undefined : authOptions(auth, (verify) => this.#handlers.add((token) => verify(String(token))));
    this.#native = nativeSync(
      () =>
        new nativeModule.NativeServer(
          { ...info },
          compact({
            ...settings,
            endGraceMs: endGrace,
            clientRequestTimeoutMs: clientRequestTimeout,
            taskTtlMs: taskTtl,
            taskPollIntervalMs: taskPollInterval,
            auth: verifier,
          }),
          this.#handlers.dispatch,
          this.#handlers.cancel,
        ),
    );
  }

  /** @internal The native server, for in-process clients. */
  get native(): NativeServer {
    return this.#native;
  }

  /**
   * Registers a tool. Arguments are validated by the core against `inputSchema` before
   * the handler runs; a thrown error becomes a tool execution error (`isError: true`),
   * or the JSON-RPC error of a thrown `McpError`. The context is the handler's last
   * parameter; one that declares none for it (`({ a, b }) => a + b`) runs without one
   * being made, which makes each call cheaper.
   */
  registerTool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<I, O>,
    handler: ToolHandler<I, O>,
  ): RegisteredTool {
    const definition = compact({
      name,
      title: config.title,
      description: config.description,
      inputSchema: config.inputSchema === undefined ? { ...EMPTY_OBJECT } : toJsonSchema(config.inputSchema, 'input'),
      outputSchema: config.outputSchema === undefined ? undefined : toJsonSchema(config.outputSchema, 'output'),
      annotations: config.annotations,
      icons: config.icons,
      _meta: config._meta,
    });
    const call = handler as (...args: unknown[]) => unknown;
    const contextAt = config.inputSchema === undefined ? 0 : 1;
    const run: Runner = contextAt === 0 ? (_input, ctx) => call(ctx) : (input, ctx) => call(input, ctx);
    const id = this.#handlers.add(run, hostValue);
    const takesContext = readsArgument(call, contextAt);
    return this.#register(
      'tool',
      name,
      () => this.#native.addTool(definition, id, config.scopes, config.task, config.asksBeforeTask, takesContext),
      () => this.#native.removeTool(name),
      [id],
    );
  }

  /**
   * Registers a static resource (`uri`), or a family of resources (a URI template such
   * as `greeting://{name}`, or a `ResourceTemplate`).
   */
  registerResource<T extends string>(
    name: string,
    template: ResourceTemplate<T>,
    metadata: ResourceMetadata,
    handler: TemplateResourceHandler<T>,
  ): RegisteredResourceTemplate;
  registerResource<U extends string>(
    name: string,
    uri: U,
    metadata: ResourceMetadata,
    handler: ResourceHandlerFor<U>,
  ): RegisteredResource;
  registerResource(
    name: string,
    uriOrTemplate: string | ResourceTemplate,
    metadata: ResourceMetadata,
    handler: StaticResourceHandler | TemplateResourceHandler<string>,
  ): Registration {
    const call = handler as (...args: unknown[]) => unknown;
    const template =
      uriOrTemplate instanceof ResourceTemplate
        ? uriOrTemplate
        : nativeSync(() => nativeModule.uriTemplateVariables(uriOrTemplate)).length > 0
          ? new ResourceTemplate(uriOrTemplate)
          : undefined;
    if (template === undefined) {
      const uri = uriOrTemplate as string;
      const { scopes, ...described } = metadata;
      const definition = compact({ uri, name, ...described });
      const id = this.#handlers.add((input, ctx) => call(new URL((input as ResourceInput).uri), ctx), hostValue);
      return this.#register(
        'resource',
        uri,
        () => this.#native.addResource(definition, id, scopes),
        () => this.#native.removeResource(uri),
        [id],
      );
    }
    const { uriTemplate } = template;
    const { scopes, ...described } = metadata;
    const definition = compact({ uriTemplate, name, ...described });
    const id = this.#handlers.add((input, ctx) => {
      const { uri, variables } = input as ResourceInput;
      return call(new URL(uri), variables, ctx);
    }, hostValue);
    const completions = this.#completions(template.options.complete);
    const { list } = template.options;
    const registration = this.#register(
      'resourceTemplate',
      uriTemplate,
      () => this.#native.addResourceTemplate(definition, id, completions.ids, scopes),
      () => {
        this.#native.removeResourceTemplate(uriTemplate);
        this.#listingTemplates.delete(uriTemplate);
      },
      [id, ...Object.values(completions.ids)],
    );
    if (list !== undefined) {
      this.#listingTemplates.set(uriTemplate, { list, metadata: described });
      this.#serveResourceList();
    }
    return registration;
  }

  /** Registers a prompt; its arguments come from `argsSchema`. */
  registerPrompt<A extends SchemaInput | undefined = undefined>(
    name: string,
    config: PromptConfig<A>,
    handler: PromptHandler<A>,
  ): RegisteredPrompt {
    const definition = compact({
      name,
      title: config.title,
      description: config.description,
      arguments: config.arguments ?? (config.argsSchema === undefined ? undefined : promptArguments(config.argsSchema)),
      icons: config.icons,
      _meta: config._meta,
    });
    const call = handler as (...args: unknown[]) => unknown;
    const run: Runner =
      config.argsSchema === undefined ? (_input, ctx) => call(ctx) : (input, ctx) => call(input, ctx);
    const id = this.#handlers.add(run, hostValue);
    const completions = this.#completions({
      ...(config.argsSchema === undefined ? {} : completersOf(config.argsSchema)),
      ...config.complete,
    });
    return this.#register(
      'prompt',
      name,
      () => this.#native.addPrompt(definition, id, completions.ids, config.scopes),
      () => this.#native.removePrompt(name),
      [id, ...Object.values(completions.ids)],
    );
  }

  /**
   * Lists the resources not registered up front (the files of a directory, the rows of a
   * table), page by page: the lister gets the cursor (`undefined` for the first page; else
   * the `nextCursor` it gave last) and the context, and returns the page's resources and
   * the next page's cursor. `resources/list` gives the registered resources first; a
   * resource template usually reads what it lists.
   *
   * ```ts
   * server.setResourceLister(async (cursor) => {
   *   const { names, next } = await catalog.page(cursor);
   *   return { resources: names.map((name) => ({ uri: `file:///${name}`, name })), nextCursor: next };
   * });
   * ```
   */
  setResourceLister(lister: ResourceLister): void {
    this.setCatalog({ listResources: lister });
  }

  /**
   * Serves the Agent Skills under directory `dir` besides those the server has (as the
   * `skills` option does): their files are read now, and clients are told the resources
   * changed; a skill at a URI the server already serves keeps what it has. An invalid
   * skill, or a skill file's URI that another resource has, throws and adds nothing.
   */
  addSkills(dir: string): void {
    nativeSync(() => this.#native.addSkills(dir));
  }

  /**
   * Serves the skill at `path` below `skill://` (`'ops/deploy'`, its last segment the
   * skill's name) whose files are `files` (text or bytes by their path in the skill,
   * `SKILL.md` among them), as `addSkills` serves one read from a directory.
   */
  addSkill(path: string, files: Record<string, string | Uint8Array>): void {
    const given = Object.entries(files).map(([file, content]): [string, Buffer] => [
      file,
      typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content),
    ]);
    nativeSync(() => this.#native.addSkill(path, given));
  }

  /**
   * Lists and serves what is not registered up front, as the official SDK's low-level
   * server does with its request handlers (a proxy's tools, a database's rows): each list
   * function gets the cursor (`undefined` for the first page) and the context and returns
   * a page, given after the registered definitions; `callTool`, `getPrompt` and
   * `readResource` get the request's params and the context and serve the names and URIs
   * nothing registered has. Each function given replaces the one given before for its
   * method; the server offers tools, prompts or resources once its catalog has them.
   *
   * ```ts
   * server.setCatalog({
   *   listTools: async () => ({ tools: await remote.tools() }),
   *   callTool: async ({ name, arguments: args }) => remote.call(name, args),
   * });
   * ```
   */
  setCatalog(catalog: Catalog): void {
    if (catalog.listResources !== undefined) {
      this.#resourceLister = catalog.listResources;
      if (this.#listingTemplates.size > 0) {
        this.#serveResourceList();
        catalog = { ...catalog, listResources: undefined };
      }
    }
    this.#serveCatalog(catalog);
  }

  /**
   * Lists resources with the app's lister, if any, and on the first page the resources the
   * templates list, as the official SDK's `McpServer` does.
   */
  #serveResourceList(): void {
    const own = this.#resourceLister;
    const templates = this.#listingTemplates;
    this.#serveCatalog({
      listResources: async (cursor, ctx) => {
        const page = own === undefined ? { resources: [] } : await own(cursor, ctx);
        if (cursor !== undefined) {
          return page;
        }
        const listed = [];
        for (const { list, metadata } of [...templates.values()]) {
          for (const resource of (await list(ctx)).resources) {
            listed.push({ ...metadata, ...resource });
          }
        }
        return { ...page, resources: [...page.resources, ...listed] };
      },
    });
  }

  #serveCatalog(catalog: Catalog): void {
    for (const [key, fn] of Object.entries(catalog) as [keyof Catalog, CatalogFunction | undefined][]) {
      if (fn === undefined) {
        continue;
      }
      const id = this.#handlers.add((input, ctx) => fn((input ?? undefined) as never, ctx as Context));
      if (key === 'startToolTask') {
        this.#native.startToolTasksFromCatalog(id);
      } else {
        this.#native.serveFromCatalog(CATALOG_METHODS[key], id);
      }
      const previous = this.#catalog.get(key);
      this.#catalog.set(key, id);
      if (previous !== undefined) {
        this.#handlers.delete(previous);
      }
    }
  }

  /**
   * Completes the arguments that have no completion callback of their own, those of the
   * prompts and templates a catalog lists among them (as the official SDK's low-level
   * `completion/complete` handler does): `completer` gets the request's params (`ref`,
   * `argument`, `context`) and the context, and returns the completion, or `undefined` for
   * none. Replaces the completer set before.
   *
   * ```ts
   * server.setCompleter(({ ref, argument }) =>
   *   ref.type === 'ref/prompt' && argument.name === 'city' ? { values: ['Paris', 'Perth'] } : undefined,
   * );
   * ```
   */
  setCompleter(completer: Completer): void {
    const id = this.#handlers.add(async (input, ctx) => (await completer(input as CompleteRequestParams, ctx as Context)) ?? null);
    this.#native.setCompleter(id);
    if (this.#completer !== undefined) {
      this.#handlers.delete(this.#completer);
    }
    this.#completer = id;
  }

  /**
   * Runs `interceptor` around every request but the handshake from now on (replacing the
   * one before): it gets the request (its `method`, its `params` as sent, its `ctx`) and
   * `next`, which runs the method (with the params as sent, or others) and resolves to its
   * result, or rejects with the `McpError` it answered with; what the interceptor returns
   * (or throws) is the request's answer. Logging, timing, rate limits, filtering a list,
   * rewriting a call's arguments: what passes through unchanged is sent as the method gave
   * it.
   *
   * ```ts
   * server.intercept(async ({ method }, next) => {
   *   const started = performance.now();
   *   try {
   *     return await next();
   *   } finally {
   *     console.error(`${method} took ${performance.now() - started} ms`);
   *   }
   * });
   * ```
   */
  intercept(interceptor: Interceptor): void {
    const id = this.#handlers.add((input, ctx) => {
      const { method, params } = input as { method: string; params: Record<string, unknown> | null };
      const context = ctx as Context;
      return interceptor({ method, params: params ?? undefined, ctx: context }, (given) => context.runNext(given));
    });
    this.#native.setInterceptor(id);
    if (this.#interceptor !== undefined) {
      this.#handlers.delete(this.#interceptor);
    }
    this.#interceptor = id;
  }

  /**
   * Serves what `upstream`'s server offers too, after what is registered here and the
   * servers proxied before: its tools, prompts, resources and templates, listed page by page
   * and forwarded through that client, and its completions. With a `namespace`, its tool
   * and prompt names get `namespace_` in front and its URIs `namespace/` after their scheme
   * (`weather://today` is `weather://ns/today`), so that servers whose names clash can be
   * served side by side. A forwarded call's progress comes back as it arrives, its caller
   * cancelling cancels it, and the other server's errors come back as it answered them.
   * What a 2026-07-28 server asks (elicitation, sampling, roots) reaches the caller, in
   * either era; an earlier server asks `upstream`'s handlers. The client stays the caller's
   * to close.
   *
   * ```ts
   * const weather = await Client.connectHttp('http://127.0.0.1:9000/mcp');
   * server.proxy(weather, { namespace: 'weather' }); // `forecast` is `weather_forecast` here
   * ```
   */
  proxy(upstream: Client, options: { namespace?: string } = {}): void {
    this.#native.addProxy(upstream.native, options.namespace === undefined ? [] : [options.namespace]);
  }

  /**
   * Answers requests of `method`, one the protocol does not define (an extension's): the
   * handler gets the request's params (`undefined` when it has none) and the context, and
   * returns the result object. A method of the protocol cannot be taken over, but a
   * handler of `resources/subscribe`, `resources/unsubscribe` or `logging/setLevel` is told
   * of each such request before the core acts on it (its result is not used; a thrown
   * error refuses the request), for a server that keeps its own record of them.
   *
   * ```ts
   * server.setRequestHandler('weather/forecast', async (params) => ({ forecast: 'sunny' }));
   * ```
   */
  setRequestHandler(method: string, handler: CustomRequestHandler): void {
    const id = this.#handlers.add((input, ctx) => handler(paramsOf(input), ctx as Context));
    this.#addMethod(id, () => this.#native.addRequestHandler(method, id));
  }

  /**
   * Acts on notifications of `method`: an extension's, or
   * `notifications/roots/list_changed`, which a client of 2025-11-25 or older sends when
   * its roots change (`await ctx.listRoots()` asks for the new ones). The handler gets
   * the params and the session's context (`ctx.requestId` is undefined); a notification
   * has no answer, so what it throws is reported on stderr.
   */
  setNotificationHandler(method: string, handler: CustomNotificationHandler): void {
    const id = this.#handlers.add(async (input, ctx) => {
      try {
        await handler(paramsOf(input), ctx as Context);
      } catch (error) {
        console.error(`oxmcp: the handler of ${method} failed:`, error);
      }
    });
    this.#addMethod(id, () => this.#native.addNotificationHandler(method, id));
  }

  /**
   * Declares extension `id` in the capabilities 2026-07-28 clients see, with its settings
   * (`{}` for none); `setRequestHandler` serves its methods.
   */
  declareExtension(id: string, settings: Record<string, unknown> = {}): void {
    this.#native.declareExtension(id, settings);
  }

  /**
   * Declares `name` in `capabilities.experimental`, with its settings (`{}` for none), as
   * the official SDK's `capabilities: { experimental }` declares what is not in the
   * protocol yet.
   */
  declareExperimental(name: string, settings: Record<string, unknown> = {}): void {
    this.#native.declareExperimental(name, settings);
  }

  /** Tells clients subscribed to `uri` that it changed. */
  notifyResourceUpdated(uri: string): void {
    this.#native.notifyResourceUpdated(uri);
  }

  /**
   * Tells clients that a list changed, for what registrations do not show (a resource
   * lister's resources); registering, enabling, disabling and removing tell them already.
   */
  notifyListChanged(kind: 'tool' | 'resource' | 'prompt'): void {
    this.#native.notifyListChanged(kind);
  }

  /**
   * Serves Streamable HTTP: resolves once the listener is bound, with its address. The
   * listener keeps the process alive until `close()`. Any number of HTTP listeners and
   * a stdio connection may serve one server at once.
   */
  listen(options: HttpListenOptions): Promise<HttpAddress>;
  /**
   * Serves stdio until stdin closes (then nothing of the server keeps the process
   * alive). While serving on stdio, stdout belongs to the protocol: log to stderr.
   * `options.stdin` and `options.stdout` serve other streams (a socket, a child's pipes).
   */
  listen(options?: StdioListenOptions): Promise<void>;
  /** Serves over the transport `options` name. */
  listen(options: ListenOptions): Promise<HttpAddress | void>;
  async listen(options: ListenOptions = { transport: 'stdio' }): Promise<HttpAddress | void> {
    if (options.transport === 'http') {
      return this.#listenHttp(options);
    }
    if (this.#listening) {
      throw new McpError(-32603, 'the server already listens on stdio', undefined, 'unsupported');
    }
    this.#listening = true;
    try {
      await serveStdio(this.#native, options);
    } finally {
      this.#listening = false;
    }
  }

  /**
   * The Streamable HTTP endpoint as a web-standard handler, for Hono (`app.mount('/',
   * server.fetch)`), Next.js route handlers, Bun and Deno: the behaviour of `listen({
   * transport: 'http' })` (both eras, sessions, SSE, the Origin/Host checks, authorization)
   * with the default settings, at `/mcp` of the request's URL. Bound: pass it as it is.
   */
  readonly fetch = (request: Request): Promise<Response> => (this.#defaultFetch ??= this.fetchHandler())(request);

  /** {@link fetch} with settings of its own, such as `path` or `stateless`. */
  fetchHandler(options: HttpMountOptions = {}): FetchHandler {
    const endpoint = this.#mount(options);
    return async (request) => answerFetch(await endpoint(), request);
  }

  /**
   * The Streamable HTTP endpoint as a `(req, res, next)` handler, for Express
   * (`app.use(server.nodeHandler())`), Fastify's raw requests and `http.createServer`; the
   * path is matched against `req.url` (which Express strips of the mount path). A request
   * the endpoint does not serve goes to `next` when there is one. A body an Express parser
   * already read (`express.json()`) is taken from `req.body`.
   */
  nodeHandler(options: HttpMountOptions = {}): NodeHandler {
    return this.watchedNodeHandler(options);
  }

  /** @internal {@link nodeHandler}, with `onHead` shown each answer's head (the official transport's port reads session ids there). */
  watchedNodeHandler(options: HttpMountOptions, onHead?: HeadWatcher): NodeHandler {
    const endpoint = this.#mount(options);
    return async (req, res, next) => answerNode(await endpoint(), req, res, next, onHead);
  }

  /** @internal The endpoint `options` describe, made on first use (the official SSE transport's port opens its sessions there). */
  mountedEndpoint(options: HttpMountOptions): () => Promise<NativeHttpEndpoint> {
    return this.#mount(options);
  }

  /**
   * Stops every connection, HTTP listener and mounted endpoint for good; a stdio `listen()`
   * resolves. Each HTTP listener and endpoint ends its streams that only wait for events,
   * lets requests in flight finish until its `shutdownTimeout`, then cancels them (and a
   * listener closes every connection); this resolves once all of that is done.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#native.close();
    const listeners = [...this.#listeners];
    const endpoints = [...this.#endpoints];
    this.#listeners.clear();
    this.#endpoints.clear();
    await Promise.all([
      ...listeners.map((listener) => native(listener.close())),
      ...endpoints.map(async (endpoint) => (await endpoint).shutdown()),
    ]);
  }

  /** The endpoint `options` describe, made on first use (and never once the server is closed). */
  #mount(options: HttpMountOptions): () => Promise<NativeHttpEndpoint> {
    let made: Promise<NativeHttpEndpoint> | undefined;
    return () => {
      if (this.#closed) {
        return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'the server is closed', undefined, 'closed'));
      }
      if (made === undefined) {
        made = native(this.#native.httpEndpoint(nativeHttpOptions(options)));
        this.#endpoints.add(made);
      }
      return made;
    };
  }

  async #listenHttp(options: HttpListenOptions): Promise<HttpAddress> {
    const { transport: _transport, ...settings } = options;
    const listener = await native(this.#native.bindHttp(nativeHttpOptions(settings)));
    if (this.#closed) {
      await native(listener.close());
      throw new McpError(ErrorCode.ConnectionClosed, 'the server is closed', undefined, 'closed');
    }
    this.#listeners.add(listener);
    // Pending until the listener closes: keeps the process alive meanwhile.
    void listener.wait();
    return { url: listener.url, host: listener.host, port: listener.port };
  }

  /**
   * Adds a definition of `kind` under `key` with `add` (the core refuses a key that is
   * taken, by an enabled or disabled registration); `ids` are its handlers.
   */
  #register(kind: DefinitionKind, key: string, add: () => void, remove: () => void, ids: number[]): Registration {
    const forget = (): void => ids.forEach((id) => this.#handlers.delete(id));
    try {
      nativeSync(add);
    } catch (error) {
      forget();
      throw error;
    }
    return new Registration(
      (enabled) => this.#native.setEnabled(kind, key, enabled),
      () => {
        remove();
        forget();
      },
    );
  }

  #addMethod(id: number, add: () => void): void {
    try {
      nativeSync(add);
    } catch (error) {
      this.#handlers.delete(id);
      throw error;
    }
  }

  #completions(callbacks: Record<string, CompleteCallback> | undefined): { ids: Record<string, number> } {
    const ids: Record<string, number> = {};
    for (const [name, callback] of Object.entries(callbacks ?? {})) {
      ids[name] = this.#handlers.add((input) => {
        const { value, context } = input as { value: string; context: Record<string, string> };
        return callback(value, { arguments: context });
      });
    }
    return { ids };
  }
}

/** Lists resources not registered up front: a cursor in, a page of resources out. */
export type ResourceLister = CatalogLister<ListResourcesResult>;

/** Lists one kind of definition page by page: a cursor in (`undefined` first), a page out. */
export type CatalogLister<Page> = (cursor: string | undefined, ctx: Context) => Page | Promise<Page>;

/** Serves one request of the catalog: its params in, its result out. */
export type CatalogServer<Params, Result> = (params: Params, ctx: Context) => Result | Promise<Result>;

/** What a server lists and serves beyond what is registered (see {@link Server.setCatalog}). */
export interface Catalog {
  listTools?: CatalogLister<ListToolsResult>;
  callTool?: CatalogServer<{ name: string; arguments: Record<string, unknown> }, CallToolResult>;
  listPrompts?: CatalogLister<ListPromptsResult>;
  getPrompt?: CatalogServer<{ name: string; arguments: Record<string, string> }, GetPromptResult>;
  listResources?: CatalogLister<ListResourcesResult>;
  listResourceTemplates?: CatalogLister<ListResourceTemplatesResult>;
  readResource?: CatalogServer<{ uri: string }, ReadResourceResult>;
  /**
   * Starts a tool `callTool` serves as a task the server keeps itself, for a 2025-11-25
   * call that asks for one (`task`): returns the task made, which request handlers of
   * `tasks/get` and `tasks/result` (`setRequestHandler`) then answer for. The server
   * declares `tasks.requests.tools.call` (and `list`, `cancel` where handlers answer them),
   * as long as no tool registered here runs as a task.
   */
  startToolTask?: CatalogServer<{ name: string; arguments: Record<string, unknown>; task: { ttl?: number } }, CreateTaskResult>;
}

/** Any function of a {@link Catalog}. */
type CatalogFunction = (input: never, ctx: Context) => unknown;

/** The method each function of a {@link Catalog} serves. */
export const CATALOG_METHODS: Record<Exclude<keyof Catalog, 'startToolTask'>, string> = {
  listTools: 'tools/list',
  callTool: 'tools/call',
  listPrompts: 'prompts/list',
  getPrompt: 'prompts/get',
  listResources: 'resources/list',
  listResourceTemplates: 'resources/templates/list',
  readResource: 'resources/read',
};

/** Completes what has no completion callback of its own (see {@link Server.setCompleter}). */
export type Completer = (
  params: CompleteRequestParams,
  ctx: Context,
) => CompleteResult['completion'] | undefined | Promise<CompleteResult['completion'] | undefined>;

/** A custom request's handler: the params and the context in, the result object out. */
export type CustomRequestHandler = (
  params: Record<string, unknown> | undefined,
  ctx: Context,
) => Record<string, unknown> | void | Promise<Record<string, unknown> | void>;

/** A request an interceptor sees: its method, its params as sent (`_meta` too), its context. */
export interface InterceptedRequest {
  method: string;
  params: Record<string, unknown> | undefined;
  ctx: Context;
}

/**
 * Runs an intercepted request's method, with the params as sent or `params`: its result,
 * or a rejection with the `McpError` it answered with.
 */
export type NextMethod = (params?: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** What runs around every request a server serves (`Server.intercept`). */
export type Interceptor = (
  request: InterceptedRequest,
  next: NextMethod,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A notification's handler: the params and the session's context. */
export type CustomNotificationHandler = (
  params: Record<string, unknown> | undefined,
  ctx: Context,
) => void | Promise<void>;

/** A custom method's params as the core hands them (null when the message had none). */
/**
 * Whether `fn` may read its argument at `index`: `fn.length` counts the parameters it
 * declares before the first with a default or the rest one, so one that declares none may
 * read any (`...args`). A tool handler that cannot read its context is run without one.
 */
function readsArgument(fn: (...args: never[]) => unknown, index: number): boolean {
  return fn.length === 0 || fn.length > index;
}

function paramsOf(input: unknown): Record<string, unknown> | undefined {
  return (input ?? undefined) as Record<string, unknown> | undefined;
}

/** What the core hands a resource handler. */
interface ResourceInput {
  uri: string;
  variables: Record<string, string>;
}

/**
 * A handler's value with its bytes made JSON: a `Uint8Array` (alone or in an array) is
 * marked for the core, which turns it into a blob; a `blob` given as bytes is base64.
 * A value that contains itself or nests too deep cannot be sent: it throws (the handler's
 * error result says why).
 */
function hostValue(value: unknown): unknown {
  checkShape(value, []);
  return marked(value);
}

/**
 * The deepest nesting of arrays and objects a handler's value may have: serde_json's limit
 * when it parses JSON, so that what is sent can be read back (the same in every binding).
 */
const MAX_DEPTH = 128;

/**
 * Throws when `value`, inside `ancestors` (outermost first), contains itself or nests
 * deeper than `MAX_DEPTH`.
 */
function checkShape(value: unknown, ancestors: object[]): void {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) {
    return;
  }
  if (ancestors.includes(value)) {
    throw new Error('the handler returned what cannot be sent: a value that contains itself');
  }
  if (ancestors.length === MAX_DEPTH) {
    throw new Error(`the handler returned what cannot be sent: a value nested more than ${MAX_DEPTH} levels deep`);
  }
  ancestors.push(value);
  if (Array.isArray(value)) {
    for (const item of value) {
      checkShape(item, ancestors);
    }
  } else {
    // Every enumerable member, inherited ones too, as the native module reads them.
    for (const key in value) {
      checkShape((value as Record<string, unknown>)[key], ancestors);
    }
  }
  ancestors.pop();
}

/** `hostValue` of a value known to have a shape that can be sent. */
function marked(value: unknown): unknown {
  if (value instanceof Uint8Array) {
    return { [BYTES_KEY]: base64(value) };
  }
  if (Array.isArray(value)) {
    return value.map(marked);
  }
  if (typeof value === 'object' && value !== null && (value as { blob?: unknown }).blob instanceof Uint8Array) {
    const item = value as { blob: Uint8Array };
    return { ...item, blob: base64(item.blob) };
  }
  return value;
}

/** The marker of bytes the native module reads (`bindings-node/src/convert.rs`). */
const BYTES_KEY = '$oxmcp.bytes';

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The native settings of an HTTP endpoint: durations in milliseconds under their native names. */
function nativeHttpOptions(options: Omit<HttpListenOptions, 'transport'>): HttpOptions {
  const { sessionIdleTimeout, newSessionTimeout, headerReadTimeout, bodyReadTimeout, shutdownTimeout, retry, ...settings } =
    options;
  return compact({
    ...settings,
    sessionIdleTimeoutMs: sessionIdleTimeout,
    newSessionTimeoutMs: newSessionTimeout,
    headerReadTimeoutMs: headerReadTimeout,
    bodyReadTimeoutMs: bodyReadTimeout,
    shutdownTimeoutMs: shutdownTimeout,
    retryMs: retry,
  });
}
