/** JSON with object keys sorted (by UTF-16 code units, as RFC 8785 orders them) and no
 *  whitespace: two values that are equal as JSON give the same text, whatever order their keys
 *  were written in. Numbers and strings are serialised as `JSON.stringify` does, which is what
 *  RFC 8785 prescribes for them. */
export const canonicalJson = (value: unknown): string => JSON.stringify(value, sortKeys) ?? 'null';

/** The replacer: an object whose keys are not in order is replaced by a copy with its keys in
 *  order (most already are, and are passed through as they are). */
function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  let ordered = true;
  for (let i = 1; i < keys.length && ordered; i += 1) ordered = keys[i - 1]! < keys[i]!;
  if (ordered) return value;
  const copy: Record<string, unknown> = {};
  for (const key of keys.sort()) {
    // An own `__proto__` key stays data: plain assignment would set the copy's prototype.
    Object.defineProperty(copy, key, { value: (value as Record<string, unknown>)[key], enumerable: true, writable: true, configurable: true });
  }
  return copy;
}
