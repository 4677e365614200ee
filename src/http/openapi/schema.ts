import type * as t from 'io-ts';
import { schemaNoteOf, type JsonSchema, type JsonType } from '../../domain/json-schema.ts';

/** io-ts codecs → JSON Schema 2020-12 (OpenAPI 3.1's dialect), by walking their runtime
 *  structure: the API's description is generated from the codecs the server decodes with, so a
 *  field added to a codec is in the description too. Pure: no I/O, no state. */

export interface SchemaOptions {
  /** Codecs described once, under `components.schemas[name]`, and referred to by `$ref`. A
   *  recursive codec must be one of them. */
  readonly named?: ReadonlyMap<t.Mixed, string>;
}

/** What a codec shows of itself at run time; io-ts gives each combinator a `_tag`, and codecs.ts
 *  gives its own (`closed`, `discriminated`) and audit-event.ts `optional` one too. */
interface Readable {
  readonly _tag?: string;
  readonly name: string;
  readonly type?: t.Mixed;
  readonly types?: readonly t.Mixed[];
  readonly props?: t.Props;
  readonly keys?: Record<string, unknown>;
  readonly value?: unknown;
  readonly domain?: t.Mixed;
  readonly codomain?: t.Mixed;
  readonly variants?: Record<string, t.Mixed>;
}

const refTo = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The schema of `codec`. `inline`: describe it even when it is named (a component's own
 *  definition). Throws on a codec whose rule it cannot read and that has no `withSchema` note. */
export const jsonSchemaOf = (codec: t.Mixed, options: SchemaOptions = {}, inline = false): JsonSchema => {
  const name = options.named?.get(codec);
  if (name !== undefined && !inline) return refTo(name);
  const note = schemaNoteOf(codec);
  // Codecs of our own are named by their rule in words ("an integer from 1 to 100").
  if (note !== undefined)
    return { ...(note.base ? jsonSchemaOf(note.base, options) : {}), ...note.schema, description: codec.name };
  const walk = (inner: t.Mixed) => jsonSchemaOf(inner, options);
  const c = codec as unknown as Readable;
  switch (c._tag) {
    case 'StringType':
      return { type: 'string' };
    case 'NumberType':
      return { type: 'number' };
    case 'BooleanType':
      return { type: 'boolean' };
    case 'NullType':
      return { type: 'null' };
    case 'UnknownType':
    case 'AnyType':
      return {};
    case 'AnyDictionaryType':
    case 'ObjectType':
      return { type: 'object' };
    case 'AnyArrayType':
      return { type: 'array' };
    case 'LiteralType':
      return literal(c.value);
    case 'KeyofType':
      return { type: 'string', enum: Object.keys(c.keys ?? {}) };
    case 'ArrayType':
    case 'ReadonlyArrayType':
      return { type: 'array', items: walk(c.type!) };
    case 'TupleType': {
      const items = (c.types ?? []).map(walk);
      return { type: 'array', prefixItems: items, minItems: items.length, maxItems: items.length };
    }
    case 'InterfaceType':
    case 'StrictType':
      return object(c.props ?? {}, true, options);
    case 'PartialType':
      return object(c.props ?? {}, false, options);
    case 'ExactType':
    case 'ReadonlyType':
      return walk(c.type!);
    case 'ClosedType':
      return closeAll(walk(c.type!));
    case 'OptionalType':
      return union([walk(c.type!), { type: 'null' }]);
    case 'IntersectionType':
      return (c.types ?? []).map((m) => jsonSchemaOf(m, options, true)).reduce(merge);
    // `undefined` in a union makes a field optional (see `object`); JSON has no such value.
    case 'UnionType':
      return union((c.types ?? []).filter((m) => !ABSENT.has((m as unknown as Readable)._tag ?? '')).map(walk));
    case 'DiscriminatedType':
      return { oneOf: Object.values(c.variants ?? {}).map(walk) };
    case 'DictionaryType':
      return record(c.domain!, c.codomain!, options);
    case 'RefinementType':
      if (c.name === 'Int') return { type: 'integer' };
      break;
    case 'RecursiveType':
      if (name === undefined)
        throw new Error(
          `jsonSchemaOf: the recursive codec ${c.name} must be named (SchemaOptions.named), so that it can ` +
            `refer to itself`,
        );
      return jsonSchemaOf(c.type!, options, true);
  }
  throw new Error(
    `jsonSchemaOf: ${c.name} (${c._tag ?? 'a t.Type of its own'}) does not say what it accepts: give ` +
      `it a JSON Schema with withSchema() from src/domain/json-schema.ts`,
  );
};

