/** A JSONPath subset for monitor assertions (source `json`): parsed by hand, never evaluated as
 *  code, no library. Pure.
 *
 *  A path starts with `$` (the whole document) and continues with segments:
 *  - `.name`: a member of an object; `name` is letters, digits, `_`, `-` and `$`;
 *  - `['name']` or `["name"]`: a member by any name (`\'`, `\"` and `\\` escape);
 *  - `[n]`: an element of an array, counted from 0; a negative `n` counts from the end (`[-1]`
 *    is the last);
 *  - `.*` or `[*]`: every member of an object (in document order) or every element of an array;
 *  - `..name`, `..*`, `..[n]`, `..['name']`: the segment applied to the value and to every
 *    value nested in it, at any depth (recursive descent).
 *  A segment that does not apply (a member of an array, an element of an object, anything of a
 *  string or number, an index out of range) matches nothing. The result is the list of values
 *  matched, in document order; a path without `*` or `..` matches at most one value. Filters,
 *  slices, unions and functions are not supported: such a path is a JsonPathError. */

export class JsonPathError extends Error {}

export type JsonPathSegment =
  | { readonly kind: 'member'; readonly name: string; readonly deep: boolean }
  | { readonly kind: 'index'; readonly index: number; readonly deep: boolean }
  | { readonly kind: 'wildcard'; readonly deep: boolean };

export interface JsonPath {
  readonly segments: readonly JsonPathSegment[];
  /** Whether the path may match several values (a wildcard or a recursive descent). */
  readonly multiple: boolean;
}

const NAME = /^[A-Za-z0-9_$-]+/;
const INDEX = /^-?\d{1,9}\]/;

const fail = (path: string, at: number, what: string): never => {
  throw new JsonPathError(`invalid JSONPath ${JSON.stringify(path)} at character ${at + 1}: ${what}`);
};

/** The quoted name at `text[at]` (a quote), and where the text after its closing quote starts. */
const quoted = (path: string, at: number): { name: string; end: number } => {
  const quote = path[at]!;
  let name = '';
  for (let i = at + 1; i < path.length; i += 1) {
    const c = path[i]!;
    if (c === quote) return { name, end: i + 1 };
    if (c === '\\') {
      const next = path[i + 1];
      if (next !== quote && next !== '\\') fail(path, i, `expected ${quote} or \\ after \\`);
      name += next;
      i += 1;
    } else name += c;
  }
  return fail(path, at, 'unclosed quoted name');
};

/** The segment in brackets starting at `path[at]` (`[`), and where the text after it starts. */
const bracket = (path: string, at: number, deep: boolean): { segment: JsonPathSegment; end: number } => {
  const rest = path.slice(at + 1);
  if (rest.startsWith('*]')) return { segment: { kind: 'wildcard', deep }, end: at + 3 };
  const index = INDEX.exec(rest);
  if (index !== null) {
    const n = Number(index[0].slice(0, -1));
    return { segment: { kind: 'index', index: n, deep }, end: at + 1 + index[0].length };
  }
  if (rest.startsWith("'") || rest.startsWith('"')) {
    const { name, end } = quoted(path, at + 1);
    if (path[end] !== ']') fail(path, end, 'expected ] after the quoted name');
    return { segment: { kind: 'member', name, deep }, end: end + 1 };
  }
  return fail(
    path,
    at + 1,
    'expected a quoted name, a whole number or * in brackets (filters, slices and unions ' + 'are not supported)',
  );
};

/** The path parsed; a JsonPathError saying where and why when it is not in the subset. */
export const parseJsonPath = (path: string): JsonPath => {
  if (!path.startsWith('$')) fail(path, 0, 'a path starts with $');
  const segments: JsonPathSegment[] = [];
  let at = 1;
  while (at < path.length) {
    const c = path[at];
    if (c === '[') {
      const { segment, end } = bracket(path, at, false);
      segments.push(segment);
      at = end;
    } else if (c === '.') {
      const deep = path[at + 1] === '.';
      const start = at + (deep ? 2 : 1);
      if (path[start] === '*') {
        segments.push({ kind: 'wildcard', deep });
        at = start + 1;
      } else if (deep && path[start] === '[') {
        const { segment, end } = bracket(path, start, true);
        segments.push(segment);
        at = end;
      } else {
        const name = NAME.exec(path.slice(start));
        if (name === null) fail(path, start, 'expected a member name, * or (after ..) brackets');
        segments.push({ kind: 'member', name: name![0], deep });
        at = start + name![0].length;
      }
    } else fail(path, at, 'expected . or [');
  }
  return { segments, multiple: segments.some((s) => s.deep || s.kind === 'wildcard') };
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value and every value nested in it, depth first, in document order (without recursion:
 *  a deeply nested document cannot overflow the stack). */
const descendants = (value: unknown): unknown[] => {
  const out: unknown[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    out.push(v);
    const children = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]);
  }
  return out;
};

const step = (value: unknown, segment: JsonPathSegment): unknown[] => {
  switch (segment.kind) {
    case 'wildcard':
      return Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [];
    case 'member':
      return isObject(value) && Object.hasOwn(value, segment.name) ? [value[segment.name]] : [];
    case 'index': {
      if (!Array.isArray(value)) return [];
      const i = segment.index < 0 ? value.length + segment.index : segment.index;
      return i >= 0 && i < value.length ? [value[i]] : [];
    }
  }
};

/** The values `path` matches in `document` (a parsed JSON value), in document order. A string
 *  path is parsed first (a JsonPathError when invalid). */
export const queryJson = (document: unknown, path: string | JsonPath): unknown[] => {
  const parsed = typeof path === 'string' ? parseJsonPath(path) : path;
  let current: unknown[] = [document];
  for (const segment of parsed.segments) {
    const from = segment.deep ? current.flatMap(descendants) : current;
    current = from.flatMap((v) => step(v, segment));
  }
  return current;
};
