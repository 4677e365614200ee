/** JSON with object keys sorted (by UTF-16 code units, as RFC 8785 orders them) and no
 *  whitespace: two values that are equal as JSON give the same text, whatever order their keys
 *  were written in. Numbers and strings are serialised as `JSON.stringify` does, which is what
 *  RFC 8785 prescribes for them. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const field = record[key];
    if (field !== undefined) fields.push(`${JSON.stringify(key)}:${canonicalJson(field)}`);
  }
  return `{${fields.join(',')}}`;
};
