import type { JsonSchema } from '../../domain/json-schema.ts';
import type { OpenApiDocument } from './document.ts';

/** TypeScript types of the API from its description: each named schema as a type, and each
 *  operation's path parameters, query, body and answers, keyed `METHOD /path/:param`. The
 *  dashboard's client is typed by them (web/src/api/operations.gen.ts, written by
 *  scripts/api-types.ts), so a field renamed in a codec fails `tsc` in web/. Pure: the same
 *  description gives the same text. */

const WIDTH = 120;
const INDENT = '  ';

/** A type after a colon or `=`: on the same line, or from the next one when it is a union of lines. */
const spaced = (type: string) => (type.startsWith('\n') ? type : ` ${type}`);

const quote = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name.replace(/'/g, "\\'")}'`);
const literal = (value: unknown) =>
  typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(value);

const refName = (ref: string) => {
  const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
  if (name === undefined) throw new Error(`typescript: cannot follow ${ref}`);
  return name;
};

/** A union, on one line when it fits, else one member a line (each member's own lines indented
 *  under its bar). */
const union = (given: JsonSchema[] | string[], indent: string): string => {
  // A member that is itself a union (a nullable choice of objects) joins this one.
  const members = (given as Array<JsonSchema | string>).flatMap((m) =>
    typeof m !== 'string' && (m.anyOf ?? m.oneOf) && Object.keys(m).every((k) => NAMING.has(k))
      ? (m.anyOf ?? m.oneOf)!
      : [m],
  );
  const render = (at: string) => [...new Set(members.map((m) => (typeof m === 'string' ? m : typeOf(m, at))))];
  const flat = render(indent);
  if (flat.length === 0) return 'never';
  const line = flat.join(' | ');
  if (line.length + indent.length <= WIDTH - 20 && !line.includes('\n')) return line;
  return render(indent + INDENT + INDENT)
    .map((m) => `\n${indent}${INDENT}| ${m}`)
    .join('');
};

/** Keys that add no constraint: a schema with only these and a union is that union. */
const NAMING = new Set(['anyOf', 'oneOf', 'description', 'title', 'examples']);

const SCALARS: Record<string, string> = {
  string: 'string',
  number: 'number',
  integer: 'number',
  boolean: 'boolean',
  null: 'null',
};

/** The type of `schema`, at `indent` (for objects over several lines). */
export const typeOf = (schema: JsonSchema, indent = ''): string => {
  if (schema.$ref !== undefined) return refName(schema.$ref);
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum !== undefined) return union(schema.enum.map(literal), indent);
  if (schema.anyOf ?? schema.oneOf) return union((schema.anyOf ?? schema.oneOf)!, indent);
  if (schema.allOf) return schema.allOf.map((m) => typeOf(m, indent)).join(' & ');
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 1)
    return union(
      types.map((type) => ({ ...schema, type })),
      indent,
    );
  switch (types[0]) {
    case 'array':
      if (schema.prefixItems) return `[${schema.prefixItems.map((m) => typeOf(m, indent)).join(', ')}]`;
      return `Array<${schema.items ? typeOf(schema.items, indent) : 'unknown'}>`;
    case 'object':
      return objectType(schema, indent);
    case undefined:
      return 'unknown';
    default:
      return SCALARS[types[0]]!;
  }
};

const objectType = (schema: JsonSchema, indent: string): string => {
  const properties = Object.entries(schema.properties ?? {});
  const extra = schema.additionalProperties;
  if (properties.length === 0) {
    if (extra !== undefined && typeof extra === 'object') {
      const value = typeOf(extra, indent + INDENT);
      return value.includes('\n')
        ? `{\n${indent}${INDENT}[key: string]:${spaced(value)};\n${indent}}`
        : `Record<string, ${value}>`;
    }
    return extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
  }
  const required = new Set(schema.required ?? []);
  const inner = indent + INDENT;
  const lines = properties.map(
    ([name, s]) => `${inner}${quote(name)}${required.has(name) ? '' : '?'}:${spaced(typeOf(s, inner))};`,
  );
  if (extra !== undefined && typeof extra === 'object') lines.push(`${inner}[key: string]: ${typeOf(extra, inner)};`);
  return `{\n${lines.join('\n')}\n${indent}}`;
};

interface ParameterObject {
  name: string;
  in: string;
  required: boolean;
  schema: JsonSchema;
}

/** The generated module's text. */
/** A value of the server's the dashboard needs too (a limit it words before the server refuses). */
export interface SharedConstant {
  readonly name: string;
  readonly value: number;
  readonly description: string;
}

export const clientTypes = (doc: OpenApiDocument, constants: readonly SharedConstant[] = []): string => {
  const out: string[] = [
    "// Generated from the server's operation table (src/http/operations/) by `npm run api-types`, which",
    '// `npm run build` runs; a test fails when it is not current. Do not edit.',
    '',
  ];
  for (const { name, value, description } of constants) {
    out.push(`/** ${description} */`, `export const ${name} = ${JSON.stringify(value)};`, '');
  }
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    if (schema.description) out.push(`/** ${schema.description} */`);
    const type = typeOf(schema);
    out.push(`export type ${name} =${type.startsWith('\n') ? '' : ' '}${type};`, '');
  }
  out.push('/** Every operation: its path parameters, query, body, and the body of each of its answers. */');
  out.push('export interface Operations {');
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const key = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
      const parameters = (op.parameters ?? []) as ParameterObject[];
      const group = (where: string) => {
        const ps = parameters.filter((p) => p.in === where);
        if (ps.length === 0) return 'Record<string, never>';
        const inner = INDENT.repeat(3);
        const lines = ps.map(
          (p) => `${inner}${quote(p.name)}${p.required ? '' : '?'}:${spaced(typeOf(p.schema, inner))};`,
        );
        return `{\n${lines.join('\n')}\n${INDENT.repeat(2)}}`;
      };
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      const answers = Object.entries(op.responses)
        .filter(([status]) => Number(status) < 400 || 'content' in (op.responses[status] as object))
        .flatMap(([status, answer]) => {
          if ('$ref' in answer) return [];
          const json = answer.content?.['application/json']?.schema;
          const type = json ? typeOf(json, INDENT.repeat(3)) : answer.content ? 'string' : 'undefined';
          return [`${INDENT.repeat(3)}${status}:${spaced(type)};`];
        });
      out.push(`  /** ${op.summary} */`);
      out.push(`  ${quote(key)}: {`);
      out.push(`    params: ${group('path')};`);
      out.push(`    query: ${group('query')};`);
      out.push(`    body:${spaced(bodySchema ? typeOf(bodySchema, INDENT.repeat(2)) : 'undefined')};`);
      out.push(`    answers: {\n${answers.join('\n')}\n${INDENT.repeat(2)}};`);
      out.push('  };');
    }
  }
  out.push('}', '');
  return out.join('\n');
};
