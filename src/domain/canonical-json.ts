/** JSON with object keys sorted (by UTF-16 code units, as RFC 8785 orders them) and no
 *  whitespace: two values that are equal as JSON give the same text, whatever order their keys
 *  were written in. Numbers and strings are serialised as `JSON.stringify` does, which is what
 *  RFC 8785 prescribes for them; values JSON has no text for (undefined, functions, symbols) are
 *  left out of objects and are null in arrays, as `JSON.stringify` does.
 *
 *  Written field by field: a replacer would have to hand back copies with their keys in order,
 *  which JavaScript cannot even make when keys look like integers ("9" and "10" are always listed
 *  first, in numeric order), and JSON.stringify with a list of keys takes its slow path. This runs
 *  once per record for the Merkle tree, so its speed is the tree's. */
export const canonicalJson = (value: unknown): string => written(value) ?? 'null';

const written = (value: unknown): string | undefined => {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return written((value as { toJSON: () => unknown }).toJSON());
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
