import type * as t from 'io-ts';

/** The API's description (`GET /v1/openapi.json`) is generated from the codecs the server decodes
 *  with. io-ts's own combinators (t.type, t.union, t.keyof…) can be read as they are; a codec of
 *  our own (`new t.Type(…)`, a refinement) keeps its rule in code, so it says here what that rule
 *  is in JSON Schema terms. The walker (src/http/openapi/schema.ts) refuses a codec it cannot
 *  read and that says nothing, so no rule goes undescribed. */

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';

/** The JSON Schema 2020-12 keywords (OpenAPI 3.1's dialect) the API's description uses. */
export interface JsonSchema {
  type?: JsonType | JsonType[];
  format?: string;
  contentEncoding?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  multipleOf?: number;
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  title?: string;
  description?: string;
  examples?: unknown[];
}

/** What a codec stands for: `schema`, laid over the schema of `base` when there is one (a
 *  bounded array is the schema of `t.array(item)` plus `maxItems`). */
export interface SchemaNote {
  readonly schema: JsonSchema;
  readonly base?: t.Mixed;
}

/** Gives `codec` its JSON Schema; returns the codec itself, so a factory can end with it. The
 *  note is set on the codec, so it must be one of our own: io-ts's combinators describe
 *  themselves, and its `t.string` is shared by everyone. */
export const withSchema = <C extends t.Any>(
  codec: C,
  schema: JsonSchema,
  base?: t.Mixed,
): C & { readonly jsonSchema: SchemaNote } => {
  const tag = (codec as { _tag?: string })._tag;
  if (tag !== undefined && tag !== 'RefinementType')
    throw new Error(`withSchema: ${codec.name} is an io-ts ${tag}, which describes itself; note a codec of your own`);
  return Object.assign(codec, { jsonSchema: base === undefined ? { schema } : { schema, base } });
};

export const schemaNoteOf = (codec: t.Any): SchemaNote | undefined => (codec as { jsonSchema?: SchemaNote }).jsonSchema;
