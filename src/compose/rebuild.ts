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

/** One progress line: percentage, position of head, rate and time left, and what moved. Rates
 *  are of log positions (events on the embedded log, whose positions are dense). */
export const progressLine = (p: RebuildProgress, elapsedMs: number, width = 20): string => {
  const position = Number(p.position);
  const head = p.head === null ? position : Number(p.head);
  const ratio = head > 0 ? Math.min(1, position / head) : 1;
  const rate = elapsedMs > 0 ? Math.round((position * 1000) / elapsedMs) : 0;
  const eta = rate > 0 ? Math.ceil((head - position) / rate) : 0;
  const filled = Math.round(ratio * width);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
  return `rebuild [${bar}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${position}/${head} (${rate} ev/s, ETA ${eta} s): ${p.projections.join(', ')}`;
};