const ABSENT = new Set(['UndefinedType', 'VoidType']);

const literal = (value: unknown): JsonSchema => {
  const type: JsonType =
    value === null
      ? 'null'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : (typeof value as JsonType);
  return { type, const: value };
};

/** Other keys are not refused: `closed` codecs refuse them (see `closeAll`); `t.exact` drops
 *  them, and answers may gain fields that clients should ignore. */
const object = (props: t.Props, required: boolean, options: SchemaOptions): JsonSchema => {
  // A field whose codec takes `undefined` (audit-event.ts's `optional`) may be left out.
  const mandatory = required ? Object.keys(props).filter((key) => !props[key]!.is(undefined)) : [];
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(props).map(([key, codec]) => [key, jsonSchemaOf(codec, options)])),
    ...(mandatory.length > 0 ? { required: mandatory } : {}),
  };
};

const record = (domain: t.Mixed, codomain: t.Mixed, options: SchemaOptions): JsonSchema => {
  const d = domain as unknown as Readable;
  if (d._tag === 'KeyofType') {
    // A record over known keys is an object with each of them (io-ts requires every one).
    const props = Object.fromEntries(Object.keys(d.keys ?? {}).map((key) => [key, codomain]));
    return object(props, true, options);
  }
  if (d._tag === 'StringType') return { type: 'object', additionalProperties: jsonSchemaOf(codomain, options) };
  throw new Error(`jsonSchemaOf: a record keyed by ${d.name} cannot be described: key it by t.string or a t.keyof`);
};

/** A schema of exactly one value, or of a few (`const`, `enum`), as an enum. */
const valuesOf = (s: JsonSchema): unknown[] | null => {
  const { type: _type, description: _description, ...rest } = s;
  const keys = Object.keys(rest);
  if (keys.length === 1 && keys[0] === 'const') return [s.const];
  if (keys.length === 1 && keys[0] === 'enum') return s.enum ?? null;
  if (keys.length === 0 && s.type === 'null') return [null];
  return null;
};

const typesOf = (s: JsonSchema): JsonType[] => (s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type]);

/** Literals and keyofs together become one enum; a schema or null becomes a nullable type
 *  (what a renderer shows as "string | null"); anything else an anyOf. */
const union = (members: JsonSchema[]): JsonSchema => {
  if (members.length === 1) return members[0]!;
  const values = members.map(valuesOf);
  if (values.every((v) => v !== null)) {
    const types = [...new Set(members.flatMap(typesOf))];
    return { ...(types.length > 0 ? { type: types.length === 1 ? types[0]! : types } : {}), enum: values.flat() };
  }
  const nonNull = members.filter((m) => !(m.type === 'null' && valuesOf(m) !== null));
  const [only] = nonNull;
  if (nonNull.length === 1 && only!.type !== undefined && only!.$ref === undefined) {
    return { ...only!, type: [...new Set([...typesOf(only!), 'null' as const])] };
  }
  return { anyOf: members };
};

const isPlainObject = (s: JsonSchema) => s.type === 'object' && s.properties !== undefined && s.$ref === undefined;

/** The members of an intersection as one schema: objects are merged into one, and an object
 *  with a union is distributed over the union's members. An `allOf` of objects would do for
 *  validation, but one object is what a reader, a client generator and a check that refuses
 *  undocumented keys (test/helpers/openapi.ts) need: `additionalProperties: false` on one member
 *  of an `allOf` refuses the other members' keys. */
const merge = (a: JsonSchema, b: JsonSchema): JsonSchema => {
  if (isPlainObject(a) && isPlainObject(b)) {
    const properties: Record<string, JsonSchema> = { ...a.properties };
    for (const [key, schema] of Object.entries(b.properties!))
      properties[key] = properties[key] ? { allOf: [properties[key], schema] } : schema;
    const required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
    return {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      ...(a.additionalProperties === false && b.additionalProperties === false ? { additionalProperties: false } : {}),
    };
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (a[key]) return { [key]: a[key].map((m) => merge(m, b)) };
    if (b[key]) return { [key]: b[key].map((m) => merge(a, m)) };
  }
  return { allOf: [a, b] };
};

/** `closed`: no keys but the codec's, through unions and merged intersections. */
const closeAll = (s: JsonSchema): JsonSchema => {
  if (isPlainObject(s)) return { ...s, additionalProperties: false };
  if (s.anyOf) return { ...s, anyOf: s.anyOf.map(closeAll) };
  if (s.oneOf) return { ...s, oneOf: s.oneOf.map(closeAll) };
  return s;
};
