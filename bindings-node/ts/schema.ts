/**
 * Schemas: a zod raw shape, a zod schema, any Standard JSON Schema, or plain JSON Schema,
 * turned into the JSON Schema the core validates with, and into the TypeScript types
 * handlers receive.
 *
 * Conversion uses the schema library's own export: the Standard JSON Schema interface
 * (`schema['~standard'].jsonSchema`, zod 4.2+ and others), else zod's `toJSONSchema`
 * (zod 4, and `zod/v4` in zod 3.25). zod is never needed for plain JSON Schema.
 * Arguments are validated once, by the core, against the converted schema; zod does not
 * run again in JavaScript (so `.default()` and `.transform()` do not apply to what the
 * handler receives).
 */

import type { JsonSchema, PromptArgument } from './types';

/** A schema that declares its types the Standard Schema way (zod 3.24+, zod 4, Valibot…). */
export interface StandardSchemaLike<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly vendor: string;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** A zod raw shape: `{ a: z.number(), b: z.string().optional() }`. */
export type SchemaShape = { readonly [key: string]: StandardSchemaLike };

/** What `inputSchema`, `outputSchema` and `argsSchema` accept. */
export type SchemaInput = StandardSchemaLike | SchemaShape | JsonSchema;

type Side = 'input' | 'output';

/**
 * The JSON Schema dialect schema libraries write: 2020-12, the protocol's default, or
 * draft-07, what the official TypeScript SDK lists (its `McpServer` port writes that).
 */
export type JsonSchemaTarget = 'draft-2020-12' | 'draft-7';

type TypeOf<S, W extends Side> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly input: infer I; readonly output: infer O }
    ? W extends 'input'
      ? I
      : O
    : unknown
  : unknown;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ShapeOf<S extends SchemaShape, W extends Side> = Simplify<
  { -readonly [K in keyof S as undefined extends TypeOf<S[K], W> ? never : K]: TypeOf<S[K], W> } & {
    -readonly [K in keyof S as undefined extends TypeOf<S[K], W> ? K : never]?: TypeOf<S[K], W>;
  }
>;

/**
 * The value a schema describes: the schema's own type for zod and other Standard
 * Schemas (the input type for arguments, which are not transformed), an object of the
 * fields' types for a raw shape, and `Record<string, unknown>` for plain JSON Schema.
 */
export type Infer<S, W extends Side = 'input'> = S extends StandardSchemaLike
  ? TypeOf<S, W>
  : S extends SchemaShape
    ? ShapeOf<S, W>
    : Record<string, unknown>;

interface StandardProps {
  vendor: string;
  jsonSchema?: { input(options: { target: string }): JsonSchema; output(options: { target: string }): JsonSchema };
  validate(value: unknown): StandardResult | Promise<StandardResult>;
}

/** What a Standard Schema's `validate` gives: the value, or the issues. */
type StandardResult = { value: unknown; issues?: undefined } | { issues: ReadonlyArray<{ message: string }> };

interface ZodModule {
  object(shape: SchemaShape): StandardSchemaLike;
  toJSONSchema(schema: unknown, options: { io: Side; target: JsonSchemaTarget }): JsonSchema;
}

/** The input schema of a tool that takes no arguments (the official SDK's). */
export const EMPTY_OBJECT: JsonSchema = Object.freeze({ type: 'object', properties: {} });

/** The `$schema` zod writes for each target. */
const SCHEMA_DIALECTS: Record<JsonSchemaTarget, string> = {
  'draft-7': 'http://json-schema.org/draft-07/schema#',
  'draft-2020-12': 'https://json-schema.org/draft/2020-12/schema',
};

const ZOD_3_REFUSED =
  "zod 3 schemas have no JSON Schema export: import * as z from 'zod/v4' (zod 3.25+) or use zod 4";

let zod: ZodModule | undefined;

/** The installed zod's v4 API (zod 4, or `zod/v4` of zod 3.25). */
function loadZod(why: string): ZodModule {
  if (zod === undefined) {
    try {
      zod = require('zod/v4') as ZodModule;
    } catch {
      throw new TypeError(`${why} needs zod (3.25 or later) installed`);
    }
  }
  return zod;
}

function isStandardSchema(value: unknown): value is StandardSchemaLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<StandardSchemaLike>)['~standard'] === 'object'
  );
}

function isShape(value: object): value is SchemaShape {
  return !isStandardSchema(value) && Object.values(value).some(isStandardSchema);
}

/** The JSON Schema of a schema's `io` side. */
export function toJsonSchema(schema: SchemaInput, io: Side, target: JsonSchemaTarget = 'draft-2020-12'): JsonSchema {
  if (Object.keys(schema).length === 0) {
    // `{}`: the empty raw shape of the official SDK's users (`inputSchema: {}`), listed as
    // zod lists an empty object for the target, as any other shape is (the official SDK's
    // listing: draft-07, with its `$schema`); JSON Schema's "anything" is no tool's input.
    return { $schema: SCHEMA_DIALECTS[target], ...EMPTY_OBJECT };
  }
  if (isShape(schema)) {
    if (!Object.values(schema).every((field) => '_zod' in field)) {
      throw new TypeError(ZOD_3_REFUSED);
    }
    return fromStandardSchema(loadZod('a zod raw shape').object(schema), io, target);
  }
  if (isStandardSchema(schema)) {
    return fromStandardSchema(schema, io, target);
  }
  return schema;
}

function fromStandardSchema(schema: StandardSchemaLike, io: Side, target: JsonSchemaTarget): JsonSchema {
  const standard = schema['~standard'] as StandardProps;
  // Spread: zod's JSON Schema carries a hidden `~standard` of its own, which would make it
  // read as a schema to convert again.
  if (standard.jsonSchema) {
    return { ...standard.jsonSchema[io]({ target }) };
  }
  if ('_zod' in schema) {
    return { ...loadZod('a zod schema').toJSONSchema(schema, { io, target }) };
  }
  if (standard.vendor === 'zod') {
    throw new TypeError(ZOD_3_REFUSED);
  }
  throw new TypeError(`this ${standard.vendor} schema has no JSON Schema export; pass JSON Schema instead`);
}

/**
 * The schema that checks values in JavaScript, as the official SDK checks arguments with
 * zod before its handlers run (applying `.default()` and `.transform()`): a raw shape as a
 * zod object, a Standard Schema as it is; `undefined` for plain JSON Schema and `{}`.
 */
export function validatorOf(schema: SchemaInput): StandardSchemaLike | undefined {
  if (isShape(schema)) {
    return loadZod('a zod raw shape').object(schema);
  }
  return isStandardSchema(schema) ? schema : undefined;
}

/**
 * `value` as `schema` reads it (defaults filled, transforms applied), or the issues'
 * messages when it does not fit.
 */
export async function validate(schema: StandardSchemaLike, value: unknown): Promise<{ value: unknown } | { issues: string[] }> {
  const standard = schema['~standard'] as StandardProps;
  const result = await standard.validate(value);
  if (result.issues === undefined) {
    return { value: result.value };
  }
  return { issues: result.issues.map((issue) => issue.message) };
}

/** A prompt's arguments from its `argsSchema` (prompt arguments are strings). */
export function promptArguments(schema: SchemaInput): PromptArgument[] {
  const json = toJsonSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, { description?: unknown; title?: unknown }>;
  const required = new Set(Array.isArray(json.required) ? (json.required as unknown[]) : []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    ...(typeof property.title === 'string' ? { title: property.title } : {}),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    required: required.has(name),
  }));
}
