/**
 * A server's Streamable HTTP endpoint inside a web app: a web-standard `fetch` handler
 * (Hono, Next.js route handlers, Bun, Deno) and a `(req, res)` handler for Node's own
 * (Express, Fastify, `http.createServer`). The protocol is the core's, as under
 * `listen({ transport: 'http' })`; these adapters only carry each request to it and its
 * streamed answer back.
 */

import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { AuthInfo } from './lowlevel';
import type { HostCaller, NativeHttpEndpoint, NativeHttpExchange, Peer, ResponseHead } from './native';

/** A web-standard handler: a `Request` in, its `Response` out. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * A Node handler: Express and Connect pass `next`, which gets the requests the endpoint
 * does not serve (a 404 from it), so that later routes may.
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => Promise<void>;

/**
 * What an app may know of a request beside the request itself (the official web-standard
 * transport's `handleRequest` options).
 */
export interface WebStandardRequestOptions {
  /** Its caller, when the app authenticated it (handlers see it as `ctx.accessToken` and `extra.authInfo`). */
  authInfo?: AuthInfo;
  /** Its body, when the app read it already (oxmcp reads the request's own when it can). */
  parsedBody?: unknown;
}

/** Answers a web-standard request through `endpoint`. */
export async function answerFetch(endpoint: NativeHttpEndpoint, request: Request, known: WebStandardRequestOptions = {}): Promise<Response> {
  const url = new URL(request.url);
  const headers = [...request.headers];
  // Frameworks that build requests themselves may leave out the Host the core checks.
  if (!request.headers.has('host')) {
    headers.push(['host', url.host]);
  }
  const exchange = endpoint.exchange(request.method, url.pathname + url.search, headers, callerOf(known.authInfo));
  const leave = (): void => exchange.cancel();
  request.signal.addEventListener('abort', leave, { once: true });
  void feed(exchange, request.bodyUsed ? parsed(known.parsedBody) : request.body);
  const head = await exchange.response();
  if (head === null) {
    // The client left before the answer: nobody reads this.
    return new Response(null, { status: 499 });
  }
  if (head.ended) {
    // A JSON answer: whole already.
    request.signal.removeEventListener('abort', leave);
    const whole = hasBody(head.status) ? Buffer.concat(head.ready) : null;
    return new Response(whole, { status: head.status, headers: head.headers as [string, string][] });
  }
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        head.ready.forEach((chunk) => controller.enqueue(chunk));
      },
      async pull(controller) {
        const chunk = await exchange.nextChunk();
        if (chunk === null) {
          request.signal.removeEventListener('abort', leave);
          controller.close();
        } else {
          controller.enqueue(chunk);
        }
      },
      cancel: leave,
    },
    // Pulled as the client reads: an SSE stream waits in the core, not here.
    { highWaterMark: 0 },
  );
  return new Response(hasBody(head.status) ? body : null, { status: head.status, headers: head.headers as [string, string][] });
}

/** What an answer's head says, and the method of its request, shown to whoever watches answers (`answerNode`'s `onHead`). */
export type HeadWatcher = (status: number, headers: string[][], method: string) => void;

/** Answers a Node request through `endpoint`; `onHead` sees the answer's head first. */
export async function answerNode(
  endpoint: NativeHttpEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
  onHead?: HeadWatcher,
): Promise<void> {
  await answerNodeAt(endpoint, req.url ?? '/', req, res, (head) => {
    if (head.status === 404 && next !== undefined) {
      next();
      return false;
    }
    onHead?.(head.status, head.headers, req.method ?? 'GET');
    return true;
  });
}

/**
 * Answers a Node request through `endpoint` as a request to `path`; `accept` sees the
 * answer's head first, and may keep it from being sent (the exchange is cancelled). The
 * caller an auth middleware left in `req.auth` (the official SDK's `requireBearerAuth`)
 * is the request's.
 */
export async function answerNodeAt(
  endpoint: NativeHttpEndpoint,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  accept?: (head: ResponseHead) => boolean,
): Promise<void> {
  const exchange = endpoint.exchange(req.method ?? 'GET', path, headersOf(req), callerOf(authOf(req)), peerOf(req));
  void feed(exchange, bodyOf(req));
  await relay(exchange, res, accept);
}

