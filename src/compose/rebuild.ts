import pino from 'pino';
import { Projector } from '../../projections/projector.ts';
import type { Stores } from './stores.ts';

/** The projections replayed together by the last batch, and how far they are. */
export interface RebuildProgress { projections: readonly string[]; position: string; head: string | null }

/** Drops every read model and replays the whole log into it. The service must be stopped:
 *  a running projector would keep writing into the models being dropped. */
export const rebuildReadModels = async (stores: Pick<Stores, 'log' | 'runners' | 'readModels'>, onProgress: (p: RebuildProgress) => void): Promise<{ head: string | null }> => {
  const head = await stores.log.headPosition();
  const projector = new Projector(stores.log, stores.runners, stores.readModels.leases, pino({ level: 'silent' }));
  await projector.catchUp((projections, position) => onProgress({ projections, position, head }), { reset: true });
  return { head };
};
