import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { OpenApiDocument } from '../../src/http/openapi/document.ts';

/** Checks real answers against the API's description (`GET /v1/openapi.json`) with Ajv
 *  (JSON Schema 2020-12, OpenAPI 3.1's dialect, strict mode): the status must be one the
 *  operation documents, the media type one of its answer's, the JSON body valid against its
 *  schema, with every object of fixed keys refusing any other (see `closeAnswers`), every
 *  required header present and valid, and every header of watchlog's own documented. */

// ajv-formats is CommonJS: the plugin is its `default` export.
const addFormats = ajvFormats.default;

/** Headers any HTTP answer may carry, and CORS's (ingest's, documented in docs/api.md): not the
 *  API's own, so not in the description. */
const GENERIC_HEADERS = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'vary',
  'content-encoding',
]);
const isGeneric = (name: string) => GENERIC_HEADERS.has(name) || name.startsWith('access-control-');

interface MediaType {
  schema: Record<string, unknown>;
}
interface HeaderObject {
  required?: boolean;
  schema: Record<string, unknown>;
}
interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, MediaType>;
}

export interface Exchange {
  method: string;
  /** The operation's path as the router has it: `/v1/monitors/:id`. */
  route: string;
  status: number;
  headers: Headers;
  /** The body as received (text). */
  body: string;
}

/** The description as the check reads it: every object of fixed keys in an answer refuses
 *  other keys (`additionalProperties: false`), so that a field the server sends without it being
 *  described fails. The served description leaves them open, so that clients generated from it
 *  take the fields a later version adds. */
const closeAnswers = (served: OpenApiDocument): OpenApiDocument => {
  const doc = structuredClone(served);
  const closed = new Set<string>();
  const close = (schema: Record<string, unknown> | undefined): void => {
    if (schema === undefined) return;
    const ref = typeof schema.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
    if (ref !== undefined && !closed.has(ref)) {
      closed.add(ref);
      close(doc.components.schemas[ref] as Record<string, unknown>);
    }
    const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
    if (properties !== undefined && schema.additionalProperties === undefined) schema.additionalProperties = false;
    for (const sub of Object.values(properties ?? {})) close(sub);
    for (const key of ['items', 'additionalProperties'] as const)
      if (typeof schema[key] === 'object') close(schema[key] as Record<string, unknown>);
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const)
      for (const sub of (schema[key] as Array<Record<string, unknown>> | undefined) ?? []) close(sub);
  };
  const answers = [
    ...Object.values(doc.paths).flatMap((operations) =>
      Object.values(operations).flatMap((op) => Object.values(op.responses)),
    ),
    ...Object.values(doc.components.responses),
  ];
  for (const answer of answers) {
    for (const media of Object.values(('content' in answer ? answer.content : undefined) ?? {}))
      close(media.schema as Record<string, unknown>);
  }
  return doc;
};

const pointer = (...segments: string[]) => segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const ID = 'https://watchlog.invalid/openapi.json';

