import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { ensureWatchlogProject } from '../commands/self-audit.ts';
import { registerUser } from '../commands/users.ts';
import { DomainError } from '../domain/errors.ts';
import type { Runtime } from './runtime.ts';

const RESET_HINT =
  'to set a password on an existing data dir, run `watchlog admin reset-password EMAIL` (see `watchlog admin --help`)';

/** Creates the built-in `watchlog` project (where watchlog audits itself) unless it exists, and
 *  the configured admin when no user exists yet, and otherwise says what the admin
 *  variables did: they apply to an empty data dir only, so a changed password there is ignored
 *  with one warning. Without them, an empty data dir logs how to create the first admin. Waits
 *  for the access read model to reach the log's head first, so "no user" is not just "not
 *  projected yet"; a long replay (a restore, a new read store) makes it wait, with a log line
 *  every 30 s, not fail. */
export const ensureAdmin = async (runtime: Runtime, admin: Config['admin'], logger: Logger): Promise<void> => {
  await ensureWatchlogProject(runtime.commands, {
    actor: 'system:bootstrap',
    correlationId: 'bootstrap',
    now: () => new Date(),
  });
  const head = await runtime.log.headPosition();
  while (head !== null && !(await runtime.caughtUp(['access'], head, 30_000))) {
    logger.warn(
      { head, checkpoint: await runtime.readModels.stores.access.checkpoint() },
      'waiting for the access projection to catch up before checking for users',
    );
  }
  const users = await runtime.readModels.access.countUsers();
  if (!admin) {
    if (users === 0) {
      logger.warn(
        'no user exists yet: to create the first admin, start watchlog once with WATCHLOG_ADMIN_EMAIL ' +
          'and WATCHLOG_ADMIN_PASSWORD set',
      );
    }
    return;
  }
  if (users > 0) {
    await explainIgnoredAdmin(runtime, admin, logger);
    return;
  }
  try {
    const { position } = await registerUser(
      runtime.commands,
      { email: admin.email, password: admin.password, role: 'admin', project_ids: [] },
      {
        actor: 'system:bootstrap',
        correlationId: 'bootstrap',
        now: () => new Date(),
      },
    );
    if (position !== null) await runtime.caughtUp(['access'], position, 5000);
    logger.info({ email: admin.email }, 'admin user created');
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
  }
};

/** Users exist, so the admin variables changed nothing: one warning when they no longer match
 *  (no such user, or another password), none when they still describe the admin. */
const explainIgnoredAdmin = async (runtime: Runtime, admin: NonNullable<Config['admin']>, logger: Logger) => {
  const email = admin.email.trim().toLowerCase();
  const user = await runtime.readModels.access.userByEmail(email);
  if (!user) {
    logger.warn(
      { email },
      `WATCHLOG_ADMIN_EMAIL names no user and was ignored: WATCHLOG_ADMIN_EMAIL and ` +
        `WATCHLOG_ADMIN_PASSWORD only apply to an empty data dir; ${RESET_HINT}`,
    );
  } else if (!(await runtime.commands.passwords.verify(admin.password, user.password_hash))) {
    logger.warn(
      { email },
      `WATCHLOG_ADMIN_PASSWORD differs from this user's password and was ignored: it only applies to ` +
        `an empty data dir; ${RESET_HINT}`,
    );
  }
};
