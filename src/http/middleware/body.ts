import type { Context } from 'koa';
import { HttpError } from './errors.ts';

export const MAX_DEPTH = 32;

/** True when objects/arrays nest deeper than `max` (a scalar is depth 0, `{}` depth 1). Recursion
 *  stops at max + 1 levels, so the stack stays shallow whatever the input. */
export const exceedsDepth = (value: unknown, max: number): boolean => {
  if (value === null || typeof value !== 'object') return false;
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (exceedsDepth(item, max - 1)) return true;
    return false;
  }
  for (const key in value) if (exceedsDepth((value as Record<string, unknown>)[key], max - 1)) return true;
  return false;
};

/** How a body is read: its largest size, the longest pause in its arrival, and the server's
 *  drain (aborted on SIGTERM), which shortens that pause to DRAINING_BODY_TIMEOUT_MS. */
export interface BodyReading {
  readonly bodyLimitBytes: number;
  readonly bodyTimeoutMs: number;
  readonly draining?: AbortSignal;
}

/** During a drain, a body that stops arriving for this long is answered 408, so a stalled client
 *  never holds a shutdown. */
export const DRAINING_BODY_TIMEOUT_MS = 1000;

/** A body as bytes: 413 over the limit, 408 when it stops arriving, 400 when the client aborts. */
export const readRaw = async (
  ctx: Context,
  { bodyLimitBytes: limit, bodyTimeoutMs, draining }: BodyReading,
): Promise<Buffer> => {
  const declared = Number(ctx.get('content-length') || NaN);
  // An answer that leaves part of the body unread ends the connection: what follows on it would
  // be read as the next request.
  const closing = (error: HttpError) => {
    ctx.set('Connection', 'close');
    return error;
  };
  const tooLarge = () => closing(new HttpError(413, 'payload_too_large', `request body exceeds ${limit} bytes`));
  if (declared > limit) throw tooLarge();
  // A client gone before its body is read (while its batch waited its turn, say) is not waited
  // for: its request emits nothing more, not even 'end' when the body had all arrived.
  if (ctx.req.destroyed) throw new HttpError(400, 'bad_request', 'request aborted');
  // Plain listeners: the stream's async iterator costs more than the rest of a small ingest.
  return new Promise<Buffer>((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const req = ctx.req;
    // Watched from the next turn of the event loop on, if still arriving then: a small body
    // comes with its headers and has been read by that turn (its bytes are emitted after the
    // handler starts), so it costs no timer and no drain listener, ~2 µs of every ingest.
    let watched = false;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const pauseLimit = () => (draining?.aborted ? Math.min(bodyTimeoutMs, DRAINING_BODY_TIMEOUT_MS) : bodyTimeoutMs);
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(onTimeout, pauseLimit());
    };
    const cleanup = () => {
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (!watched) return;
      clearTimeout(timer);
      draining?.removeEventListener('abort', arm);
    };
    const onTimeout = () => {
      cleanup();
      req.pause();
      chunks = [];
      const ms = pauseLimit();
      reject(
        closing(
          new HttpError(408, 'request_timeout', `request body stopped arriving: nothing received for ${ms} ms`, [
            { path: 'body', message: `must arrive without a pause of ${ms} ms or more` },
          ]),
        ),
      );
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        chunks = [];
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
      if (watched) arm();
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new HttpError(400, 'bad_request', `request body could not be read: ${error.message}`));
    };
    const onAborted = () => {
      cleanup();
      reject(new HttpError(400, 'bad_request', 'request aborted'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
    if (req.complete) return;
    setImmediate(() => {
      if (settled) return;
      watched = true;
      // The drain shortens the pause allowed, from now.
      draining?.addEventListener('abort', arm);
      arm();
    });
  });
};

/** Reads a JSON request body: 415 unless the content type is JSON (or, with `plainText`, text
 *  holding JSON), 413 over the limit, 408 when
 *  it stops arriving (the part received is dropped), 400 for malformed JSON or nesting deeper
 *  than MAX_DEPTH. `JSON.parse` makes `__proto__` an own data
 *  property, so parsing alone pollutes nothing. */
export const readJsonBody = async (
  ctx: Context,
  reading: BodyReading,
  { plainText = false }: { plainText?: boolean } = {},
): Promise<unknown> => {
  const [mediaType = '', ...params] = ctx.get('content-type').toLowerCase().split(';');
  const type = mediaType.trim();
  // `plainText`: JSON sent as text/plain, as `navigator.sendBeacon` sends a string.
  if (
    type !== 'application/json' &&
    !(type.startsWith('application/') && type.endsWith('+json')) &&
    !(plainText && type === 'text/plain')
  ) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      plainText
        ? 'Content-Type must be application/json (or text/plain holding JSON)'
        : 'Content-Type must be application/json',
    );
  }
  const charset = params
    .map((p) => p.trim())
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    throw new HttpError(415, 'unsupported_media_type', 'JSON bodies must be UTF-8');
  }
  const raw = await readRaw(ctx, reading);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new HttpError(400, 'invalid_json', 'body is not valid JSON', [
      { path: 'body', message: 'is not valid JSON' },
    ]);
  }
  if (exceedsDepth(value, MAX_DEPTH)) {
    throw new HttpError(400, 'too_deep', `body nests deeper than ${MAX_DEPTH} levels`, [
      { path: 'body', message: `must not nest deeper than ${MAX_DEPTH} levels` },
    ]);
  }
  return value;
};

/** An HTML form's media type: the status pages' subscription forms post it (and mail clients their
 *  RFC 8058 one-click unsubscribe). */
export const FORM = 'application/x-www-form-urlencoded';

const mediaTypeOf = (ctx: Context): { type: string; charset: string | undefined } => {
  const [mediaType = '', ...params] = ctx.get('content-type').toLowerCase().split(';');
  const charset = params
    .map((p) => p.trim())
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  return { type: mediaType.trim(), charset };
};

/** A form's fields as an object of strings: each field given once (a repeated one is 400), in
 *  UTF-8. Built with `Object.fromEntries`, so a field named `__proto__` is an own property. */
const readFormBody = async (ctx: Context, reading: BodyReading): Promise<Record<string, string>> => {
  const { charset } = mediaTypeOf(ctx);
  if (charset && charset !== 'utf-8' && charset !== 'utf8')
    throw new HttpError(415, 'unsupported_media_type', 'form bodies must be UTF-8');
  const params = new URLSearchParams((await readRaw(ctx, reading)).toString('utf8'));
  const names = [...params.keys()];
  const repeated = [...new Set(names.filter((name, i) => names.indexOf(name) !== i))];
  if (repeated.length > 0)
    throw new HttpError(
      400,
      'validation_error',
      `form fields given more than once: ${repeated.join(', ')}`,
      repeated.map((path) => ({ path, message: 'must be given once' })),
    );
  return Object.fromEntries(params);
};

/** Reads a body an operation takes as JSON, as an HTML form, or either (`json`, `form`): a form's
 *  fields as an object of strings, JSON as readJsonBody reads it; another type is 415. */
export const readBody = async (
  ctx: Context,
  reading: BodyReading,
  { json, form }: { json: boolean; form: boolean },
): Promise<unknown> => {
  const { type } = mediaTypeOf(ctx);
  if (form && type === FORM) return readFormBody(ctx, reading);
  if (json && !form) return readJsonBody(ctx, reading);
  const isJson = type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
  if (json && isJson) return readJsonBody(ctx, reading);
  throw new HttpError(
    415,
    'unsupported_media_type',
    json ? `Content-Type must be application/json or ${FORM}` : `Content-Type must be ${FORM}`,
  );
};
