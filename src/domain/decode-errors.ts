import type * as t from 'io-ts';
import type { ErrorDetail } from './errors.ts';

type Tagged = { _tag?: string; type?: Tagged };
const isCombinator = (type: Tagged | undefined) => type?._tag === 'UnionType' || type?._tag === 'IntersectionType';

/** Union and intersection members show up in the context under their index; they are not
 *  part of the field path (an exact codec passes its context through to what it wraps). */
const isSkippedKey = (parent: t.Context[number] | undefined) => {
  const type = parent?.type as Tagged | undefined;
  return isCombinator(type) || (type?._tag === 'ExactType' && isCombinator(type.type));
};

/** io-ts errors → one detail per faulty field path (dot-separated; array indexes included). */
export const describeErrors = (errors: t.Errors): ErrorDetail[] => {
  const byPath = new Map<string, string>();
  for (const error of errors) {
    const keys: string[] = [];
    let fieldType = error.context[0]?.type;
    error.context.forEach((entry, i) => {
      if (i === 0 || isSkippedKey(error.context[i - 1])) return;
      keys.push(entry.key);
      fieldType = entry.type;
    });
    const path = keys.join('.') || '(root)';
    if (byPath.has(path)) continue;
    byPath.set(path, error.value === undefined ? 'is required' : `expected ${fieldType?.name ?? 'a valid value'}`);
  }
  return [...byPath].map(([path, message]) => ({ path, message }));
};
