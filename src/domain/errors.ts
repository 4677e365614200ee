/** Errors a command or query reports to its caller; the HTTP layer maps `code` to a status. */
export type ErrorCode = 'validation_error' | 'not_found' | 'conflict' | 'forbidden' | 'unauthorized';

export interface ErrorDetail { path: string; message: string }

export class DomainError extends Error {
  constructor(readonly code: ErrorCode, message: string, readonly details: readonly ErrorDetail[] = []) {
    super(message);
  }
}

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
