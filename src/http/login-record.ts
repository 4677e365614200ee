import type { Logger } from 'pino';

/** One login attempt, as the login route reports it. */
export interface LoginRecord {
  /** As given, lower-cased. */
  readonly email: string;
  readonly ok: boolean;
  /** The client's address (the socket's peer). */
  readonly address: string;
  readonly at: Date;
  /** Why it failed: a wrong e-mail or password (or a disabled account, which says the same to
   *  the client), or the throttle refused it before any check. */
  readonly reason?: 'wrong_credentials' | 'throttled';
  /** The user, when the login succeeded. */
  readonly userId?: string;
}

/** Where the login route reports every attempt: the one place to extend (a self-audit stream,
 *  metrics) without touching the route. */
export type RecordLogin = (attempt: LoginRecord) => void | Promise<void>;

/** For now: successes at info, failures at warn, as JSON lines of the service's log. */
export const logLogins = (logger: Logger): RecordLogin => ({ email, ok, address, at, reason, userId }) => {
  const entry = { email, address, at: at.toISOString(), ...(userId === undefined ? {} : { user_id: userId }), ...(reason === undefined ? {} : { reason }) };
  if (ok) logger.info(entry, 'login succeeded');
  else logger.warn(entry, 'login failed');
};