export class AnswerValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  private readonly doc: OpenApiDocument;

  constructor(served: OpenApiDocument) {
    this.doc = closeAnswers(served);
    this.ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(this.ajv);
    // The document is added as a schema whose top-level fields are inert, so that each schema in
    // it is compiled by its JSON pointer and its `$ref`s resolve inside the document.
    this.ajv.addVocabulary(Object.keys(this.doc));
    this.ajv.addSchema({ ...this.doc, $id: ID }, undefined, undefined, false);
  }

  /** A schema of the description, by its JSON pointer, compiled once. */
  private schemaAt(path: string): ValidateFunction {
    let validate = this.compiled.get(path);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `${ID}#${path}` });
      this.compiled.set(path, validate);
    }
    return validate;
  }

  private resolve<T>(value: T | { $ref: string }): T {
    if (typeof value === 'object' && value !== null && '$ref' in value) {
      const keys = value.$ref.replace(/^#\//, '').split('/');
      return keys.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], this.doc) as T;
    }
    return value;
  }

  /** What is wrong with an answer, per the description; [] when nothing is. */
  problems({ method, route, status, headers, body }: Exchange): string[] {
    const path = route.replace(/:(\w+)/g, '{$1}');
    // HEAD answers as GET does, without the body.
    const documentedMethod = method === 'HEAD' ? 'get' : method.toLowerCase();
    const operation = this.doc.paths[path]?.[documentedMethod];
    if (operation === undefined) return [`${method} ${route} is not in the description`];
    const declared = operation.responses[String(status)];
    if (declared === undefined)
      return [
        `${method} ${route} answered ${status}, which the description does not list ` +
          `(${Object.keys(operation.responses).join(', ')}): ${body.slice(0, 300)}`,
      ];
    const response = this.resolve<ResponseObject>(declared as ResponseObject | { $ref: string });
    const responsePointer =
      '$ref' in declared
        ? (declared as { $ref: string }).$ref.replace(/^#/, '')
        : `/${pointer('paths', path, documentedMethod, 'responses', String(status))}`;
    const found: string[] = [];
    const where = `${method} ${route} ${status}`;

    const documented = new Map(
      Object.entries(response.headers ?? {}).map(([name, h]) => [
        name.toLowerCase(),
        [name, this.resolve<HeaderObject>(h)] as const,
      ]),
    );
    for (const [lower, [name, header]] of documented) {
      const value = headers.get(lower);
      if (value === null) {
        if (header.required) found.push(`${where}: the required header ${name} is missing`);
        continue;
      }
      const headerPointer =
        '$ref' in (response.headers![name] as object)
          ? (response.headers![name] as { $ref: string }).$ref.replace(/^#/, '')
          : `${responsePointer}/${pointer('headers', name)}`;
      const validate = this.schemaAt(`${headerPointer}/schema`);
      if (!validate(value)) found.push(`${where}: header ${name}: ${value} ${this.ajv.errorsText(validate.errors)}`);
    }
    headers.forEach((_, name) => {
      if (!isGeneric(name) && !documented.has(name))
        found.push(`${where}: the header ${name} is not in the description`);
    });

    const contentType = headers.get('content-type');
    const content = response.content ?? {};
    if (Object.keys(content).length === 0) {
      if (body !== '') found.push(`${where}: a body where the description has none: ${body.slice(0, 200)}`);
      return found;
    }
    if (method === 'HEAD') return found;
    const base = (type: string) => type.split(';')[0]!.trim().toLowerCase();
    const mediaType = Object.keys(content).find((type) => contentType !== null && base(type) === base(contentType));
    if (mediaType === undefined)
      return [...found, `${where}: content type ${contentType}, not one of ${Object.keys(content).join(', ')}`];
    if (base(mediaType) !== 'application/json' || content[mediaType]!.schema.type === 'string') return found;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [...found, `${where}: the body is not JSON: ${body.slice(0, 200)}`];
    }
    const validate = this.schemaAt(`${responsePointer}/${pointer('content', mediaType, 'schema')}`);
    if (!validate(parsed))
      found.push(
        `${where}: ${this.ajv.errorsText(validate.errors, { separator: '\n  ' })}` +
          `\n  in ${JSON.stringify(parsed).slice(0, 600)}`,
      );
    return found;
  }

  /** What is wrong with a request body the server took, per the description's request body. */
  requestProblems(method: string, route: string, body: unknown, mediaType = 'application/json'): string[] {
    const path = route.replace(/:(\w+)/g, '{$1}');
    const requestBody = this.doc.paths[path]?.[method.toLowerCase()]?.requestBody;
    if (requestBody?.content[mediaType] === undefined)
      return [`${method} ${route} takes no ${mediaType} body in the description`];
    const error = this.check(
      `/${pointer('paths', path, method.toLowerCase(), 'requestBody', 'content', mediaType, 'schema')}`,
      body,
    );
    return error === null ? [] : [`${method} ${route} request body: ${error}`];
  }

  /** Checks `value` against the schema at `path` (a JSON pointer into the description). */
  check(path: string, value: unknown): string | null {
    const validate = this.schemaAt(path);
    return validate(value) ? null : this.ajv.errorsText(validate.errors);
  }
}
