import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { registerUser } from '../commands/users.ts';
import { DomainError } from '../domain/errors.ts';
import type { Runtime } from './runtime.ts';

/** Creates the configured admin when no user exists yet. Waits for the access read model to
 *  reach the log's head first, so "no user" is not just "not projected yet"; a long replay (a
 *  restore, a new read store) makes it wait, with a log line every 30 s, not fail. */
export const ensureAdmin = async (runtime: Runtime, admin: Config['admin'], logger: Logger): Promise<void> => {
  if (!admin) return;
  const head = await runtime.log.headPosition();
  while (head !== null && !(await runtime.settled(['access'], head, 30_000))) {
    logger.warn({ head, checkpoint: await runtime.readModels.stores.access.checkpoint() }, 'waiting for the access projection to catch up before checking for users');
  }
  if ((await runtime.readModels.access.countUsers()) > 0) return;
  try {
    const { position } = await registerUser(runtime.commands, { email: admin.email, password: admin.password, role: 'admin', project_ids: [] }, {
      actor: 'system:bootstrap', correlationId: 'bootstrap', now: () => new Date(),
    });
    if (position !== null) await runtime.settled(['access'], position, 5000);
    logger.info({ email: admin.email }, 'admin user created');
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
  }
};
