import { MASK, define, isSecretKey, maskCardNumbers, maskObject } from '@watchlog/masking';
import type { JsonObject } from './event.ts';

/** What replaces a body (or parameter object) that cannot be sent as it is: the event still
 *  arrives, and says why its object is missing. */
export const OMITTED_KEY = '_watchlog_omitted';

/** The batch nests events one level inside the array, and the server refuses a request body
 *  deeper than 32 levels as a whole (`too_deep`): an object past this depth would take every
 *  other event of its batch down with it. */
export const MAX_OBJECT_DEPTH = 20;

const isPlainObject = (value: unknown): value is JsonObject => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

const deeperThan = (value: unknown, limit: number): boolean => {
  if (typeof value !== 'object' || value === null) return false;
  if (limit === 0) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    if (deeperThan(child, limit - 1)) return true;
  }
  return false;
};

/** The JSON size of what was captured, added up per event (for the batch's flush by bytes). */
export interface Size {
  bytes: number;
}

/** What a marker weighs, near enough. */
const MARKER_BYTES = 64;

/** A masked, JSON-clean copy of `value` when it is a plain object whose JSON fits `maxBytes`;
 *  a marker object when it is too large, too deep or not serialisable; undefined when it is not
 *  an object at all (arrays, strings, buffers and streams are never sent). The size is that of
 *  the JSON before masking; it is added to `size`. */
export const captureObject = (value: unknown, maxBytes: number, size: Size): JsonObject | undefined => {
  if (!isPlainObject(value)) return undefined;
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    size.bytes += MARKER_BYTES;
    return { [OMITTED_KEY]: 'not_serializable' };
  }
  const bytes = Buffer.byteLength(json);
  if (bytes > maxBytes) {
    size.bytes += MARKER_BYTES;
    return { [OMITTED_KEY]: 'too_large', bytes, limit: maxBytes };
  }
  // Round-tripping through JSON applies toJSON, drops functions and undefined, and turns a Date
  // into the string the server would store anyway.
  const clean = JSON.parse(json) as JsonObject;
  if (deeperThan(clean, MAX_OBJECT_DEPTH)) {
    size.bytes += MARKER_BYTES;
    return { [OMITTED_KEY]: 'too_deep', limit: MAX_OBJECT_DEPTH };
  }
  size.bytes += bytes;
  return maskObject(clean);
};

/** Flat string values, as routers and query parsers give them: masked straight into a plain
 *  copy (no JSON round trip, which would cost more than the rest of the event). Undefined when
 *  a value is anything else, or the strings may be too large. */
const flatStrings = (o: object, maxBytes: number, size: Size): JsonObject | null | undefined => {
  let copy: JsonObject | null = null;
  let chars = 2;
  for (const key of Object.keys(o)) {
    const value = (o as JsonObject)[key];
    if (typeof value !== 'string') return undefined;
    // Quotes, colon and comma.
    chars += key.length + value.length + 6;
    copy ??= {};
    define(copy, key, isSecretKey(key) ? MASK : maskCardNumbers(value));
  }
  // At most 3 UTF-8 bytes per UTF-16 unit: over that, measure exactly.
  if (3 * chars > maxBytes) return undefined;
  if (copy) size.bytes += chars;
  return copy;
};

/** Own enumerable properties copied onto a plain object (`__proto__` kept as data). */
const ownCopy = (o: object): JsonObject | undefined => {
  let copy: JsonObject | undefined;
  for (const key of Object.keys(o)) {
    copy ??= {};
    define(copy, key, (o as JsonObject)[key]);
  }
  return copy;
};

/** Query and path parameters: sent (masked) only when there is at least one. Frameworks hand
 *  them over on objects without Object.prototype (Fastify's have a null-prototype class), so
 *  their own properties are what counts. */
export const captureParams = (value: unknown, maxBytes: number, size: Size): JsonObject | undefined => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const flat = flatStrings(value, maxBytes, size);
  if (flat !== undefined) return flat ?? undefined;
  const copy = ownCopy(value);
  return copy && captureObject(copy, maxBytes, size);
};
