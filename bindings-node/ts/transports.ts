/**
 * The official TypeScript SDK's server transports over oxmcp's endpoints: a
 * `connect()`ed `StdioServerTransport` serves this process's stdin and stdout, and the
 * HTTP transports hand the requests an app routes to them to the connected server's
 * endpoint, which speaks the protocol. With `createMcpExpressApp` and
 * `isInitializeRequest`, the helpers the SDK's HTTP examples use.
 */

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';
import { PassThrough, type Readable, type Writable } from 'node:stream';

import { compact } from './compact';
import { McpError } from './errors';
import {
  answerFetch,
  answerNodeAt,
  authOf,
  callerOf,
  headersOf,
  relay,
  type NodeHandler,
  type WebStandardRequestOptions,
} from './mounted';
import type { NativeHttpEndpoint, NativeHttpExchange } from './native';
import type { HttpMountOptions, Server } from './server';

/** `connect()`'s transport for this process's stdin and stdout, or the streams given. */
export class StdioServerTransport {
  /** Told once serving these streams ended: the input ended, or the server or this transport closed. */
  onclose?: () => void;
  /** Told when serving these streams failed. */
  onerror?: (error: Error) => void;
  #close: (() => Promise<void>) | undefined;

  constructor(
    readonly stdin: Readable = process.stdin,
    readonly stdout: Writable = process.stdout,
  ) {}

  /** @internal What `close()` stops: the serving of the server `connect` attached. */
  attach(close: () => Promise<void>): void {
    this.#close = close;
  }

  /** Stops serving these streams (the server connected to them is closed), as the official transport's `close` does. */
  async close(): Promise<void> {
    await this.#close?.();
  }
}

/**
 * A transport of the official SDK's `Transport` shape, which hands messages over one by
 * one: its `InMemoryTransport` (`createLinkedPair()`, as servers' tests connect an
 * official `Client` in process), or one of one's own.
 */
export interface MessageTransport {
  start(): Promise<void>;
  send(message: unknown): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: any, extra?: any) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}

/** Whether `transport` has the official SDK's `Transport` shape. */
export function isMessageTransport(transport: unknown): transport is MessageTransport {
  const given = transport as Partial<MessageTransport> | null;
  return typeof given?.start === 'function' && typeof given.send === 'function' && typeof given.close === 'function';
}

/**
 * A `StdioServerTransport` whose streams carry `transport`'s messages, one line of JSON
 * each, so that the core serves it as it serves stdio: the messages it is handed go in,
 * the lines the core writes are sent; its close ends the input, and the serving's end
 * closes it.
 */
export async function overMessages(transport: MessageTransport): Promise<StdioServerTransport> {
  const incoming = new PassThrough();
  const outgoing = new PassThrough();
  const failed = (error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error)));
  transport.onmessage = (message) => incoming.write(`${JSON.stringify(message)}\n`);
  transport.onclose = () => incoming.end();
  createInterface({ input: outgoing, crlfDelay: Infinity }).on('line', (line) => {
    transport.send(JSON.parse(line)).catch(failed);
  });
  const stdio = new StdioServerTransport(incoming, outgoing);
  stdio.onclose = () => {
    transport.close().catch(failed);
  };
  stdio.onerror = failed;
  await transport.start();
  return stdio;
}

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

  /** Called by `connect()` once the transport is attached. */
  async start(): Promise<void> {}

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
    withParsedBody(req, parsedBody);
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
  #endpoint: (() => Promise<NativeHttpEndpoint>) | undefined;

  /** Answers one request; `authInfo` is its caller when the app authenticated it (`extra.authInfo` in handlers). */
  async handleRequest(request: Request, options: WebStandardRequestOptions = {}): Promise<Response> {
    this.#endpoint ??= this.server().mountedEndpoint(this.settings(new URL(request.url).pathname));
    const response = await answerFetch(await this.#endpoint(), request, options);
    this.seen(request.method, response.status, response.headers.get(SESSION_HEADER) ?? undefined);
    return response;
  }
}

