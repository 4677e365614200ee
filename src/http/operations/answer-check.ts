import type * as t from 'io-ts';
import type { ErrorDetail } from '../../domain/errors.ts';
import { describeErrors } from '../../domain/decode-errors.ts';

/** What is wrong with an answer for its codec: each value its codec refuses, and each field no
 *  codec on its path declares (io-ts's own objects let other keys through; an answer that sends
 *  a field its declaration does not name has drifted from it). Tests and development run it on
 *  every JSON answer before it leaves (`mount`). */
export const answerProblems = (codec: t.Mixed, value: unknown): ErrorDetail[] => {
  const decoded = codec.decode(value);
  if (decoded._tag === 'Left') return describeErrors(decoded.left, 'body');
  const extra: ErrorDetail[] = [];
  undeclared(codec, value, [], extra);
  return extra;
};

interface Readable {
  readonly _tag?: string;
  readonly type?: t.Mixed;
  readonly types?: readonly t.Mixed[];
  readonly props?: t.Props;
  readonly codomain?: t.Mixed;
  readonly variants?: Record<string, t.Mixed>;
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/** The object codecs that apply to `value` at this level: through wrappers, every member of an
 *  intersection, the members of a union that accept it; null when the codec is no object of
 *  fixed keys (a record, our own `t.Type`s), whose keys are its own business. */
const objectsAt = (codec: t.Mixed, value: unknown): t.Props[] | null => {
  const c = codec as unknown as Readable;
  switch (c._tag) {
    case 'InterfaceType':
    case 'PartialType':
    case 'StrictType':
      return [c.props ?? {}];
    case 'ExactType':
    case 'ReadonlyType':
    case 'ClosedType':
    case 'OptionalType':
      return objectsAt(c.type!, value);
    case 'IntersectionType': {
      const members = (c.types ?? []).map((m) => objectsAt(m, value));
      return members.some((m) => m === null) ? null : members.flatMap((m) => m!);
    }
    case 'UnionType':
    case 'DiscriminatedType': {
      const variants = c._tag === 'UnionType' ? (c.types ?? []) : Object.values(c.variants ?? {});
      const matching = variants.filter((v) => v.is(value) || v.decode(value)._tag === 'Right');
      const members = matching.map((m) => objectsAt(m, value));
      return matching.length === 0 || members.some((m) => m === null) ? null : members.flatMap((m) => m!);
    }
    default:
      return null;
  }
};

/** The codec of each item, for arrays (through wrappers and unions of one array). */
const itemsOf = (codec: t.Mixed): t.Mixed | null => {
  const c = codec as unknown as Readable;
  if (c._tag === 'ArrayType' || c._tag === 'ReadonlyArrayType') return c.type!;
  if (c._tag === 'ExactType' || c._tag === 'ReadonlyType' || c._tag === 'OptionalType') return itemsOf(c.type!);
  if (c._tag === 'UnionType') {
    const arrays = (c.types ?? []).map(itemsOf).filter((i): i is t.Mixed => i !== null);
    return arrays.length === 1 ? arrays[0]! : null;
  }
  return null;
};

const undeclared = (codec: t.Mixed, value: unknown, path: string[], out: ErrorDetail[]): void => {
  if (Array.isArray(value)) {
    const items = itemsOf(codec);
    if (items) {
      for (const [i, item] of value.entries()) undeclared(items, item, [...path, String(i)], out);
    }
    return;
  }
  if (!isRecord(value)) return;
  const objects = objectsAt(codec, value);
  if (objects === null) {
    const c = codec as unknown as Readable;
    if (c._tag === 'DictionaryType')
      for (const [k, v] of Object.entries(value)) undeclared(c.codomain!, v, [...path, k], out);
    return;
  }
  for (const [key, field] of Object.entries(value)) {
    const declared = objects.flatMap((props) => (Object.hasOwn(props, key) ? [props[key]!] : []));
    if (declared.length === 0)
      out.push({ path: [...path, key].join('.'), message: "is not declared by the answer's codec" });
    else for (const fieldCodec of declared) undeclared(fieldCodec, field, [...path, key], out);
  }
};
