import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LIMITS } from './event.ts';

/** Visible ASCII only: an id is echoed into logs and headers, where anything else is a risk. */
const PRINTABLE = /^[\x21-\x7e]+$/;
/** W3C Trace Context: version-traceid-parentid-flags; an all-zero trace id is invalid. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}/;
const ZERO_TRACE = '0'.repeat(32);

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The caller's correlation id: `X-Request-ID` when it is a sane token, else the trace id of a
 *  valid `traceparent`, else undefined (the caller then generates one). */
export const incomingRequestId = (headers: IncomingHttpHeaders): string | undefined => {
  const given = single(headers['x-request-id'])?.trim();
  if (given && given.length <= LIMITS.requestId && PRINTABLE.test(given)) return given;
  const traceparent = single(headers.traceparent);
  if (traceparent) {
    const traceId = TRACEPARENT.exec(traceparent.trim().toLowerCase())?.[1];
    if (traceId && traceId !== ZERO_TRACE) return traceId;
  }
  return undefined;
};

export const generateRequestId = (): string => randomUUID();
