/** Sign-in sessions as their users and admins list them, and as the token check of every request
 *  reads them (src/domain/session.ts). Never a refresh token or its hash: those stay in the log. */
export interface SessionView {
  id: string;
  user_id: string;
  kind: 'cookie' | 'token';
  /** How the user signed in: `password`, `oidc:<provider>`, `passkey`. */
  method: string;
  /** The client's address and user agent at the last sign-in or refresh. */
  address: string;
  user_agent: string | null;
  created_at: string;
  last_used_at: string;
  /** The absolute end. */
  expires_at: string;
  ended_at: string | null;
  ended_reason: string | null;
}

export interface SessionsWriter {
  started(view: SessionView): void;
  refreshed(id: string, at: string, address: string, userAgent: string | null): void;
  ended(id: string, at: string, reason: string): void;
}

export interface SessionsQueries {
  get(id: string): Promise<SessionView | null>;
  /** The user's sessions not ended, newest first (those past their lifetimes too: the caller
   *  knows the lifetimes and the clock). */
  openOf(userId: string): Promise<SessionView[]>;
}
