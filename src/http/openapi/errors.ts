import type { ErrorStatus } from '../operations/answers.ts';
import type { Header } from '../operations/operation.ts';

/** Each error status: its name under `components.responses`, what it means, and its headers. */
export const ERRORS: Record<ErrorStatus, { name: string; description: string; headers?: Record<string, Header> }> = {
  400: {
    name: 'BadRequest',
    description:
      'A parameter or the body is invalid: `details` names each faulty one (`path`) and its rule in ' +
      'words (`message`). Unknown query parameters, and unknown body fields outside ingest, are ' +
      'refused.',
  },
  401: {
    name: 'Unauthorized',
    description: 'No credentials, or wrong ones; the message says which.',
    headers: {
      'WWW-Authenticate': { description: "RFC 6750's `Bearer` challenge, on routes that take a bearer token" },
    },
  },
  403: {
    name: 'Forbidden',
    description:
      "The caller's role may not do this; or the API key may not be used from this origin, or lacks the scope " +
      'the operation takes (named in `required_scope`; absent where no key is taken).',
  },
  404: { name: 'NotFound', description: 'No such resource, or one the caller may not see (the two answer alike).' },
  405: {
    name: 'MethodNotAllowed',
    description: 'A path some route serves, asked with another method.',
    headers: { Allow: { description: 'the methods the path takes', required: true } },
  },
  408: { name: 'RequestTimeout', description: 'The body paused longer than `WATCHLOG_BODY_TIMEOUT_MS`.' },
  409: { name: 'Conflict', description: 'The request conflicts with the state: the message says how.' },
  413: {
    name: 'PayloadTooLarge',
    description: 'The body is larger than `WATCHLOG_BODY_LIMIT_BYTES` (`WATCHLOG_BATCH_BODY_LIMIT_BYTES` for a batch).',
  },
  415: { name: 'UnsupportedMediaType', description: 'The body is not UTF-8 JSON.' },
  429: {
    name: 'TooManyRequests',
    description: 'Too many requests: retry after `Retry-After` seconds.',
    headers: { 'Retry-After': { description: 'seconds to wait', required: true } },
  },
  500: { name: 'InternalError', description: 'A fault of the server; nothing internal is shown, the log has it.' },
  503: {
    name: 'Unavailable',
    description:
      'Nothing was done, or it was done but is not visible yet (`not_yet_visible`): the log cannot ' +
      'take writes, the server is shutting down, or the read model is behind. Retry.',
    headers: { 'Retry-After': { description: 'seconds to wait', required: true } },
  },
};

export const validationExample = {
  error: {
    code: 'validation_error',
    message: 'invalid monitor: interval_seconds must be an integer from 10 to 86400',
    details: [{ path: 'interval_seconds', message: 'must be an integer from 10 to 86400' }],
  },
};
