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

const readRaw = async (ctx: Context, limit: number): Promise<Buffer> => {
  const declared = Number(ctx.get('content-length') || NaN);
  const tooLarge = () => {
    ctx.set('Connection', 'close');
    return new HttpError(413, 'payload_too_large', `request body exceeds ${limit} bytes`);
  };
  if (declared > limit) throw tooLarge();
  // Plain listeners: the stream's async iterator costs more than the rest of a small ingest.
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const req = ctx.req;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
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
  });
};

/** Reads a JSON request body: 415 unless the content type is JSON, 413 over the limit, 400 for
 *  malformed JSON or nesting deeper than MAX_DEPTH. `JSON.parse` makes `__proto__` an own data
 *  property, so parsing alone pollutes nothing. */
export const readJsonBody = async (ctx: Context, limit: number): Promise<unknown> => {
  const [mediaType = '', ...params] = ctx.get('content-type').toLowerCase().split(';');
  const type = mediaType.trim();
  if (type !== 'application/json' && !(type.startsWith('application/') && type.endsWith('+json'))) {
    throw new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  const charset = params.map((p) => p.trim()).find((p) => p.startsWith('charset='))?.slice(8).replace(/"/g, '');
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    throw new HttpError(415, 'unsupported_media_type', 'JSON bodies must be UTF-8');
  }
  const raw = await readRaw(ctx, limit);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new HttpError(400, 'invalid_json', 'body is not valid JSON', [{ path: 'body', message: 'is not valid JSON' }]);
  }
  if (exceedsDepth(value, MAX_DEPTH)) {
    throw new HttpError(400, 'too_deep', `body nests deeper than ${MAX_DEPTH} levels`, [{ path: 'body', message: `must not nest deeper than ${MAX_DEPTH} levels` }]);
  }
  return value;
};
