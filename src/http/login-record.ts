import type { Logger } from 'pino';
import type { CommandDeps } from '../commands/handle.ts';
import { recordLoginAttempt } from '../commands/self-audit.ts';
import type { LoginAttemptRecord } from '../domain/self-audit.ts';

/** One login attempt, as the login route reports it: the e-mail as given, lower-cased; the
 *  client's address (the socket's peer); why it failed (a wrong e-mail or password, or a disabled
 *  account, which says the same to the client; or the throttle refused it before any check); the
 *  user, when it succeeded. */
export type LoginRecord = LoginAttemptRecord;

/** Where the login route reports every attempt. */
export type RecordLogin = (attempt: LoginRecord) => Promise<void>;

/** Every attempt becomes a `system.access` audit event of the built-in project (so an auditor sees
 *  it, and brute_force counts failures), and a line of the service's log: successes at info,
 *  failures at warn. When the attempt cannot be recorded, the login fails with it (503): no login
 *  goes unrecorded. */
export const loginRecorder =
  (logger: Logger, commands: CommandDeps): RecordLogin =>
  async (attempt) => {
    const { email, ok, address, at, reason, userId } = attempt;
    const entry = {
      email,
      address,
      at: at.toISOString(),
      ...(userId === undefined ? {} : { user_id: userId }),
      ...(reason === undefined ? {} : { reason }),
    };
    if (ok) logger.info(entry, 'login succeeded');
    else logger.warn(entry, 'login failed');
    await recordLoginAttempt(commands, attempt, {
      actor: userId === undefined ? 'anonymous' : `user:${userId}`,
      correlationId: attempt.requestId,
      now: () => at,
    });
  };
