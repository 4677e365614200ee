import { rmSync } from 'node:fs';
import pino from 'pino';
import { Projector, newLeaseHolder, type ProjectionRunner } from '../../projections/projector.ts';
import { comparePositions, type EventLog } from '../log/event-log.ts';
import { SqliteLeases, openViewsDatabase } from '../views/store/sqlite.ts';
import { nextViews, publishViews, statePath } from '../views/store/sqlite-files.ts';
import { startThread } from '../threads.ts';
import { READ_MODEL_NAMES, bulkSqliteReadModels, openSqliteReadModels, projectionRunners } from './read-models.ts';
import type { StoreConfig, Stores } from './stores.ts';

/** The projections replayed together by the last batch, and how far they are. */
export interface RebuildProgress {
  projections: readonly string[];
  position: string;
  head: string | null;
}

export type RebuildStep = 'replay' | 'indexes' | 'catch-up' | 'published';

const SILENT = pino({ level: 'silent' });

/** Drops every read model and replays the whole log into it, in place. The service must be
 *  stopped: a running projector would keep writing into the models being dropped. (MongoDB's
 *  way; the embedded store builds a new generation instead, `rebuildEmbeddedReadModels`.) */
export const rebuildReadModels = async (
  stores: Pick<Stores, 'log' | 'runners' | 'readModels'>,
  onProgress: (p: RebuildProgress) => void,
): Promise<{ head: string | null }> => {
  const head = await stores.log.headPosition();
  const projector = new Projector(stores.log, stores.runners, stores.readModels.leases, SILENT);
  await projector.catchUp((projections, position) => onProgress({ projections, position, head }), { reset: true });
  return { head };
};

/** One rebuild at a time on a data dir: a lease in its state file. Long, because the rebuild's
 *  thread renews it only between steps that may each take a while over a large log (a batch, an
 *  index); a rebuild that died leaves nothing in the way all the same, as a lease whose holder's
 *  process is gone is taken over at once (every holder runs on this machine). */
const REBUILD_LEASE = 'rebuild';
const REBUILD_LEASE_MS = 10 * 60_000;
/** Batches of the bulk replay: large, as nothing else writes the file. */
const BULK_BATCH = 10_000;
/** Published once the new generation is this close to the log's head: the live projectors
 *  catch up the rest. */
const CLOSE_ENOUGH = 5_000;

export class RebuildRunningError extends Error {
  constructor(holder: string) {
    super(`another rebuild of this data dir is running (${holder})`);
  }
}

/** The projections a rebuild replays on its second thread, into a file of its own: together
 *  about as costly per record as the rest and the audit events' indexes, which the first thread
 *  makes as soon as its replay is done (`BENCH_REBUILD_LANES=1 npm run bench rebuild` prints each
 *  projection's cost), and of small rows, which are cheap to copy into the new generation
 *  afterwards. The largest table, the audit events, is filled where it stays. */
export const SIDE_LANE: ReadonlySet<string> = new Set(['tree', 'stats-buckets', 'derived-sessions', 'anomaly-windows']);

/** What the side lane's thread is given, and what it says. */
export interface RebuildLaneData {
  log: StoreConfig;
  file: string;
  projections: string[];
  batchSize: number;
  timed: boolean;
}
export type FromRebuildLane =
  | { type: 'progress'; projections: readonly string[]; position: string; head: string | null }
  | { type: 'applied'; projection: string; ms: number }
  | { type: 'done' }
  | { type: 'failed'; message: string };

/** The runners timed: they take turns over a batch (they share one thread anyway), so each one's
 *  time is its own. */
export const timedRunners = (
  runners: readonly ProjectionRunner[],
  onApplied: (projection: string, ms: number) => void,
): ProjectionRunner[] => {
  let turn = Promise.resolve();
  return runners.map(
    (runner): ProjectionRunner => ({
      ...runner,
      process: (batch, lease, decode) => {
        const run = turn.then(async () => {
          const started = performance.now();
          await runner.process(batch, lease, decode);
          onApplied(runner.name, performance.now() - started);
        });
        turn = run.catch(() => undefined);
        return run;
      },
    }),
  );
};

/** Only what opening the log needs crosses to the thread (a whole Config may hold what cannot). */
const storeConfigOf = ({ dataDir, eventStoreUrl, eventStoreNamespace, mongoUrl }: StoreConfig): StoreConfig => ({
  dataDir,
  eventStoreUrl,
  eventStoreNamespace,
  mongoUrl,
});

/** The side lane on its thread; resolves once its file is complete and closed. */
const runSideLane = (
  data: RebuildLaneData,
  onProgress: (position: string, projections: readonly string[]) => void,
  onApplied?: (projection: string, ms: number) => void,
): Promise<void> =>
  new Promise((resolve, reject) => {
    const worker = startThread(import.meta.url, 'rebuild-lane', data);
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      if (error) reject(error);
      else resolve();
    };
    worker.on('message', (message: FromRebuildLane) => {
      if (message.type === 'progress') onProgress(message.position, message.projections);
      else if (message.type === 'applied') onApplied?.(message.projection, message.ms);
      else if (message.type === 'done') settle();
      else settle(new Error(`the rebuild's second lane failed: ${message.message}`));
    });
    worker.on('error', (error) => settle(error));
    worker.on('exit', (code) =>
      settle(code === 0 ? undefined : new Error(`the rebuild's second lane stopped (exit code ${code})`)),
    );
  });

