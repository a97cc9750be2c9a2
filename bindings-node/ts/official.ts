/**
 * The official TypeScript SDK's `McpServer` over oxmcp's `Server`, so that a server
 * written for `@modelcontextprotocol/sdk` runs on the oxmcp core with its imports changed:
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
 * `sendNotification`, `sendRequest`) made from oxmcp's `Context`; `mcpServer.server` is
 * the low-level server (its request handlers, and requests to the client of the request
 * in progress). Everything else is oxmcp's: the protocol, both eras, validation.
 */

import type { Context } from './context';
import { ErrorCode, McpError } from './errors';
import { ExperimentalTasks, InMemoryTaskStore } from './experimental';
import { extraOf, LowLevelServer, type LowLevelServerOptions, type RequestHandlerExtra } from './lowlevel';
import { promptArguments, toJsonSchema, validate, validatorOf, type Infer, type SchemaInput, type StandardSchemaLike } from './schema';
import {
  ResourceTemplate,
  type PromptConfig,
  type RegisteredPrompt,
  type RegisteredResource,
  type RegisteredResourceTemplate,
  type RegisteredTool,
  type ResourceMetadata,
  type Server,
  type TemplateLister,
  type ToolConfig,
} from './server';
import type { HttpTransport, MessageTransport, StdioServerTransport } from './transports';
import type { Implementation, LoggingLevel, PromptArgument, ToolAnnotations } from './types';

/** The official constructor options: `capabilities` says what to declare before it is registered. */
export type McpServerOptions = LowLevelServerOptions;

/** What official handlers return (and anything else oxmcp turns into a result). */
type Returned = unknown;
type ToolCallback = (...args: never[]) => Returned;

/** An official tool or prompt callback: `(args, extra)` with a schema, `(extra)` without one. */
export type OfficialCallback<S> = S extends SchemaInput
  ? (args: Infer<S, 'input'>, extra: RequestHandlerExtra) => Returned
  : (extra: RequestHandlerExtra) => Returned;

/**
 * The official SDK's `McpServer`: `registerTool` / `registerResource` / `registerPrompt`
 * (and the older `tool` / `resource` / `prompt`), `connect`, `close`, the list-changed
 * notices, and `server` for asking the client. `oxmcp` is the underlying `Server`, for
 * what oxmcp adds (HTTP listening, mounting, tasks).
 */
export class McpServer {
  /** The oxmcp server that serves the registrations. */
  readonly oxmcp: Server;
  /** The low-level server of the official SDK: request handlers, and asking the client of the request in progress. */
  readonly server: LowLevelServer;
  /** The official SDK's experimental APIs: `tasks.registerToolTask`. */
  readonly experimental: { readonly tasks: ExperimentalTasks };

  constructor(serverInfo: Implementation, options: McpServerOptions = {}) {
    this.server = new LowLevelServer(serverInfo, options);
    this.oxmcp = this.server.oxmcp;
    const store = options.taskStore instanceof InMemoryTaskStore ? options.taskStore : undefined;
    const register = (name: string, config: ToolConfig<SchemaInput | undefined, undefined>, cb: (...args: unknown[]) => unknown) =>
      this.registerTool(name, config, cb as never);
    this.experimental = { tasks: new ExperimentalTasks(register, store) };
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
    const handler = this.#adapt(cb as (...args: unknown[]) => Returned, check, toolErrorOf);
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
    // A template's `list` gets the official `extra` too.
    const list = uriOrTemplate instanceof ResourceTemplate ? uriOrTemplate.options.list : undefined;
    const template =
      list === undefined
        ? uriOrTemplate
        : new ResourceTemplate((uriOrTemplate as ResourceTemplate).uriTemplate, {
            ...(uriOrTemplate as ResourceTemplate).options,
            list: this.#adapt(list as never) as TemplateLister,
          });
    return this.oxmcp.registerResource(name, template as string, metadata, handler as never);
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
    const listed = config.argsSchema === undefined ? undefined : officialPromptArguments(config.argsSchema);
    return this.oxmcp.registerPrompt(name, { ...config, arguments: listed }, handler as never);
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
   * Serves over `transport` (see `LowLevelServer.connect`). (Without the official routing
   * code, `mcpServer.oxmcp.listen({ transport: 'http' })`, `nodeHandler()` or `fetch`
   * serve every session from one endpoint.)
   */
  async connect(transport: StdioServerTransport | HttpTransport | MessageTransport): Promise<void> {
    await this.server.connect(transport);
  }

  /** Whether `connect` serves. */
  isConnected(): boolean {
    return this.server.transport !== undefined;
  }

  /** Stops serving. */
  async close(): Promise<void> {
    await this.server.close();
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
  async sendLoggingMessage(params: { level: LoggingLevel; data: unknown; logger?: string }, sessionId?: string): Promise<void> {
    await this.server.sendLoggingMessage(params, sessionId);
  }

  /**
   * `cb` as oxmcp calls it: its last argument, the context, becomes the official `extra`;
   * with `check`, its first (the arguments) is read through the schema first.
   */
  #adapt(cb: (...args: unknown[]) => Returned, check?: Check, caught?: (error: unknown) => Returned): (...args: unknown[]) => Returned {
    return async (...args) => {
      const ctx = args.pop() as Context;
      if (check !== undefined) {
        args[0] = await check(args[0]);
      }
      if (caught === undefined) {
        return this.server.within(ctx, () => cb(...args, extraOf(ctx)));
      }
      try {
        return await this.server.within(ctx, () => cb(...args, extraOf(ctx)));
      } catch (error) {
        return caught(error);
      }
    };
  }
}

/**
 * What a tool's thrown `McpError` answers, as the official `McpServer` makes it: a tool
 * error reading `MCP error <code>: <message>`, but for -32042 (URL elicitation required),
 * which stays the request's error, as does anything else thrown (a plain `Error` is a tool
 * error either way).
 */
function toolErrorOf(error: unknown): Returned {
  if (!(error instanceof McpError) || error.code === ErrorCode.UrlElicitationRequired) {
    throw error;
  }
  return { content: [{ type: 'text', text: `MCP error ${error.code}: ${error.message}` }], isError: true };
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A prompt's arguments as the official SDK lists them: each field's own description (not
 * one an inner schema carries, as `z.string().describe(...).optional()` has it), no titles.
 */
function officialPromptArguments(schema: SchemaInput): PromptArgument[] {
  const shape = (isRawShape(schema) ? schema : (schema as { shape?: unknown }).shape) as Record<string, { description?: unknown }> | undefined;
  return promptArguments(schema).map(({ name, required }) => {
    const description = shape?.[name]?.description;
    return typeof description === 'string' ? { name, description, required } : { name, required };
  });
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