/** Where `req` came from, when its socket says. */
function peerOf(req: IncomingMessage): Peer | undefined {
  const { remoteAddress, remotePort } = req.socket;
  return remoteAddress === undefined || remotePort === undefined ? undefined : { address: remoteAddress, port: remotePort };
}

/** What an auth middleware left in `req.auth`. */
export function authOf(req: IncomingMessage): unknown {
  return (req as IncomingMessage & { auth?: unknown }).auth;
}

/**
 * The caller an app authenticated, from the official SDK's `AuthInfo` (`token`,
 * `clientId`, `scopes`, `expiresAt`, `resource`, `extra`); `undefined` for anything
 * without a token (another middleware's `req.auth`, a JWT's bare claims, say).
 */
export function callerOf(auth: unknown): HostCaller | undefined {
  if (typeof auth !== 'object' || auth === null) {
    return undefined;
  }
  const { token, clientId, scopes, expiresAt, resource, extra } = auth as Record<string, unknown>;
  if (typeof token !== 'string') {
    return undefined;
  }
  return {
    token,
    clientId: typeof clientId === 'string' ? clientId : undefined,
    scopes: Array.isArray(scopes) ? scopes.filter((scope): scope is string => typeof scope === 'string') : [],
    expiresAt: typeof expiresAt === 'number' ? expiresAt : undefined,
    resource: resource instanceof URL ? resource.href : typeof resource === 'string' ? resource : undefined,
    extra: typeof extra === 'object' && extra !== null ? (extra as Record<string, unknown>) : undefined,
  };
}

/** A Node request's headers as `[name, value]` pairs, in order. */
export function headersOf(req: IncomingMessage): string[][] {
  const raw = req.rawHeaders;
  const headers: string[][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    headers.push([raw[i] ?? '', raw[i + 1] ?? '']);
  }
  return headers;
}

/**
 * Sends the answer of `exchange` into `res` as it comes, until it ends or `res` closes
 * (which cancels the exchange); `accept` sees its head first, and may keep it from being
 * sent (the exchange is cancelled).
 */
export async function relay(
  exchange: NativeHttpExchange,
  res: ServerResponse,
  accept?: (head: ResponseHead) => boolean,
): Promise<void> {
  const leave = (): void => exchange.cancel();
  res.once('close', leave);
  try {
    const head = await exchange.response();
    if (head === null) {
      return;
    }
    if (accept !== undefined && !accept(head)) {
      exchange.cancel();
      return;
    }
    res.writeHead(head.status, head.headers.flat());
    if (head.ended) {
      // A JSON answer: whole already, sent at once.
      res.end(Buffer.concat(head.ready));
      return;
    }
    // An SSE stream's headers go at once, before its first event.
    res.flushHeaders();
    for (const chunk of head.ready) {
      res.write(chunk);
    }
    for (let chunk = await exchange.nextChunk(); chunk !== null; chunk = await exchange.nextChunk()) {
      if (!res.write(chunk)) {
        await Promise.race([once(res, 'drain'), once(res, 'close')]);
      }
    }
    res.end();
  } finally {
    res.off('close', leave);
  }
}

/**
 * The request body as it arrives: the stream, or what a body parser already read from it
 * (`express.json()` leaves the parsed value in `req.body`, as the official SDK's
 * `handleRequest(req, res, req.body)` expects).
 */
function bodyOf(req: IncomingMessage): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  const body = (req as IncomingMessage & { body?: unknown }).body;
  return body !== undefined && req.readableEnded ? parsed(body) : req;
}

/** A body an app read already, as the bytes to send on (none when it gave none). */
function parsed(body: unknown): Uint8Array[] {
  if (body === undefined) {
    return [];
  }
  return [Buffer.from(typeof body === 'string' ? body : JSON.stringify(body))];
}

/**
 * Feeds `chunks` to the core, then ends the body. Past its body limit the core reads no
 * more and answers 413: the rest is read and dropped, so that the client, still sending,
 * gets to read that answer rather than a reset connection.
 */
async function feed(
  exchange: NativeHttpExchange,
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | null,
): Promise<void> {
  let reading = true;
  try {
    for await (const chunk of chunks ?? []) {
      if (reading) {
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        reading = await exchange.sendBody(buffer);
      }
    }
  } catch {
    // The client went away mid-body: the core sees a body cut short.
  } finally {
    exchange.endBody();
  }
}

/** Whether a response with `status` may carry a body. */
function hasBody(status: number): boolean {
  return status !== 204 && status !== 304;
}
