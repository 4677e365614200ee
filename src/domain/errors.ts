/** Errors a command or query reports to its caller; the HTTP layer maps `code` to a status. */
export type ErrorCode = 'validation_error' | 'not_found' | 'conflict' | 'forbidden' | 'unauthorized';

export interface ErrorDetail {
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);

/** Details as one sentence a person reads: "type must be one of webhook, webpush; url is required". */
export const sentenceOf = (details: readonly ErrorDetail[]): string =>
  details.map((d) => `${d.path} ${d.message}`).join('; ');

/** A validation error whose message names every faulty field and its rule:
 *  "invalid monitor: timeout_seconds must not exceed interval_seconds (10)". */
export const invalid = (what: string, details: readonly ErrorDetail[]) =>
  new DomainError('validation_error', `invalid ${what}: ${sentenceOf(details)}`, details);
