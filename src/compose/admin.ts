import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { load } from '../commands/handle.ts';
import { Passwords, generatePassword } from '../commands/passwords.ts';
import { changePassword } from '../commands/users.ts';
import { userStream } from '../domain/streams.ts';
import { userDecider, userIdForEmail } from '../domain/user.ts';
import { openLog, openLoginThrottle, StartupError } from './stores.ts';

/** The password a reset generates when it is given none. */
export const generatePasswordForReset = generatePassword;

export interface PasswordReset {
  readonly userId: string;
  readonly role: string;
  readonly disabled: boolean;
}

/** `watchlog admin reset-password`: appends the new password (at the production cost) to the
 *  user's stream in the log, straight through the stores, so it works whether or not the service
 *  runs; a running service's projector shows it to logins within moments, a stopped one on its
 *  next start. The account's failed logins and lock are forgotten too. */
export const resetPassword = async (config: Config, email: string, password: string): Promise<PasswordReset> => {
  if (config.eventStoreUrl === undefined && !existsSync(path.join(config.dataDir, 'log.db'))) {
    throw new StartupError(`no event log in ${config.dataDir} (is WATCHLOG_DATA_DIR set as for the service?)`);
  }
  const address = email.trim().toLowerCase();
  const log = await openLog(config, false);
  try {
    const userId = userIdForEmail(address);
    const { state } = await load(log, userStream(userId), userDecider);
    if (!state.registered) throw new StartupError(`no user has the e-mail ${address}`);
    await changePassword({ log, passwords: new Passwords() }, userId, password, {
      actor: 'system:cli',
      correlationId: randomUUID(),
      now: () => new Date(),
    });
    const throttle = await openLoginThrottle(config);
    try {
      await throttle.forgetAccount(address);
    } finally {
      await throttle.close();
    }
    return { userId, role: state.role, disabled: state.disabled };
  } finally {
    await log.close();
  }
};
