import type { Principal } from './middleware/auth.ts';

export interface AppState {
  claims?: unknown;
  principal?: Principal;
  correlationId: string;
  /** A batch's events, once decoded: how many were accepted and rejected (for its metrics). */
  batchEvents?: { accepted: number; rejected: number };
}
