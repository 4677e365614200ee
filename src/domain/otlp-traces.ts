/** The part of an OTLP `ExportTraceServiceRequest` that watchlog reads (opentelemetry-proto,
 *  collector/trace/v1 and trace/v1), decoded from either OTLP/HTTP encoding into one shape:
 *  otlp-proto.ts reads the binary protobuf, otlp-json.ts the JSON mapping. Pure. */

/** An attribute's value as the mapping reads it: scalars only. Arrays, key-value lists and bytes
 *  are kept as null: no HTTP convention watchlog maps holds one, and skipping them unread means
 *  no recursion on what a client nests. */
export type AttributeValue = string | number | boolean | null;

/** A Map, not an object: attribute keys are the client's (`__proto__` is a key like any other). */
export type Attributes = ReadonlyMap<string, AttributeValue>;

export interface OtlpSpan {
  /** Where the span is in the request, in the JSON mapping's names
   *  (`resourceSpans.0.scopeSpans.1.spans.2`), for partial-success messages. */
  readonly at: string;
  /** Lower-case hex, as sent; its length is checked by the mapping (a bad id rejects one span). */
  readonly traceId: string;
  readonly spanId: string;
  /** SpanKind: 2 is SERVER. */
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Attributes;
  /** Status.code: 2 is ERROR. */
  readonly statusCode: number;
  readonly statusMessage: string;
  /** The `exception.message` of the span's first `exception` event. */
  readonly exceptionMessage: string | undefined;
}

export interface OtlpResourceSpans {
  readonly resource: Attributes;
  readonly spans: readonly OtlpSpan[];
}

export type OtlpTraces = readonly OtlpResourceSpans[];

/** A request that cannot be decoded: 400 naming `path`. */
export class OtlpDecodeError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

export const SPAN_KIND_SERVER = 2;
export const STATUS_CODE_ERROR = 2;

/** SpanKind and StatusCode by name, as the JSON mapping may send enums. */
export const SPAN_KINDS: Readonly<Record<string, number>> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
export const STATUS_CODES: Readonly<Record<string, number>> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

/** What the answer reports of spans refused (`partial_success`); none: an empty response. */
export interface PartialSuccess {
  readonly rejectedSpans: number;
  readonly errorMessage: string;
}
