/**
 * `Context`: what a server handler knows about the request it serves, and how it talks
 * back to the client. The same in both protocol eras: the core translates.
 */

import type { AccessToken } from './auth';
import { native } from './errors';
import type { NativeContext } from './native';
import { toJsonSchema, type SchemaInput } from './schema';
import type {
  CallToolResult,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Era,
  GetPromptResult,
  Implementation,
  InputResponses,
  ListRootsResult,
  LoggingLevel,
  Meta,
  ReadResourceResult,
} from './types';

/** Form elicitation params whose `requestedSchema` may also be a zod object or shape. */
export type ElicitInput =
  | ElicitRequestParams
  | { mode?: 'form'; message: string; requestedSchema: SchemaInput; _meta?: Meta };

/** The HTTP POST that carried a request, as its handler reads it (`ctx.httpRequest`). */
export interface HttpRequestInfo {
  /** Its headers, by lowercase name. */
  headers: Record<string, string>;
  /** The URL it was posted to, as its `Host` header names the server (`http:` whatever a proxy in front says). */
  url: URL;
  /** The address it came from, when the server knows it (the client's, or a proxy's). */
  remoteAddress?: string;
  /** The port it came from, beside `remoteAddress`. */
  remotePort?: number;
}

/** The per-request context every server handler receives as its last argument. */
export class Context {
  readonly #native: NativeContext;
  readonly #callId: number;
  #controller: AbortController | undefined;
  #cancelled = false;

  /** @internal Made by the server for each handler run, `callId`. */
  constructor(nativeContext: NativeContext, callId: number) {
    this.#native = nativeContext;
    this.#callId = callId;
  }

