import type { Principal } from './auth.ts';

export interface AppState {
  claims?: unknown;
  principal?: Principal;
  correlationId: string;
}
