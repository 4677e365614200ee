import type { Principal } from './middleware/auth.ts';

export interface AppState {
  claims?: unknown;
  principal?: Principal;
  correlationId: string;
}