  /** @internal Runs the intercepted request's method (an interceptor's context only). */
  runNext(params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    return native(this.#native.runNext(params) as Promise<Record<string, unknown>>);
  }

  /** @internal Identifies the run to the server's cancellation routing. */
  get callId(): number {
    return this.#callId;
  }

  /**
   * Fires when the client cancels the request (or the connection ends, or, in the
   * 2026-07-28 era, the run ends because the server asked the client for input and the
   * handler will run again on the client's retry). Pass it on to `fetch` and friends.
   */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#cancelled) {
        this.#controller.abort(cancelledReason());
      }
    }
    return this.#controller.signal;
  }

  /** @internal Called by the server when the core stopped waiting for this run. */
  cancel(): void {
    this.#cancelled = true;
    this.#controller?.abort(cancelledReason());
  }

  /** The JSON-RPC id of the request; undefined in a notification's handler. */
  get requestId(): string | number | undefined {
    return this.#native.requestId ?? undefined;
  }

  /**
   * The session the request belongs to: a legacy HTTP session's `Mcp-Session-Id`, or an id
   * that stays the same over a stdio connection; undefined where each request stands alone
   * (2026-07-28 over HTTP, a stateless endpoint).
   */
  get sessionId(): string | undefined {
    return this.#native.sessionId ?? undefined;
  }

  /**
   * What carries the request: `'stdio'`, `'streamable-http'`, `'sse'` (the 2024-11-05
   * revision's HTTP), `'memory'` (a client in this process) or `'other'`.
   */
  get transport(): 'stdio' | 'streamable-http' | 'sse' | 'memory' | 'other' {
    return this.#native.transport;
  }

  /** The caller's verified access token, on a server with `auth` over HTTP (none over stdio). */
  get accessToken(): AccessToken | undefined {
    return (this.#native.accessToken ?? undefined) as AccessToken | undefined;
  }

  /**
   * The headers of the HTTP request that carried the request, by lowercase name (an API
   * key, a tenant, a trace id to read or forward; never proof of who the caller is);
   * undefined over stdio and in process.
   */
  get httpHeaders(): Record<string, string> | undefined {
    return this.#native.httpHeaders ?? undefined;
  }

  /**
   * The HTTP POST that carried the request: its headers, URL and the address it came
   * from; undefined over stdio and in process.
   */
  get httpRequest(): HttpRequestInfo | undefined {
    const target = this.#native.httpTarget ?? undefined;
    const headers = this.httpHeaders;
    if (target === undefined || headers === undefined) {
      return undefined;
    }
    const url = new URL(target.target, `http://${headers.host ?? 'localhost'}`);
    return { headers, url, remoteAddress: target.address, remotePort: target.port };
  }

  /** The request's `_meta` (progress token, client metadata…), if it had one. */
  get meta(): Meta | undefined {
    return this.#native.meta;
  }

  /** The protocol version of the request, such as `2025-11-25` or `2026-07-28`. */
  get protocolVersion(): string {
    return this.#native.protocolVersion;
  }

  /** The request's era. Handlers rarely need it: the core translates. */
  get era(): Era {
    return this.#native.era;
  }

  /** Who the client says it is. */
  get clientInfo(): Implementation | undefined {
    return this.#native.clientInfo as Implementation | undefined;
  }

  /** What the client can do. */
  get clientCapabilities(): ClientCapabilities {
    return this.#native.clientCapabilities as ClientCapabilities;
  }

  /**
   * The client's answers to what the previous run asked for by throwing
   * `InputRequired`, by the keys it gave them (2026-07-28 era; otherwise `undefined`).
   */
  get inputResponses(): InputResponses | undefined {
    return this.#native.inputResponses as InputResponses | undefined;
  }

  /** The `requestState` the previous run threw with `InputRequired`, unaltered. */
  get requestState(): string | undefined {
    return this.#native.requestState ?? undefined;
  }

  /**
   * Reports progress, when the client asked for it; otherwise does nothing. Values must
   * increase.
   */
  async progress(progress: number, total?: number, message?: string): Promise<void> {
    await this.#native.progress(progress, total, message);
  }

  /**
   * Ends the SSE stream this request's messages go on while the request goes on (SEP-1699's
   * polling): the client reconnects once the stream's `retry` has passed and resumes with
   * `Last-Event-ID`, missing nothing. Only a legacy-era POST's stream in an HTTP session
   * ends; elsewhere nothing happens.
   */
  async closeStream(): Promise<void> {
    await this.#native.closeStream();
  }

  /**
   * Says what the task this call runs as is doing now (its status message, which
   * `tasks/get` shows); a call that is not a task has no status to set.
   */
  async taskStatus(message: string): Promise<void> {
    await this.#native.taskStatus(message);
  }

  /**
   * Where a tool registered with `asksBeforeTask: true` becomes a task: its questions so far
   * were answered in place (2026-07-28 rounds), and the task runs the handler again with those
   * answers, so keep what comes before free of side effects. Anywhere else it resolves at once.
   */
  async beginTask(): Promise<void> {
    await this.#native.beginTask();
  }

  /** Whether this call runs as a task (`registerTool(name, { task })`). */
  get isTask(): boolean {
    return this.#native.isTask;
  }

  /** The id of the task this call runs as, as the client knows it (none for a call that is not a task). */
  get taskId(): string | undefined {
    return this.#native.taskId ?? undefined;
  }

  /** Sends a log message to the client, if it wants messages of this level. */
  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    await native(this.#native.log(level, data, logger));
  }

  /**
   * Asks the client's user for input (`elicitation/create`). `requestedSchema` may be
   * JSON Schema or a zod object or shape. An accepted form is checked against it.
   */
  async elicit(params: ElicitInput): Promise<ElicitResult> {
    const wire =
      'requestedSchema' in params
        ? { ...params, requestedSchema: toJsonSchema(params.requestedSchema, 'input') }
        : params;
    return (await native(this.#native.elicit(wire))) as ElicitResult;
  }

  /** Asks the client's model for a completion (`sampling/createMessage`). */
  async sample(params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    return (await native(this.#native.sample({ ...params }))) as CreateMessageResult;
  }

  /** Asks the client for its roots (`roots/list`). */
  async listRoots(): Promise<ListRootsResult> {
    return (await native(this.#native.listRoots())) as ListRootsResult;
  }

  /**
   * Reads a resource of this server as a client would get it, its handler run with this
   * request's context (a tool built on the server's own resources). An unknown URI rejects
   * with the resource-not-found error.
   */
  async readResource(uri: string): Promise<ReadResourceResult> {
    return (await native(this.#native.readResource(uri))) as ReadResourceResult;
  }

  /**
   * Renders a prompt of this server as a client would get it, its handler run with this
   * request's context. An unknown prompt, or one missing a required argument, rejects
   * with an invalid-params error.
   */
  async getPrompt(name: string, args?: Record<string, string>): Promise<GetPromptResult> {
    return (await native(this.#native.getPrompt(name, args))) as GetPromptResult;
  }

  /**
   * Calls a tool of this server in place, its handler run with this request's context:
   * its arguments checked against its input schema, its result against its output schema.
   * A failure of the tool is its error result (`isError`); an unknown tool, or arguments
   * its schema refuses, rejects with an invalid-params error.
   */
  async callTool(name: string, args?: Record<string, unknown>): Promise<CallToolResult> {
    return (await native(this.#native.callTool(name, args))) as CallToolResult;
  }

  /**
   * Pings the client on the request's session, which may outlive the request (keep the
   * context for it): to keep a quiet connection alive. Rejects once the session is gone or
   * the client does not answer in time. Nothing is sent in 2026-07-28, which has no sessions.
   */
  async ping(): Promise<void> {
    await native(this.#native.ping());
  }

  /**
   * Tells this request's client, and no other, that the list of `kind` changed: what its
   * session is shown changed (the server's `notifyListChanged` tells every client). In
   * 2026-07-28, which has no sessions, every client is told.
   */
  async notifySessionListChanged(kind: 'tool' | 'resource' | 'prompt'): Promise<void> {
    await native(this.#native.notifySessionListChanged(kind));
  }

  /**
   * Tells the client the user completed the URL-mode elicitation `elicitationId`
   * (`notifications/elicitation/complete`, 2025-11-25), so that it may retry what waited
   * for it. It goes on the session, so it may come after the request that asked has ended
   * (keep the context for it). Nothing is sent in 2026-07-28, which has no such notification.
   */
  async notifyElicitationComplete(elicitationId: string): Promise<void> {
    await native(this.#native.notifyElicitationComplete(elicitationId));
  }
}

function cancelledReason(): Error {
  return new DOMException('the request was cancelled', 'AbortError');
}
