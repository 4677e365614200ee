import type * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { DomainError, sentenceOf, type ErrorDetail } from '../../domain/errors.ts';
import { describeErrors } from '../../domain/decode-errors.ts';
import { AppendOutcomeUnknownError, LogUnavailableError } from '../../log/event-log.ts';
import { loggedUrl } from './access-log.ts';
import type { AppState, ErrorBody } from '../state.ts';
import type { KeyScope } from '../../domain/api-keys.ts';

/** One error shape everywhere: `{ error: { code, message, details: [{ path, message }] } }`. */

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
    /** Headers the answer carries (`Retry-After` of a 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** A 403 for an API key without the scope an operation takes: the answer names it in
 *  `required_scope`, beside the usual fields. */
export class MissingScopeError extends HttpError {
  constructor(
    readonly requiredScope: KeyScope,
    message: string,
  ) {
    super(403, 'forbidden', message);
  }
}

const STATUS_OF: Record<DomainError['code'], number> = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
};

const CODE_OF_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
};

/** A 400 whose message names each faulty field or parameter and its rule. */
export const validationError = (what: string, details: readonly ErrorDetail[]) =>
  new HttpError(400, 'validation_error', `invalid ${what}: ${sentenceOf(details)}`, details);

/** Decodes a request body (`what` names it in messages: "monitor", "channel"); a body that is not
 *  what the codec wants at all is reported as `body` ("body must be a JSON object"). */
export const decodeOrThrow = <A, O>(codec: t.Type<A, O, unknown>, value: unknown, what: string, root = 'body'): A => {
  const result = codec.decode(value);
  if (isLeft(result)) throw validationError(what, describeErrors(result.left, root));
  return result.right;
};

/** Maps every thrown error to the shape; unknown errors are 500s with nothing internal exposed. */
export const errorHandler =
  (logger: Logger): Middleware =>
  async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpError(404, 'not_found', 'no such route');
    } catch (err) {
      let status: number;
      let body: ErrorBody;
      if (err instanceof HttpError) {
        ctx.set(err.headers);
        status = err.status;
        body = { code: err.code, message: err.message, details: err.details };
        if (err instanceof MissingScopeError) body = { ...body, required_scope: err.requiredScope };
      } else if (err instanceof LogUnavailableError || err instanceof AppendOutcomeUnknownError) {
        // Nothing a client did: the log's writer is restarting. Unknown outcomes say so, so that a
        // client retries with the same idempotency key rather than assume either way.
        status = 503;
        ctx.set('Retry-After', '1');
        body =
          err instanceof LogUnavailableError
            ? {
                code: 'log_unavailable',
                message: `the event log cannot take writes now; nothing was stored; retry: ${err.message}`,
                details: [],
              }
            : {
                code: 'outcome_unknown',
                message:
                  `the event log stopped before confirming: the write may or may not be stored; retry it: ` +
                  `${err.message}`,
                details: [],
              };
      } else if (err instanceof DomainError) {
        status = STATUS_OF[err.code];
        body = { code: err.code, message: err.message, details: err.details };
      } else if (typeof (err as { status?: unknown }).status === 'number' && (err as { expose?: boolean }).expose) {
        // koa/koa-jwt/router client errors (401 from koa-jwt, 405 from the router)
        const e = err as { status: number; message: string };
        status = e.status;
        body = { code: CODE_OF_STATUS[status] ?? 'error', message: e.message, details: [] };
      } else {
        logger.error({ err, method: ctx.method, url: loggedUrl(ctx.url) }, 'unhandled error');
        status = 500;
        body = { code: 'internal_error', message: 'internal server error', details: [] };
      }
      ctx.status = status;
      const encoded = (ctx.state as AppState).errorBody?.(ctx, status, body) ?? null;
      if (encoded === null) ctx.body = { error: body };
      else {
        ctx.type = encoded.type;
        ctx.body = encoded.body;
      }
    }
  };
