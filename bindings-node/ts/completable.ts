/**
 * `completable()`: a prompt argument's schema that also suggests values, as in the
 * official TypeScript SDK.
 *
 * ```ts
 * server.registerPrompt(
 *   'review',
 *   { argsSchema: { language: completable(z.string(), (value) => ['python', 'rust'].filter((l) => l.startsWith(value))) } },
 *   ({ language }) => `Review this ${language} code`,
 * );
 * ```
 */

import type { SchemaInput, StandardSchemaLike } from './schema';

/** Suggests values for an argument or template variable from its partial value. */
export type CompleteCallback = (
  value: string,
  context: { arguments: Record<string, string> },
) => string[] | Promise<string[]>;

/** The completion callbacks of schemas `completable()` marked. */
const completers = new WeakMap<object, CompleteCallback>();

/**
 * Marks `schema` (a zod or other Standard Schema of one prompt argument) as completable:
 * `completion/complete` requests for the argument are answered by `complete`. Returns
 * the same schema, so its type and JSON Schema are unchanged. Mark the outermost schema
 * of the argument (`completable(z.string().optional(), …)`): a schema derived from a
 * marked one (such as `.optional()` of it) is a new schema, not marked.
 */
export function completable<S extends StandardSchemaLike>(schema: S, complete: CompleteCallback): S {
  completers.set(schema, complete);
  return schema;
}

/**
 * The completion callbacks of the fields of `schema` (a raw shape, or an object schema
 * with a `shape`, as zod's), by field name.
 */
export function completersOf(schema: SchemaInput): Record<string, CompleteCallback> {
  const shape = (schema as { shape?: unknown }).shape;
  const fields = typeof shape === 'object' && shape !== null ? shape : schema;
  const found: Record<string, CompleteCallback> = {};
  for (const [name, field] of Object.entries(fields)) {
    const complete = typeof field === 'object' && field !== null ? completers.get(field) : undefined;
    if (complete !== undefined) {
      found[name] = complete;
    }
  }
  return found;
}
