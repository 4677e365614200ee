import pino from 'pino';
import { Projector } from '../projections/projector.ts';
import type { Runtime } from './runtime.ts';

export interface RebuildProgress { projection: string; position: string; head: string | null }

/** Drops every read model and replays the whole log into it. The service must be stopped:
 *  a running projector would keep writing into the models being dropped. */
export const rebuildReadModels = async (runtime: Runtime, onProgress: (p: RebuildProgress) => void): Promise<{ head: string | null }> => {
  const head = await runtime.log.headPosition();
  const projector = new Projector(runtime.log, runtime.runners, runtime.readModels.leases, pino({ level: 'silent' }));
  await projector.catchUp((projection, position) => onProgress({ projection, position, head }), { reset: true });
  return { head };
};
