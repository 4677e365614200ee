import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { ApiError, loginToken } from './client.ts';
import { applyText } from './commands.ts';
import { ConfigFileError } from './parse.ts';
import { PlanError, type Step } from './plan.ts';
import { counts, stepTitle } from './render.ts';

/** WATCHLOG_CONFIG_FILE: `start` and `api` apply the file once they listen, again on SIGHUP and
 *  when it changes. The apply is the one `watchlog apply` runs, through the process's own HTTP
 *  API on the loopback address, signed in as the bootstrap admin: the same checks, the same
 *  `system.access` rows, the same result as from outside, on either deployment. A file that
 *  fails validation changes nothing and is logged with each fault's position. */

export interface ConfigWatch {
  /** Applies the file now (after any apply under way); resolves when done. */
  applyNow(reason: string): Promise<void>;
  stop(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const watchConfigFile = (options: {
  file: string;
  url: string;
  admin: { email: string; password: string };
  logger: Logger;
}): ConfigWatch => {
  const { file, url, admin, logger } = options;
  const fileName = path.basename(file);
  let token: string | null = null;
  // Few tries: each failed login counts towards the account's lock.
  const signIn = async (): Promise<string> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await loginToken(url, admin.email, admin.password);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 401 || attempt >= 3) throw error;
        await sleep(1000 * attempt);
      }
    }
  };
  const applyOnce = async (reason: string): Promise<void> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      logger.error({ file, reason, error: (error as Error).message }, 'configuration file unreadable: nothing changed');
      return;
    }
    try {
      token ??= await signIn();
      // A heartbeat's URL is its credential, answered once: a log is no place for it.
      const onStep = (step: Step, once: string | undefined) => {
        if (once !== undefined)
          logger.warn(
            { file, monitor: step.name, project: step.project },
            'heartbeat monitor created: its URL is not logged; create heartbeat monitors with watchlog apply, ' +
              'which prints it once',
          );
      };
      const target = { url, credentials: { token: token! } };
      const apply = () => applyText(text, fileName, target, { prune: false, onStep });
      const { steps, requestId } = await apply().catch(async (error: unknown) => {
        if (!(error instanceof ApiError) || error.status !== 401) throw error;
        token = await signIn(); // the token expired, or the admin's password changed
        return apply();
      });
      logger.info(
        {
          file,
          reason,
          request_id: requestId,
          ...counts(steps),
          changes: steps.map((s) => `${s.action} ${stepTitle(s)}`),
        },
        steps.length === 0 ? 'configuration file applied: no changes' : 'configuration file applied',
      );
    } catch (error) {
      if (error instanceof ConfigFileError || error instanceof PlanError)
        logger.error({ file, reason, faults: error.faults }, 'configuration file refused: nothing changed');
      else logger.error({ file, reason, error: (error as Error).message }, 'configuration file not applied');
    }
  };
  // One apply at a time; triggers during one make one more after it.
  let running: Promise<void> | null = null;
  let again: string | null = null;
  const applyNow = (reason: string): Promise<void> => {
    if (running !== null) {
      again = reason;
      return running;
    }
    running = (async () => {
      let next: string | null = reason;
      while (next !== null) {
        again = null;
        await applyOnce(next);
        next = again;
      }
      running = null;
    })();
    return running;
  };
  const onHangup = () => void applyNow('SIGHUP');
  process.on('SIGHUP', onHangup);
  // The directory is watched: editors replace a file rather than write it in place.
  let debounce: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(path.dirname(file), (_event, changed) => {
      if (changed !== null && changed !== fileName) return;
      clearTimeout(debounce);
      debounce = setTimeout(() => void applyNow('changed'), 300);
    });
    watcher.on('error', (error) => logger.warn({ file, error: error.message }, 'configuration file not watched'));
  } catch (error) {
    logger.warn({ file, error: (error as Error).message }, 'configuration file not watched: SIGHUP applies it');
  }
  return {
    applyNow,
    stop: () => {
      process.off('SIGHUP', onHangup);
      clearTimeout(debounce);
      watcher?.close();
    },
  };
};
