import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import { load } from '../commands/handle.ts';
import { Passwords, generatePassword } from '../commands/passwords.ts';
import { changePassword } from '../commands/users.ts';
import { userStream } from '../domain/streams.ts';
import { userDecider, userIdForEmail } from '../domain/user.ts';
import { openExistingLog, openLoginThrottle } from '../compose/stores.ts';
import { StartupError } from '../startup-error.ts';
import { commandHelp } from './help.ts';
import { loadConfigOrExit } from './load-config.ts';

export interface PasswordReset {
  readonly userId: string;
  readonly role: string;
  readonly disabled: boolean;
}

/** Appends the new password (at the production cost) to the user's stream in the log, straight
 *  through the stores, so it works whether or not the service runs; a running service's projector
 *  shows it to logins within moments, a stopped one on its next start. The account's failed
 *  logins and lock are forgotten too. */
export const resetPassword = async (config: Config, email: string, password: string): Promise<PasswordReset> => {
  const log = await openExistingLog(config);
  const address = email.trim().toLowerCase();
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

/** The first line of standard input, or '' when it is a terminal (nothing is piped). */
const readStdinLine = async (): Promise<string> => {
  if (process.stdin.isTTY) return '';
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.split(/\r?\n/)[0] ?? '';
};

/** `watchlog admin reset-password EMAIL`: the new password from standard input, else generated
 *  and printed once. */
export const admin = async (argv: string[]): Promise<number> => {
  const [sub, email, ...rest] = argv;
  if (sub === undefined || sub === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(commandHelp('admin')!);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'reset-password' || email === undefined || rest.length > 0) {
    process.stderr.write(`watchlog admin: expected \`reset-password EMAIL\`\n\n${commandHelp('admin')!}`);
    return 2;
  }
  const config = loadConfigOrExit();
  if (typeof config === 'number') return config;
  const given = await readStdinLine();
  if (given !== '' && (given.length < 8 || given.length > 1024)) {
    process.stderr.write('watchlog admin: the new password must have 8 to 1024 characters\n');
    return 2;
  }
  const password = given === '' ? generatePassword() : given;
  const reset = await resetPassword(config, email, password);
  process.stdout.write(
    `password of ${email.trim().toLowerCase()} (${reset.role}) reset; tokens issued before now are refused\n`,
  );
  if (given === '') process.stdout.write(`new password: ${password}\n`);
  if (reset.disabled)
    process.stdout.write(
      'note: this account is disabled; an admin can enable it with PUT /v1/users/:id {"disabled": false}\n',
    );
  return 0;
};
