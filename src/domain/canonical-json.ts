/** JSON with object keys sorted (by UTF-16 code units, as RFC 8785 orders them) and no
 *  whitespace: two values that are equal as JSON give the same text, whatever order their keys
 *  were written in. Numbers and strings are serialised as `JSON.stringify` does, which is what
 *  RFC 8785 prescribes for them. */
export const canonicalJson = (value: unknown): string => {
  try {
    return JSON.stringify(value, sortKeys) ?? 'null';
  } catch (error) {
    if (error !== INTEGER_KEYS) throw error;
    return written(value);
  }
};

/** Thrown by the replacer at an object with a key such as "9" or "10": JavaScript lists those
 *  first, in numeric order, in every object, so no copy can hold them in RFC 8785's order ("10"
 *  before "9"); such a value is written by hand instead. */
const INTEGER_KEYS = new Error('integer-like keys');

const isIndexLike = (key: string): boolean => {
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57 && /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
};

/** The replacer: an object whose keys are not in order is replaced by a copy with its keys in
 *  order (most already are, and are passed through as they are). */
function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  let ordered = true;
  for (let i = 0; i < keys.length; i += 1) {
    if (isIndexLike(keys[i]!)) throw INTEGER_KEYS;
    if (i > 0 && ordered) ordered = keys[i - 1]! < keys[i]!;
  }
  if (ordered) return value;
  const copy: Record<string, unknown> = {};
  for (const key of keys.sort()) {
    // An own `__proto__` key stays data: plain assignment would set the copy's prototype.
    Object.defineProperty(copy, key, { value: (value as Record<string, unknown>)[key], enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** The slow path: the same text, written field by field. */
const written = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') return written((json as () => unknown).call(value));
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined || typeof item === 'function' ? 'null' : written(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const field = record[key];
    if (field !== undefined && typeof field !== 'function') fields.push(`${JSON.stringify(key)}:${written(field)}`);
  }
  return `{${fields.join(',')}}`;
};