/** The official `SSEServerTransport`'s options that oxmcp reads. */
export interface SSEServerTransportOptions {
  /** `Host` values accepted (oxmcp's default: loopback names only). */
  allowedHosts?: string[];
  /** `Origin` values accepted (oxmcp's default: pages served from loopback hosts). */
  allowedOrigins?: string[];
  /** oxmcp always checks `Host` and `Origin`. */
  enableDnsRebindingProtection?: boolean;
}

/**
 * The official `SSEServerTransport`, the deprecated HTTP+SSE transport of 2024-11-05: made
 * in the app's GET route with the response its events go to, its `sessionId` known at once
 * (made from the CSPRNG), by which the app routes the session's POSTs to
 * `handlePostMessage`. `connect()` opens the session on the connected server's endpoint,
 * which speaks the protocol; its first event tells the client to POST to `endpoint`.
 */
export class SSEServerTransport extends HttpTransport {
  declare sessionId: string;
  readonly #messagesPath: string;
  readonly #res: ServerResponse;
  readonly #allowed: SSEServerTransportOptions;
  #stream: NativeHttpExchange | undefined;
  #mounted: (() => Promise<NativeHttpEndpoint>) | undefined;

  constructor(endpoint: string, res: ServerResponse, options: SSEServerTransportOptions = {}) {
    super();
    this.sessionId = randomUUID();
    this.#messagesPath = endpoint;
    this.#res = res;
    this.#allowed = options;
  }

  /** Opens the session and streams its events to the response (`connect()` calls it). */
  override async start(): Promise<void> {
    if (this.#stream !== undefined) {
      throw new Error('SSEServerTransport already started! connect() calls start() itself.');
    }
    const endpoint = await this.#endpoint();
    const opening = this.#res.req;
    const stream = endpoint.openHostedSse(headersOf(opening), this.sessionId, this.#messagesPath, callerOf(authOf(opening)));
    stream.endBody();
    this.#stream = stream;
    // Resolves once the stream's head and first event are sent; the session ends with the stream.
    await new Promise<void>((opened) => {
      relay(stream, this.#res, () => {
        opened();
        return true;
      }).finally(() => {
        opened();
        void this.close();
      });
    });
  }

  /** Hands a message the app routed to this session to the endpoint; its answer goes on the stream (202 here). */
  async handlePostMessage(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    if (this.#stream === undefined) {
      const message = 'SSE connection not established';
      res.writeHead(500).end(message);
      throw new Error(message);
    }
    withParsedBody(req, parsedBody);
    await answerNodeAt(await this.#endpoint(), `/messages?sessionId=${this.sessionId}`, req, res);
  }

  /** The connected server's endpoint that serves this session. */
  #endpoint(): Promise<NativeHttpEndpoint> {
    if (this.#mounted === undefined) {
      const { allowedHosts, allowedOrigins } = this.#allowed;
      this.#mounted = this.server().mountedEndpoint(compact({ legacySse: true, allowedHosts, allowedOrigins }));
    }
    return this.#mounted();
  }

  /** Ends the session and its stream. */
  override async close(): Promise<void> {
    this.#stream?.cancel();
    if (!this.#res.writableEnded) {
      this.#res.end();
    }
    await super.close();
  }
}

/** Leaves what a body parser read (`req.body`) where the endpoint's adapter reads it. */
function withParsedBody(req: IncomingMessage, parsedBody: unknown): void {
  const request = req as IncomingMessage & { body?: unknown };
  if (parsedBody !== undefined && request.body === undefined) {
    request.body = parsedBody;
  }
}

/** Whether `message` is an `initialize` request (the official helper, for session routing). */
export function isInitializeRequest(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) {
    return false;
  }
  const { method, jsonrpc } = message as Record<string, unknown>;
  return method === 'initialize' && jsonrpc === '2.0' && 'id' in message;
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

