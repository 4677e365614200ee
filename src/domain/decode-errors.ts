import type * as t from 'io-ts';
import type { ErrorDetail } from './errors.ts';

type Described = {
  _tag?: string;
  name?: string;
  type?: Described;
  types?: Described[];
  keys?: Record<string, unknown>;
  value?: unknown;
};

/** Codecs that validate what they wrap in the same context: a rule is the rule of what they wrap. */
const WRAPPERS = new Set(['ExactType', 'ReadonlyType', 'ClosedType', 'OptionalType']);
const unwrap = (type: Described | undefined): Described | undefined => {
  let current = type;
  while (current && WRAPPERS.has(current._tag ?? '') && current.type) current = current.type;
  return current;
};

const OBJECTS = new Set(['InterfaceType', 'PartialType', 'StrictType', 'IntersectionType', 'DiscriminatedType']);

/** What a value must be, in words: "one of GET, POST", "an integer from 100 to 599". Codecs of
 *  our own are named by their rule (see codecs.ts); io-ts's own are described by their kind. */
export const ruleOf = (codec: t.Decoder<unknown, unknown> | Described | undefined): string => {
  const type = unwrap(codec as Described | undefined);
  switch (type?._tag) {
    case 'KeyofType':
      return `one of ${Object.keys(type.keys ?? {}).join(', ')}`;
    case 'LiteralType':
      return JSON.stringify(type.value);
    case 'StringType':
      return 'a string';
    case 'NumberType':
      return 'a number';
    case 'BooleanType':
      return 'true or false';
    case 'NullType':
      return 'null';
    case 'UnknownRecordType':
      return 'a JSON object';
    case 'ArrayType':
      return `an array (each item ${ruleOf(type.type)})`;
    case 'UnionType':
      return (type.types ?? []).map(ruleOf).join(' or ');
    default:
      if (type && OBJECTS.has(type._tag ?? '')) return 'a JSON object';
      return type?.name ?? 'a valid value';
  }
};

/** Union and intersection members show up in the context under their index; they are not part of
 *  the field path. Such an entry is a member (by identity) of the combinator before it. */
const isMemberEntry = (parent: t.ContextEntry | undefined, entry: t.ContextEntry) => {
  const combinator = unwrap(parent?.type as Described | undefined);
  return (
    (combinator?._tag === 'UnionType' || combinator?._tag === 'IntersectionType') &&
    /^\d+$/.test(entry.key) &&
    (combinator.types ?? []).includes(entry.type as Described)
  );
};

/** io-ts errors → one detail per faulty field path (dot-separated; array indexes included), each
 *  with the rule in words: "is required", "must be one of webhook, webpush", "is not a known
 *  field". `root` names the value itself when it is at fault ("body must be a JSON object"). */
export const describeErrors = (errors: t.Errors, root = '(root)'): ErrorDetail[] => {
  const byPath = new Map<string, string>();
  for (const error of errors) {
    const keys: string[] = [];
    let fieldType = error.context[0]?.type;
    error.context.forEach((entry, i) => {
      if (i === 0 || isMemberEntry(error.context[i - 1], entry)) return;
      keys.push(entry.key);
      fieldType = entry.type;
    });
    const path = keys.join('.') || root;
    if (byPath.has(path)) continue;
    byPath.set(path, error.message ?? (error.value === undefined ? 'is required' : `must be ${ruleOf(fieldType)}`));
  }
  return [...byPath].map(([path, message]) => ({ path, message }));
};
