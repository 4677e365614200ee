import type { Context } from 'koa';
import type { ErrorDetail } from '../domain/errors.ts';
import type { Principal } from './middleware/auth.ts';

/** An error as the one JSON shape has it. */
export interface ErrorBody {
  readonly code: string;
  readonly message: string;
  readonly details: readonly ErrorDetail[];
  /** On a 403 for an API key: the scope the operation takes, which the key lacks. */
  readonly required_scope?: string;
}

/** An error in another encoding the request chose (OTLP's protobuf `Status`); null: JSON. */
export type ErrorEncoder = (ctx: Context, status: number, error: ErrorBody) => { type: string; body: Buffer } | null;

export interface AppState {
  claims?: unknown;
  principal?: Principal;
  correlationId: string;
  /** A batch's events, once decoded: how many were accepted and rejected (for its metrics). */
  batchEvents?: { accepted: number; rejected: number };
  /** The operation's errors in the request's own encoding, when it has one (`Operation.errorBody`). */
  errorBody?: ErrorEncoder;
}
