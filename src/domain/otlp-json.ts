import {
  type AttributeValue,
  type OtlpResourceSpans,
  type OtlpSpan,
  type OtlpTraces,
  OtlpDecodeError,
  SPAN_KINDS,
  STATUS_CODES,
} from './otlp-traces.ts';

/** The OTLP/HTTP JSON encoding of an ExportTraceServiceRequest (the protobuf JSON mapping with
 *  OTLP's rules): lowerCamelCase field names, trace and span ids as hex, enums as integers or
 *  names, 64-bit integers as strings or numbers, unknown fields ignored. A field of the wrong
 *  kind is an OtlpDecodeError naming its path; the body's depth is bounded before this runs. */

type Json = Record<string, unknown>;

const fail = (path: string, reason: string): never => {
  throw new OtlpDecodeError(path, reason);
};

const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

/** `Object.hasOwn`: a key such as `__proto__` or `constructor` is read only when it is the
 *  client's own. */
const field = (o: Json, name: string): unknown => (Object.hasOwn(o, name) ? o[name] : undefined);

const objectAt = (u: unknown, path: string): Json | undefined => {
  if (u === undefined || u === null) return undefined;
  return isObject(u) ? u : fail(path, 'must be an object');
};

const arrayAt = (u: unknown, path: string): readonly unknown[] => {
  if (u === undefined || u === null) return [];
  return Array.isArray(u) ? u : fail(path, 'must be an array');
};

const stringAt = (u: unknown, path: string): string => {
  if (u === undefined || u === null) return '';
  return typeof u === 'string' ? u : fail(path, 'must be a string');
};

const INTEGER = /^-?\d{1,20}$/;

/** A 64-bit integer: a JSON number or a decimal string. */
const int64At = (u: unknown, path: string): bigint => {
  if (u === undefined || u === null) return 0n;
  if (typeof u === 'number' && Number.isInteger(u)) return BigInt(u);
  if (typeof u === 'string' && INTEGER.test(u)) return BigInt(u);
  return fail(path, 'must be an integer (a number or a decimal string)');
};

/** An enum: its number or its name. */
const enumAt = (u: unknown, names: Readonly<Record<string, number>>, path: string): number => {
  if (u === undefined || u === null) return 0;
  if (typeof u === 'number' && Number.isInteger(u) && u >= 0) return u;
  if (typeof u === 'string' && Object.hasOwn(names, u)) return names[u]!;
  return fail(path, `must be an integer or one of ${Object.keys(names).join(', ')}`);
};

/** Ids as hex; lower-cased here, their length checked by the mapping. */
const hexAt = (u: unknown, path: string): string => {
  const s = stringAt(u, path);
  return /^[0-9a-fA-F]*$/.test(s) ? s.toLowerCase() : fail(path, 'must be hex');
};

const anyValue = (u: unknown, path: string): AttributeValue => {
  const o = objectAt(u, path);
  if (o === undefined) return null;
  const s = field(o, 'stringValue');
  if (s !== undefined && s !== null) return stringAt(s, `${path}.stringValue`);
  const b = field(o, 'boolValue');
  if (b !== undefined && b !== null) return typeof b === 'boolean' ? b : fail(`${path}.boolValue`, 'must be a boolean');
  const i = field(o, 'intValue');
  if (i !== undefined && i !== null) return Number(int64At(i, `${path}.intValue`));
  const d = field(o, 'doubleValue');
  if (d !== undefined && d !== null) {
    if (typeof d === 'number') return d;
    // The JSON mapping writes NaN and the infinities as strings.
    if (d === 'NaN' || d === 'Infinity' || d === '-Infinity') return Number(d);
    return fail(`${path}.doubleValue`, 'must be a number');
  }
  return null;
};

const attributesAt = (u: unknown, path: string, into = new Map<string, AttributeValue>()) => {
  arrayAt(u, path).forEach((item, index) => {
    const at = `${path}.${index}`;
    const kv = objectAt(item, at) ?? fail(at, 'must be an object');
    into.set(stringAt(field(kv, 'key'), `${at}.key`), anyValue(field(kv, 'value'), `${at}.value`));
  });
  return into;
};

const spanAt = (u: unknown, at: string): OtlpSpan => {
  const s = objectAt(u, at) ?? fail(at, 'must be an object');
  const status = objectAt(field(s, 'status'), `${at}.status`) ?? {};
  let exceptionMessage: string | undefined;
  arrayAt(field(s, 'events'), `${at}.events`).forEach((e, index) => {
    const eventAt = `${at}.events.${index}`;
    const event = objectAt(e, eventAt) ?? fail(eventAt, 'must be an object');
    const attributes = attributesAt(field(event, 'attributes'), `${eventAt}.attributes`);
    const message = attributes.get('exception.message');
    if (stringAt(field(event, 'name'), `${eventAt}.name`) === 'exception' && typeof message === 'string')
      exceptionMessage ??= message;
  });
  return {
    at,
    traceId: hexAt(field(s, 'traceId'), `${at}.traceId`),
    spanId: hexAt(field(s, 'spanId'), `${at}.spanId`),
    kind: enumAt(field(s, 'kind'), SPAN_KINDS, `${at}.kind`),
    startNs: int64At(field(s, 'startTimeUnixNano'), `${at}.startTimeUnixNano`),
    endNs: int64At(field(s, 'endTimeUnixNano'), `${at}.endTimeUnixNano`),
    attributes: attributesAt(field(s, 'attributes'), `${at}.attributes`),
    statusCode: enumAt(field(status, 'code'), STATUS_CODES, `${at}.status.code`),
    statusMessage: stringAt(field(status, 'message'), `${at}.status.message`),
    exceptionMessage,
  };
};

/** Decodes a parsed OTLP/HTTP JSON body. */
export const decodeTracesJson = (body: unknown): OtlpTraces => {
  const root = objectAt(body, 'body') ?? fail('body', 'must be an object');
  return arrayAt(field(root, 'resourceSpans'), 'resourceSpans').map((r, i): OtlpResourceSpans => {
    const at = `resourceSpans.${i}`;
    const rs = objectAt(r, at) ?? fail(at, 'must be an object');
    const resource = objectAt(field(rs, 'resource'), `${at}.resource`);
    const spans: OtlpSpan[] = [];
    arrayAt(field(rs, 'scopeSpans'), `${at}.scopeSpans`).forEach((s, j) => {
      const scopeAt = `${at}.scopeSpans.${j}`;
      const scope = objectAt(s, scopeAt) ?? fail(scopeAt, 'must be an object');
      arrayAt(field(scope, 'spans'), `${scopeAt}.spans`).forEach((span, k) => {
        spans.push(spanAt(span, `${scopeAt}.spans.${k}`));
      });
    });
    return {
      resource: attributesAt(resource && field(resource, 'attributes'), `${at}.resource.attributes`),
      spans,
    };
  });
};
