/** RFC 8785 (JSON Canonicalization Scheme) for values that came out of JSON.parse, and the leaf
 *  bytes of a record (docs/auditors.md). Written apart from the server's canonical JSON on
 *  purpose: the verifier must not share a bug with what it checks. */

/** Thrown when an object's sorted keys cannot be laid out as an object (see `shapeOf`). */
const NEEDS_SLOW_PATH = Symbol('needs the slow path');

/** How objects of one shape (the same keys in the same order) are put in order: their keys
 *  sorted, and an object with those keys in that order, to copy. A stream's records have a few
 *  shapes, so each is sorted once. The template comes from JSON.parse, which lays out objects
 *  the way V8 reads fastest; a copy of it keeps that layout while it is filled, and
 *  JSON.stringify then takes its fast path (an object built key by key would not). */
interface Shape {
  readonly keys: readonly string[];
  readonly sortedKeys: readonly string[];
  /** null when no object can hold the keys in code-unit order: integer-like keys ("9", "10")
   *  always enumerate first, in numeric order, whatever order they are added in. */
  readonly template: Readonly<Record<string, unknown>> | null;
}

/** Shapes by first key. Bounded, so that a stream of ever new shapes keeps memory flat. */
const shapes = new Map<string, Shape[]>();
const MAX_SHAPES = 1024;
const MAX_CACHED_KEYS = 256;
let cachedShapes = 0;

const sameKeys = (a: readonly string[], b: readonly string[]) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
};

const shapeOf = (keys: string[]): Shape => {
  const candidates = shapes.get(keys[0]!);
  if (candidates) for (const shape of candidates) if (sameKeys(shape.keys, keys)) return shape;
  const sortedKeys = [...keys].sort();
  // JSON.parse defines "__proto__" as an own key like any other.
  const template = JSON.parse(`{${sortedKeys.map((key) => `${JSON.stringify(key)}:null`).join(',')}}`) as Record<
    string,
    unknown
  >;
  const shape = { keys, sortedKeys, template: sameKeys(Object.keys(template), sortedKeys) ? template : null };
  if (cachedShapes < MAX_SHAPES && keys.length <= MAX_CACHED_KEYS) {
    cachedShapes += 1;
    shapes.set(keys[0]!, [...(candidates ?? []), shape]);
  }
  return shape;
};

/** The value with the keys of every object in code-unit order (JavaScript's `<` and default sort
 *  compare exactly that). Nothing is changed in place: what is in order already is returned as
 *  it is, and only objects out of order (and arrays or objects holding one) are copied. A plain
 *  JSON.stringify of the result is then the canonical text, without a replacer to call per
 *  value. */
const sorted = (value: unknown): unknown => {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      const itemSorted = item !== null && typeof item === 'object' ? sorted(item) : item;
      if (itemSorted !== item) {
        copy ??= value.slice();
        copy[i] = itemSorted;
      }
    }
    return copy ?? value;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  let ordered = true;
  for (let i = 1; i < keys.length; i += 1) {
    if (!(keys[i - 1]! < keys[i]!)) {
      ordered = false;
      break;
    }
  }
  if (!ordered) {
    const { sortedKeys, template } = shapeOf(keys);
    if (template === null) throw NEEDS_SLOW_PATH;
    // Assigning to an own "__proto__" key sets that key, not the prototype.
    const copy: Record<string, unknown> = { ...template };
    for (const key of sortedKeys) {
      const item = object[key];
      copy[key] = item !== null && typeof item === 'object' ? sorted(item) : item;
    }
    return copy;
  }
  let copy: Record<string, unknown> | null = null;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const item = object[key];
    const itemSorted = item !== null && typeof item === 'object' ? sorted(item) : item;
    if (copy === null && itemSorted !== item) {
      copy = { ...object };
    }
    if (copy !== null) copy[key] = itemSorted;
  }
  return copy ?? value;
};

/** The slow path: every object's members written by hand, in code-unit order. */
const writeSlowly = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : writeSlowly(item))).join(',')}]`;
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) members.push(`${JSON.stringify(key)}:${writeSlowly(item)}`);
  }
  return `{${members.join(',')}}`;
};

/** The canonical JSON text of a JSON value (what JSON.parse gives): keys sorted by UTF-16 code
 *  units at every depth, no whitespace, strings and numbers as JSON.stringify writes them. */
export const canonicalJson = (value: unknown): string => {
  try {
    return JSON.stringify(sorted(value)) ?? 'null';
  } catch (error) {
    if (error !== NEEDS_SLOW_PATH) throw error;
    return writeSlowly(value);
  }
};

/** The fields of a record that make its leaf: position-independent, so that the embedded log
 *  and KurrentDB give the same tree. */
export interface RecordFields {
  readonly data?: unknown;
  readonly id?: unknown;
  readonly metadata?: unknown;
  readonly revision?: unknown;
  readonly stream?: unknown;
  readonly type?: unknown;
}

/** The leaf text of a record: the canonical JSON of {data, id, metadata, revision, stream, type}
 *  (UTF-8 encoding it gives the leaf bytes). A field the record lacks is left out, as
 *  JSON.stringify leaves out undefined, so the hash then fails to match rather than the read. */
export const leafText = (r: RecordFields): string =>
  canonicalJson({ data: r.data, id: r.id, metadata: r.metadata, revision: r.revision, stream: r.stream, type: r.type });
