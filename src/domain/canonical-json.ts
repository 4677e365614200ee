/** JSON with object keys sorted (by UTF-16 code units, as RFC 8785 orders them) and no
 *  whitespace: two values that are equal as JSON give the same text, whatever order their keys
 *  were written in. Numbers and strings are serialised as `JSON.stringify` does, which is what
 *  RFC 8785 prescribes for them; values JSON has no text for (undefined, functions, symbols) are
 *  left out of objects and are null in arrays, as `JSON.stringify` does.
 *
 *  This runs once per record for the Merkle tree (and per keyed ingest, for its fingerprint), so
 *  its speed is theirs. The fast path copies the value with every object's keys in order and lets
 *  one native `JSON.stringify` write it; what cannot be put in order that way (below) is written
 *  field by field. */
export const canonicalJson = (value: unknown): string => {
  try {
    return JSON.stringify(inOrder(value)) ?? 'null';
  } catch (error) {
    if (error !== OUT_OF_REACH) throw error;
    return written(value) ?? 'null';
  }
};

/** Thrown by `inOrder` for what only the field-by-field writer handles: objects with integer-like
 *  keys ("9" and "10" are always listed first, in numeric order, so no object can hold them in
 *  code-unit order) and objects with their own `toJSON`. */
const OUT_OF_REACH = Symbol("out of the fast path's reach");

/** For one list of keys in their given order: the same keys sorted, and an empty object with
 *  them in that order (from JSON.parse, whose objects V8 lays out as it reads fastest) whose
 *  copies are filled in; null when the sorted keys cannot keep their order in an object. An
 *  object filled key by key from nothing would cost `JSON.stringify` its fast path. */
interface Layout {
  readonly sorted: readonly string[];
  readonly blank: Readonly<Record<string, null>> | null;
}

/** Layouts by their first key, then by all their keys (compared, not joined: no string built per
 *  object). Records come in a few shapes; bounded all the same, so that a stream of ever-new
 *  shapes keeps memory flat (then each new shape is sorted anew). */
const layouts = new Map<string, Array<{ keys: readonly string[]; layout: Layout }>>();
const MAX_LAYOUTS = 2048;
let layoutCount = 0;

const sameList = (a: readonly string[], b: readonly string[]): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
};

const layoutOf = (keys: string[]): Layout => {
  const known = layouts.get(keys[0]!);
  if (known !== undefined) for (const entry of known) if (sameList(entry.keys, keys)) return entry.layout;
  const sorted = keys.slice().sort();
  const blank = JSON.parse(`{${sorted.map((key) => `${JSON.stringify(key)}:null`).join(',')}}`) as Record<string, null>;
  const layout = { sorted, blank: sameList(Object.keys(blank), sorted) ? blank : null };
  if (layoutCount < MAX_LAYOUTS) {
    layoutCount += 1;
    if (known === undefined) layouts.set(keys[0]!, [{ keys, layout }]);
    else known.push({ keys, layout });
  }
  return layout;
};

const isStructure = (value: unknown): value is object => value !== null && typeof value === 'object';

/** The value with every object's keys in code-unit order: objects out of order are copied (into
 *  their layout's blank), objects and arrays holding such a copy are copied, the rest is shared. */
const inOrder = (value: unknown): unknown => {
  if (!isStructure(value)) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      const ordered = isStructure(item) ? inOrder(item) : item;
      if (ordered !== item) {
        copy ??= value.slice();
        copy[i] = ordered;
      }
    }
    return copy ?? value;
  }
  const object = value as Record<string, unknown>;
  if (typeof object.toJSON === 'function') throw OUT_OF_REACH;
  const keys = Object.keys(object);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i += 1) sorted = keys[i - 1]! < keys[i]!;
  if (sorted) {
    let copy: Record<string, unknown> | null = null;
    for (const key of keys) {
      const item = object[key];
      const ordered = isStructure(item) ? inOrder(item) : item;
      if (ordered !== item) {
        copy ??= { ...object };
        copy[key] = ordered;
      }
    }
    return copy ?? value;
  }
  const layout = layoutOf(keys);
  if (layout.blank === null) throw OUT_OF_REACH;
  // Setting an own "__proto__" key (the blank has it as data, as JSON.parse defines it) sets
  // that key, not the prototype.
  const copy: Record<string, unknown> = { ...layout.blank };
  for (const key of layout.sorted) {
    const item = object[key];
    copy[key] = isStructure(item) ? inOrder(item) : item;
  }
  return copy;
};

const written = (value: unknown): string | undefined => {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
        return written((value as { toJSON: () => unknown }).toJSON());
      if (Array.isArray(value)) {
        let text = '[';
        for (let i = 0; i < value.length; i += 1) text += `${i > 0 ? ',' : ''}${written(value[i]) ?? 'null'}`;
        return `${text}]`;
      }
      if (value instanceof Number || value instanceof String || value instanceof Boolean) return JSON.stringify(value);
      return writtenObject(value as Record<string, unknown>);
    case 'bigint':
      // As JSON.stringify: a TypeError.
      return JSON.stringify(value);
    default:
      return undefined;
  }
};

const writtenObject = (record: Record<string, unknown>): string => {
  const keys = Object.keys(record).sort();
  let text = '{';
  let first = true;
  for (const key of keys) {
    const field = written(record[key]);
    if (field === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${field}`;
    first = false;
  }
  return `${text}}`;
};
