/**
 * Errors: `McpError` is what failed calls reject with, and what handlers throw to answer
 * with a specific JSON-RPC error.
 */

import { nativeModule } from './native';
import type { InputRequest } from './types';

/** The JSON-RPC and MCP error codes, by name. */
export interface ErrorCodes {
  readonly ParseError: number;
  readonly InvalidRequest: number;
  readonly MethodNotFound: number;
  readonly InvalidParams: number;
  readonly InternalError: number;
  /** Resource not found up to 2025-11-25; the core answers -32602 from 2026-07-28 on. */
  readonly ResourceNotFound: number;
  readonly UrlElicitationRequired: number;
  readonly HeaderMismatch: number;
  readonly MissingRequiredClientCapability: number;
  readonly UnsupportedProtocolVersion: number;
  /** Local: the connection closed before the answer came. */
  readonly ConnectionClosed: number;
  /** Local: no answer came in time. */
  readonly RequestTimeout: number;
}

/** JSON-RPC and MCP error codes: the core's table, named in PascalCase. */
export const ErrorCode: ErrorCodes = Object.freeze(
  Object.fromEntries(
    Object.entries(nativeModule.errorCodes()).map(([name, code]) => [
      name.toLowerCase().replace(/(^|_)([a-z])/g, (_match, _separator: string, letter: string) => letter.toUpperCase()),
      code,
    ]),
  ) as unknown as ErrorCodes,
);

/** What went wrong with a call: the peer's JSON-RPC error (`remote`), or a local cause. */
export type McpErrorKind =
  | 'remote'
  | 'handler'
  | 'timeout'
  | 'cancelled'
  | 'closed'
  | 'invalid_response'
  | 'protocol'
  | 'unsupported'
  | 'verification'
  | 'io'
  | 'definition';

/**
 * An MCP failure with a JSON-RPC `code`.
 *
 * Thrown from a tool handler, an `McpError` answers the request with exactly this
 * JSON-RPC error; any other error becomes a tool execution error (`isError: true`) the
 * model can read. From other handlers every error is a JSON-RPC error (internal error
 * unless it is an `McpError`).
 */
export class McpError extends Error {
  override readonly name: string = 'McpError';

  /**
   * @param code the JSON-RPC error code
   * @param message what went wrong
   * @param data anything that helps the receiver act on the error
   * @param kind where the error came from (`remote` when the peer sent it)
   */
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly kind: McpErrorKind = 'remote',
  ) {
    super(message);
  }
}

/**
 * The official SDK's `UrlElicitationRequiredError`: thrown from a tool handler, the call is
 * answered with -32042 and the URL elicitations the user must complete first (2025-11-25;
 * `ctx.notifyElicitationComplete(id)` says when they did).
 */
export class UrlElicitationRequiredError extends McpError {
  override readonly name: string = 'UrlElicitationRequiredError';

  constructor(elicitations: Record<string, unknown>[], message = `URL elicitation${elicitations.length > 1 ? 's' : ''} required`) {
    super(ErrorCode.UrlElicitationRequired, message, { elicitations });
  }

  /** The elicitations the user must complete. */
  get elicitations(): Record<string, unknown>[] {
    return (this.data as { elicitations: Record<string, unknown>[] }).elicitations;
  }
}

/**
 * The resource does not exist. Thrown from a resource handler (a template's, for an
 * instance that is not there), the client is told in the words of its protocol version:
 * -32002 up to 2025-11-25, -32602 from 2026-07-28 on (SEP-2164), with `data.uri` either way.
 * A client rejects with it for either.
 */
export class ResourceNotFoundError extends McpError {
  override readonly name: string = 'ResourceNotFoundError';

  /**
   * @param uri the URI that names no resource
   * @param message what to say (by default, that the resource was not found)
   * @param code the code the peer sent (a client sets it; a handler leaves it to the core)
   */
  constructor(
    readonly uri: string,
    message = `Resource not found: ${uri}`,
    code: number = ErrorCode.InvalidParams,
    kind: McpErrorKind = 'remote',
  ) {
    super(code, message, { uri }, kind);
  }
}

/**
 * Thrown from a handler in the 2026-07-28 era, ends the run with an `input_required`
 * result: the client answers `inputRequests` and retries, and the handler runs again
 * with the answers in `ctx.inputResponses` and its `requestState` back in
 * `ctx.requestState` (sealed by the core, so the client cannot alter it). This is the
 * explicit multi round-trip style; `ctx.elicit()` and friends do it for you.
 *
 * ```ts
 * const name = ctx.inputResponses?.user_name;
 * if (name === undefined) {
 *   throw new InputRequired({ user_name: { method: 'elicitation/create', params } });
 * }
 * ```
 */
export class InputRequired extends Error {
  override readonly name = 'InputRequired';

  /**
   * @param inputRequests what the server needs, by keys of the handler's choosing
   * @param requestState state the next run gets back
   */
  constructor(
    readonly inputRequests: Record<string, InputRequest>,
    readonly requestState?: string,
  ) {
    super('the client must answer first');
  }
}

/** The native module's rejection details: see `bindings-node/src/error.rs`. */
interface NativeFailure {
  kind: McpErrorKind;
  message: string;
  code?: number;
  data?: unknown;
  /** The URI, when the core read the error as a resource not found. */
  resourceNotFound?: string;
}

const LOCAL_CODES: Partial<Record<McpErrorKind, number>> = {
  timeout: ErrorCode.RequestTimeout,
  closed: ErrorCode.ConnectionClosed,
  definition: ErrorCode.InvalidParams,
};

/**
 * Turns a native rejection into an `McpError` (or, for a `ctx` request that failed
 * without a JSON-RPC code, a plain `Error`); anything else is returned as is.
 */
export function fromNative(error: unknown): unknown {
  if (!(error instanceof Error) || !error.message.startsWith('{"')) {
    return error;
  }
  let failure: NativeFailure;
  try {
    failure = JSON.parse(error.message) as NativeFailure;
  } catch {
    return error;
  }
  if (failure.kind === 'handler' && failure.code === undefined) {
    // A failure described for the model: rethrown from a tool, it stays a tool error.
    return new Error(failure.message);
  }
  const code = failure.code ?? LOCAL_CODES[failure.kind] ?? ErrorCode.InternalError;
  if (failure.resourceNotFound !== undefined) {
    return new ResourceNotFoundError(failure.resourceNotFound, failure.message, code, failure.kind);
  }
  return new McpError(code, failure.message, failure.data ?? undefined, failure.kind);
}

/** Awaits a native call, rethrowing its failure as an `McpError`. */
export async function native<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw fromNative(error);
  }
}

/** Runs a synchronous native call, rethrowing its failure as an `McpError`. */
export function nativeSync<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw fromNative(error);
  }
}
