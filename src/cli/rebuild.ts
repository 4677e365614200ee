import path from 'node:path';
import { LeasedElsewhereError } from '../../projections/projector.ts';
import type { Config } from '../config.ts';
import {
  RebuildRunningError,
  progressLine,
  rebuildEmbeddedReadModels,
  rebuildReadModels,
  type RebuildProgress,
  type RebuildStep,
} from '../compose/rebuild.ts';
import { openLog, openStores } from '../compose/stores.ts';
import { StartupError } from '../startup-error.ts';

/** `watchlog rebuild`: every read model built again from the log, with progress on stderr (one
 *  line redrawn on a terminal, a line every 2 s otherwise). The embedded store's read models are
 *  built as a new generation beside the running service, which moves to it when it is published;
 *  MongoDB's are dropped and replayed in place, which refuses, in one line, beside a running
 *  worker. */
export const runRebuild = async (config: Config): Promise<void> => {
  const started = Date.now();
  const tty = process.stderr.isTTY === true;
  let lastPrint = 0;
  const onProgress = (progress: RebuildProgress) => {
    const now = Date.now();
    if (now - lastPrint < (tty ? 250 : 2000) && progress.position !== progress.head) return;
    lastPrint = now;
    process.stderr.write(
      tty ? `\r${progressLine(progress, now - started)}\u001b[K` : `${progressLine(progress, now - started)}\n`,
    );
  };
  const STEPS: Record<RebuildStep, string> = {
    replay: 'replaying the log into a new generation of the read models',
    indexes: 'making the query indexes',
    'catch-up': 'catching up with what was appended meanwhile',
    published: 'published: running processes move to it within a second',
  };
  const onStep = (step: RebuildStep) => {
    lastPrint = 0;
    process.stderr.write(
      `${tty && step !== 'replay' ? '\n' : ''}rebuild: ${STEPS[step]} (${Date.now() - started} ms)\n`,
    );
  };
  if (config.mongoUrl === undefined) {
    const log = await openLog(config, false);
    try {
      const { head, file, readModels } = await rebuildEmbeddedReadModels(config.dataDir, log, onProgress, {
        onStep,
        laneLog: config,
      });
      process.stderr.write(
        `rebuild done: ${readModels} read models in ${path.basename(file)}, ` +
          `log head ${head ?? 'empty'}, ${Date.now() - started} ms\n`,
      );
    } catch (error) {
      if (error instanceof RebuildRunningError) throw new StartupError(error.message);
      throw error;
    } finally {
      await log.close();
    }
    return;
  }
  const stores = await openStores(config, { writerThread: false });
  try {
    const { head } = await rebuildReadModels(stores, onProgress);
    process.stderr.write(
      `${tty ? '\n' : ''}rebuild done: ${stores.runners.length} read models, ` +
        `log head ${head ?? 'empty'}, ${Date.now() - started} ms\n`,
    );
  } catch (error) {
    if (error instanceof LeasedElsewhereError) throw new StartupError(error.message);
    throw error;
  } finally {
    await stores.close();
  }
};
