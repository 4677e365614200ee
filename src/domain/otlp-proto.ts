import {
  type AttributeValue,
  type OtlpResourceSpans,
  type OtlpSpan,
  type OtlpTraces,
  OtlpDecodeError,
  type PartialSuccess,
} from './otlp-traces.ts';

/** A reader of the protobuf wire format for the few messages of an ExportTraceServiceRequest
 *  that watchlog maps: written by hand (about 200 lines, no dependency, no generated code) since
 *  it reads only the fields the mapping needs and skips the rest without decoding them, which a
 *  general decoder (protobufjs with the vendored .proto files) would build objects for. Field
 *  numbers are opentelemetry-proto's (v1). Every read is bounds-checked: a truncated or
 *  malformed message is an OtlpDecodeError naming where, never an exception of another kind. */

const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;

/** A message being read. Its path (`resourceSpans.0.scopeSpans.1.spans.2`) is built only when
 *  asked for, on a fault or once per span: building one per attribute would cost more than
 *  reading it. */
class Reader {
  pos: number;

  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
    private readonly parent: Reader | null,
    private readonly name: string,
    private readonly index = -1,
  ) {
    this.pos = start;
  }

  get path(): string {
    const own = this.index >= 0 ? `${this.name}.${this.index}` : this.name;
    const base = this.parent?.path;
    return base ? `${base}.${own}` : own;
  }

  fail(reason: string, path: string = this.path || 'body'): never {
    throw new OtlpDecodeError(path, reason);
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /** A varint up to 2^53, for tags, lengths, enums and small integers. */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const byte = this.buf[this.pos++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    return this.fail('varint longer than 10 bytes');
  }

  /** An int64 varint (two's complement), as a number: attribute integers. Up to 7 bytes it is
   *  a non-negative number below 2^49, read without BigInt. */
  int64(): number {
    const start = this.pos;
    const small = this.varint();
    if (this.pos - start <= 7) return small;
    this.pos = start;
    let value = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const byte = this.buf[this.pos++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return Number(BigInt.asIntN(64, value));
      shift += 7n;
    }
    return this.fail('varint longer than 10 bytes');
  }

  fixed64(): bigint {
    if (this.pos + 8 > this.end) this.fail('truncated fixed64');
    const value = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return value;
  }

  double(): number {
    if (this.pos + 8 > this.end) this.fail('truncated double');
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** A length-delimited field's bounds. */
  span(child?: string, index = -1): { start: number; end: number } {
    const length = this.varint();
    const start = this.pos;
    if (length > this.end - start) {
      const path = child === undefined ? undefined : new Reader(this.buf, 0, 0, this, child, index).path;
      this.fail('length beyond the end of its message', path);
    }
    this.pos = start + length;
    return { start, end: start + length };
  }

  /** An embedded message; a length past its parent's end is a fault of the message itself. */
  sub(name: string, index = -1): Reader {
    const { start, end } = this.span(name, index);
    return new Reader(this.buf, start, end, this, name, index);
  }

  /** UTF-8; short ASCII strings (attribute keys, methods, routes) without Buffer's call
   *  overhead, which costs more than the copy for a string of a few bytes. */
  string(): string {
    const { start, end } = this.span();
    const buf = this.buf;
    if (end - start <= 32) {
      let ascii = '';
      for (let i = start; i < end; i++) {
        const byte = buf[i]!;
        if (byte >= 0x80) return buf.toString('utf8', start, end);
        ascii += String.fromCharCode(byte);
      }
      return ascii;
    }
    return buf.toString('utf8', start, end);
  }

  hex(): string {
    const { start, end } = this.span();
    return this.buf.toString('hex', start, end);
  }

  skip(wireType: number): void {
    if (wireType === VARINT) this.varint();
    else if (wireType === FIXED64) this.pos += 8;
    else if (wireType === LEN) this.span();
    else if (wireType === FIXED32) this.pos += 4;
    else this.fail(`unsupported wire type ${wireType}`);
    if (this.pos > this.end) this.fail('truncated field');
  }

  /** Each field of the message: `read` takes the fields it knows (true) and the rest are
   *  skipped; a known field with the wrong wire type is a fault. */
  fields(read: (field: number, wireType: number) => boolean): void {
    while (!this.done()) {
      const tag = this.varint();
      const field = Math.floor(tag / 8);
      const wireType = tag & 7;
      if (field === 0) this.fail('field number 0');
      if (!read(field, wireType)) this.skip(wireType);
    }
  }

  expect(wireType: number, actual: number, name: string): void {
    if (wireType !== actual) this.fail(`wrong wire type ${actual}`, this.path ? `${this.path}.${name}` : name);
  }
}

/** AnyValue: scalars; the rest (arrays, lists, bytes) as null, unread. */
const anyValue = (r: Reader): AttributeValue => {
  let value: AttributeValue = null;
  r.fields((field, wire) => {
    if (field === 1 && wire === LEN) value = r.string();
    else if (field === 2 && wire === VARINT) value = r.varint() !== 0;
    else if (field === 3 && wire === VARINT) value = r.int64();
    else if (field === 4 && wire === FIXED64) value = r.double();
    else {
      value = null;
      return false;
    }
    return true;
  });
  return value;
};

/** KeyValue into `into`; a later key wins, as in a map. */
const keyValue = (r: Reader, into: Map<string, AttributeValue>): void => {
  let key = '';
  let value: AttributeValue = null;
  r.fields((field, wire) => {
    if (field === 1) {
      r.expect(LEN, wire, 'key');
      key = r.string();
    } else if (field === 2) {
      r.expect(LEN, wire, 'value');
      value = anyValue(r.sub('value'));
    } else return false;
    return true;
  });
  into.set(key, value);
};

/** Resource and Span.Event hold their attributes in field 1 and 3: `attributesField`. */
const attributesOf = (r: Reader, attributesField: number, into: Map<string, AttributeValue>): void => {
  let index = 0;
  r.fields((field, wire) => {
    if (field !== attributesField) return false;
    r.expect(LEN, wire, 'attributes');
    keyValue(r.sub('attributes', index++), into);
    return true;
  });
};

const status = (r: Reader): { code: number; message: string } => {
  const found = { code: 0, message: '' };
  r.fields((field, wire) => {
    if (field === 2 && wire === LEN) found.message = r.string();
    else if (field === 3 && wire === VARINT) found.code = r.varint();
    else return false;
    return true;
  });
  return found;
};

/** Span.Event: its name (2) and attributes (3). */
const exceptionMessageOf = (r: Reader): string | undefined => {
  let name = '';
  const attributes = new Map<string, AttributeValue>();
  let index = 0;
  r.fields((field, wire) => {
    if (field === 2 && wire === LEN) name = r.string();
    else if (field === 3 && wire === LEN) keyValue(r.sub('attributes', index++), attributes);
    else return false;
    return true;
  });
  const message = attributes.get('exception.message');
  return name === 'exception' && typeof message === 'string' ? message : undefined;
};

const span = (r: Reader): OtlpSpan => {
  let traceId = '';
  let spanId = '';
  let kind = 0;
  let startNs = 0n;
  let endNs = 0n;
  const attributes = new Map<string, AttributeValue>();
  let statusOf = { code: 0, message: '' };
  let exceptionMessage: string | undefined;
  let attributeIndex = 0;
  let eventIndex = 0;
  r.fields((field, wire) => {
    switch (field) {
      case 1:
        r.expect(LEN, wire, 'traceId');
        traceId = r.hex();
        return true;
      case 2:
        r.expect(LEN, wire, 'spanId');
        spanId = r.hex();
        return true;
      case 6:
        r.expect(VARINT, wire, 'kind');
        kind = r.varint();
        return true;
      case 7:
        r.expect(FIXED64, wire, 'startTimeUnixNano');
        startNs = r.fixed64();
        return true;
      case 8:
        r.expect(FIXED64, wire, 'endTimeUnixNano');
        endNs = r.fixed64();
        return true;
      case 9:
        r.expect(LEN, wire, 'attributes');
        keyValue(r.sub('attributes', attributeIndex++), attributes);
        return true;
      case 11: {
        r.expect(LEN, wire, 'events');
        const message = exceptionMessageOf(r.sub('events', eventIndex++));
        exceptionMessage ??= message;
        return true;
      }
      case 15:
        r.expect(LEN, wire, 'status');
        statusOf = status(r.sub('status'));
        return true;
      default:
        return false;
    }
  });
  const { code: statusCode, message: statusMessage } = statusOf;
  return { at: r.path, traceId, spanId, kind, startNs, endNs, attributes, statusCode, statusMessage, exceptionMessage };
};

/** ResourceSpans: resource (1), scope_spans (2), each ScopeSpans holding spans in field 2. */
const resourceSpans = (r: Reader): OtlpResourceSpans => {
  const resource = new Map<string, AttributeValue>();
  const spans: OtlpSpan[] = [];
  let scopeIndex = 0;
  r.fields((field, wire) => {
    if (field === 1) {
      r.expect(LEN, wire, 'resource');
      attributesOf(r.sub('resource'), 1, resource);
    } else if (field === 2) {
      r.expect(LEN, wire, 'scopeSpans');
      const scope = r.sub('scopeSpans', scopeIndex++);
      let spanIndex = 0;
      scope.fields((f, w) => {
        if (f !== 2) return false;
        scope.expect(LEN, w, 'spans');
        spans.push(span(scope.sub('spans', spanIndex++)));
        return true;
      });
    } else return false;
    return true;
  });
  return { resource, spans };
};

/** Decodes an ExportTraceServiceRequest (resource_spans: field 1). */
export const decodeTracesProto = (body: Buffer): OtlpTraces => {
  const r = new Reader(body, 0, body.length, null, '');
  const out: OtlpResourceSpans[] = [];
  r.fields((field, wire) => {
    if (field !== 1) return false;
    r.expect(LEN, wire, 'resourceSpans');
    out.push(resourceSpans(r.sub('resourceSpans', out.length)));
    return true;
  });
  return out;
};

const varintBytes = (value: number): number[] => {
  const bytes: number[] = [];
  let v = value;
  while (v >= 0x80) {
    bytes.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  bytes.push(v);
  return bytes;
};

const lengthDelimited = (field: number, payload: Buffer): Buffer =>
  Buffer.concat([Buffer.from([...varintBytes(field * 8 + LEN), ...varintBytes(payload.length)]), payload]);

/** google.rpc.Status { code (1), message (2) }: OTLP/HTTP's error body for protobuf requests. */
export const encodeStatusProto = (code: number, message: string): Buffer =>
  Buffer.concat([
    Buffer.from([...varintBytes(1 * 8 + VARINT), ...varintBytes(code)]),
    lengthDelimited(2, Buffer.from(message, 'utf8')),
  ]);

/** ExportTraceServiceResponse: empty, or partial_success (1) { rejected_spans (1), error_message (2) }. */
export const encodeTracesResponseProto = (partial: PartialSuccess | null): Buffer => {
  if (partial === null) return Buffer.alloc(0);
  const inner = Buffer.concat([
    Buffer.from([...varintBytes(1 * 8 + VARINT), ...varintBytes(partial.rejectedSpans)]),
    lengthDelimited(2, Buffer.from(partial.errorMessage, 'utf8')),
  ]);
  return lengthDelimited(1, inner);
};
