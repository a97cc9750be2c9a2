/**
 * A value as JSON text, for the native module. Reading an object through N-API costs a
 * native call per key and per value (more than all the rest of an echo call's work);
 * `JSON.stringify` writes a small object in one. It takes that path only where it writes
 * exactly what the native module reads from the value itself:
 *
 * - plain objects (the `Object` prototype or none) and arrays, to a bounded depth; a
 *   `Date`, a `Buffer`, a class instance or anything else with a `toJSON` or a prototype
 *   of its own is read property by property, as before;
 * - strings with no lone surrogate (N-API replaces one with U+FFFD, JSON escapes it);
 * - finite numbers, whole ones only as safe integers (larger ones stay floats natively);
 * - no `undefined`, function, symbol or bigint where the native module refuses or
 *   converts one (an `undefined` member of an object is left out by both);
 * - small values: `JSON.stringify` writes long strings slower than N-API copies them.
 */

/** How deeply arrays and objects may nest to travel as text. */
const MAX_DEPTH = 64;
/** How much a value may weigh to travel as text: one per value, plus each string's length. */
const MAX_WEIGHT = 4096;

/** The JSON text of `value`, or `undefined` when the native module should read it itself. */
export function jsonText(value: unknown): string | undefined {
  if (weigh(value, MAX_DEPTH, MAX_WEIGHT) < 0) {
    return undefined;
  }
  const text = JSON.stringify(value);
  // Escaped lone surrogates (`\udXXX`); a false alarm only costs the slower path.
  return text.includes('\\ud') ? undefined : text;
}

/** What is left of `budget` once `value` is weighed; negative when it may not go as text. */
function weigh(value: unknown, depth: number, budget: number): number {
  switch (typeof value) {
    case 'string':
      return budget - 1 - value.length;
    case 'number':
      return Number.isFinite(value) && (Number.isSafeInteger(value) || !Number.isInteger(value)) ? budget - 1 : -1;
    case 'boolean':
      return budget - 1;
    case 'object':
      if (value === null) {
        return budget - 1;
      }
      return depth === 0 ? -1 : Array.isArray(value) ? weighArray(value, depth, budget) : weighObject(value, depth, budget);
    default:
      return -1;
  }
}

function weighArray(items: unknown[], depth: number, budget: number): number {
  if (Object.getPrototypeOf(items) !== Array.prototype) {
    return -1;
  }
  let left = budget - 1;
  for (let i = 0; i < items.length && left >= 0; i++) {
    const item = items[i];
    left = item === undefined ? -1 : weigh(item, depth - 1, left);
  }
  return left;
}

function weighObject(object: object, depth: number, budget: number): number {
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    return -1;
  }
  let left = budget - 1;
  for (const key in object) {
    const item = (object as Record<string, unknown>)[key];
    if (item !== undefined) {
      left = weigh(item, depth - 1, left - key.length);
    }
    if (left < 0) {
      return -1;
    }
  }
  return left;
}