export interface RebuildOptions {
  onStep?: (step: RebuildStep) => void;
  onApplied?: (projection: string, ms: number) => void;
  /** The log's configuration, for the second lane's thread to open it: without it, one lane. */
  laneLog?: StoreConfig;
}

/** The embedded store's rebuild, which the service need not stop for: the read models are built
 *  anew in the next generation's file (src/views/store/sqlite-files.ts) while the service answers from the
 *  current one. First in bulk, up to the log's head as it was at the start: no journal, no
 *  sync, large transactions, the query indexes made after the rows are in. Given the log's
 *  configuration (`laneLog`), the projections of SIDE_LANE are replayed meanwhile on a second
 *  thread, into a file of their own, which is then copied in. Then in ordinary transactions,
 *  catching up what was appended meanwhile until it is within CLOSE_ENOUGH events of the head.
 *  Then published: every process moves to it, and its projectors go on from its checkpoints.
 *  What reactors recorded (state.db) is not touched. `onApplied` is told how long each
 *  projection took over each bulk batch (what `npm run bench rebuild` reports). */
export const rebuildEmbeddedReadModels = async (
  dir: string,
  log: EventLog,
  onProgress: (p: RebuildProgress) => void,
  { onStep = () => undefined, onApplied, laneLog }: RebuildOptions = {},
): Promise<{ head: string | null; file: string; readModels: number }> => {
  const state = openViewsDatabase(statePath(dir));
  const leases = new SqliteLeases(state);
  const holder = newLeaseHolder();
  const held = await leases.acquire(REBUILD_LEASE, holder, REBUILD_LEASE_MS);
  if (!held) {
    const other = await leases.holderOf(REBUILD_LEASE);
    state.close();
    throw new RebuildRunningError(other?.holder ?? 'unknown');
  }
  const renewal = setInterval(() => void leases.acquire(REBUILD_LEASE, holder, REBUILD_LEASE_MS), REBUILD_LEASE_MS / 3);
  let laneFile: string | null = null;
  try {
    const file = nextViews(dir);
    const head = await log.headPosition();
    onStep('replay');
    const lanes = laneLog !== undefined;
    const mainLane = new Set(READ_MODEL_NAMES.filter((name) => !lanes || !SIDE_LANE.has(name)));
    const bulk = bulkSqliteReadModels(file, mainLane);
    const readModels = READ_MODEL_NAMES.length;
    try {
      // Progress is the slower lane's (a lane that has not reported yet is at the start); what
      // moved, the lane's that did.
      const positions = new Map<string, string>(
        lanes
          ? [
              ['main', '0'],
              ['side', '0'],
            ]
          : [],
      );
      const report = (lane: string, position: string, projections: readonly string[]) => {
        positions.set(lane, position);
        const slowest = [...positions.values()].reduce((a, b) => (comparePositions(a, b) <= 0 ? a : b));
        onProgress({ projections, position: slowest, head });
      };
      laneFile = lanes ? `${file.slice(0, -'.db'.length)}-lane.db` : null;
      const side =
        laneLog !== undefined && laneFile !== null
          ? runSideLane(
              {
                log: storeConfigOf(laneLog),
                file: laneFile,
                projections: [...SIDE_LANE],
                batchSize: BULK_BATCH,
                timed: onApplied !== undefined,
              },
              (position, projections) => report('side', position, projections),
              onApplied,
            )
          : Promise.resolve();
      const runners = onApplied === undefined ? bulk.runners : timedRunners(bulk.runners, onApplied);
      const main = new Projector(log, runners, bulk.leases, SILENT)
        .catchUp((projections, position) => report('main', position, projections), { batchSize: BULK_BATCH })
        // This lane's indexes while the other lane may still be replaying.
        .then(() => (lanes ? bulk.makeIndexes(mainLane) : undefined));
      // Both to their end before anything is closed, whichever fails.
      const [mainDone, sideDone] = await Promise.allSettled([main, side]);
      for (const done of [mainDone, sideDone]) if (done.status === 'rejected') throw done.reason;
      if (laneFile !== null) bulk.absorb(laneFile, [...SIDE_LANE]);
      onStep('indexes');
    } finally {
      await bulk.finish();
    }
    onStep('catch-up');
    const models = await openSqliteReadModels(file);
    try {
      const projector = new Projector(log, projectionRunners(models), models.leases, SILENT);
      for (;;) {
        const now = await log.headPosition();
        const checkpoints = await Promise.all(projector.runners.map((r) => r.checkpoint()));
        const behind = Math.max(...checkpoints.map((c) => Number(now ?? 0) - Number(c ?? 0)));
        if (!(behind > CLOSE_ENOUGH)) break;
        await projector.catchUp((projections, position) => onProgress({ projections, position, head: now }));
      }
    } finally {
      await models.close();
    }
    publishViews(dir, file);
    onStep('published');
    return { head, file, readModels };
  } finally {
    if (laneFile !== null) rmSync(laneFile, { force: true });
    clearInterval(renewal);
    await leases.release(REBUILD_LEASE, holder).catch(() => undefined);
    state.close();
  }
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
  return (
    `rebuild [${bar}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${position}/${head} (${rate} ` +
    `ev/s, ETA ${eta} s): ${p.projections.join(', ')}`
  );
};
