/**
 * The outcome every facade callback answers the native module with: the value's JSON
 * text (when it is plain data, see `jsonText`), `{ ok: value }`, or `{ error: { message,
 * code?, data? } }`. Callbacks never throw, so a handler's synchronous `throw` cannot
 * reach N-API (where it would crash the process).
 */

import { InputRequired, McpError, ResourceNotFoundError } from './errors';
import { jsonText } from './json';

/** A handler's value (as JSON text, or as it is), or how it failed. */
export type Outcome =
  | string
  | { ok: unknown }
  | {
      error: {
        message: string;
        code?: number;
        data?: unknown;
        inputRequired?: Record<string, unknown>;
        resourceNotFound?: string;
      };
    };

/**
 * Runs `run` and settles its value (awaited if it is a Promise) into an outcome.
 * `convert` makes a value that is not plain data sendable (it may throw why it cannot be
 * sent); plain data, which it would leave as it is, goes as JSON text without it.
 */
export function settle(
  run: () => unknown,
  convert: (value: unknown) => unknown = identity,
): Outcome | Promise<Outcome> {
  let value: unknown;
  try {
    value = run();
  } catch (error) {
    return failure(error);
  }
  if (isPromiseLike(value)) {
    return Promise.resolve(value).then((resolved) => success(resolved, convert), failure);
  }
  return success(value, convert);
}

function success(value: unknown, convert: (value: unknown) => unknown): Outcome {
  try {
    const text = jsonText(value ?? null);
    if (text !== undefined) {
      return text;
    }
    const converted = convert(value) ?? null;
    return jsonText(converted) ?? { ok: converted };
  } catch (error) {
    return failure(error);
  }
}

/**
 * The envelope of a thrown value: an `McpError` keeps its code and data, an
 * `InputRequired` its requests and state.
 */
export function failure(error: unknown): Outcome {
  if (error instanceof InputRequired) {
    const { inputRequests, requestState } = error;
    return { error: { message: error.message, inputRequired: { inputRequests, requestState } } };
  }
  if (error instanceof ResourceNotFoundError) {
    return { error: { message: error.message, resourceNotFound: error.uri } };
  }
  if (error instanceof McpError) {
    return { error: { message: error.message, code: error.code, data: error.data } };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { error: { message } };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function identity(value: unknown): unknown {
  return value;
}
