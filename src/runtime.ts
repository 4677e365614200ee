import { mkdirSync, accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { CommandDeps } from './commands/context.ts';
import { registerUser } from './commands/users.ts';
import { DomainError } from './domain/errors.ts';
import type { EventLog } from './log/event-log.ts';
import { KurrentEventLog } from './log/kurrent.ts';
import { SqliteEventLog } from './log/sqlite.ts';
import type { ReadModels } from './views/ports.ts';
import { openMongoReadModels } from './views/mongo/index.ts';
import { openSqliteReadModels } from './views/sqlite/index.ts';
import { loadOrCreateSecret } from './secrets.ts';
import { loadOrCreateVapidKeys, type VapidKeys } from './notify/webpush.ts';
import { accessProjection } from '../projections/access.ts';
import { auditEventsProjection } from '../projections/audit-events.ts';
import { derivedSessionsProjection } from '../projections/derived-sessions.ts';
import { statsProjection } from '../projections/stats.ts';
import { orphansProjection } from '../projections/orphans.ts';
import { monitorsProjection } from '../projections/monitors.ts';
import { channelsProjection } from '../projections/channels.ts';
import { anomalyWindowsProjection } from '../projections/anomaly-windows.ts';
import { anomaliesProjection } from '../projections/anomalies.ts';
import { bindProjection, waitForCheckpoint, type ProjectionRunner } from '../projections/projector.ts';

/** The stores and projections of one deployment, opened from the configuration. */
export interface Runtime {
  readonly log: EventLog;
  readonly readModels: ReadModels;
  readonly runners: readonly ProjectionRunner[];
  readonly commands: CommandDeps;
  readonly jwtSecret: string;
  /** Web Push keys: from the configuration, else generated once into the data dir. */
  readonly vapid: VapidKeys;
  /** Resolves true once the named read models have applied the log up to `position` (false after
   *  `timeoutMs`). */
  settled(projections: readonly string[], position: string, timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export class StartupError extends Error {}

const ensureDataDir = (dir: string) => {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new StartupError(`data directory ${dir} is not writable: ${(error as Error).message}`);
  }
};

export type StoreConfig = Pick<Config, 'dataDir' | 'eventStoreUrl' | 'eventStoreNamespace' | 'mongoUrl'>;

const openLog = async (config: StoreConfig, writerThread: boolean): Promise<EventLog> => {
  if (config.eventStoreUrl === undefined) return new SqliteEventLog(path.join(config.dataDir, 'log.db'), { writerThread });
  const log = new KurrentEventLog(config.eventStoreUrl, { namespace: config.eventStoreNamespace });
  try {
    await log.ping();
  } catch (error) {
    await log.close();
    throw new StartupError(`cannot reach KurrentDB (WATCHLOG_EVENTSTORE_URL): ${(error as Error).message}`);
  }
  return log;
};

const openReadModels = async (config: StoreConfig): Promise<ReadModels> => {
  if (config.mongoUrl === undefined) return openSqliteReadModels(path.join(config.dataDir, 'views.db'));
  try {
    return await openMongoReadModels(config.mongoUrl);
  } catch (error) {
    throw new StartupError(`cannot reach MongoDB (WATCHLOG_MONGO_URL): ${(error as Error).message}`);
  }
};

/** The log, the read models and the projections bound to them: embedded SQLite files in the
 *  data dir, or KurrentDB / MongoDB when their URLs are configured. */
export const openStores = async (config: StoreConfig, options: { writerThread: boolean }) => {
  ensureDataDir(config.dataDir);
  const log = await openLog(config, options.writerThread);
  const readModels = await openReadModels(config).catch(async (error: unknown) => {
    await log.close();
    throw error;
  });
  const runners = [
    bindProjection(accessProjection, readModels.stores.access),
    bindProjection(auditEventsProjection, readModels.stores.auditEvents),
    bindProjection(derivedSessionsProjection, readModels.stores.derivedSessions),
    bindProjection(statsProjection, readModels.stores.stats),
    bindProjection(orphansProjection, readModels.stores.orphans),
    bindProjection(monitorsProjection, readModels.stores.monitors),
    bindProjection(channelsProjection, readModels.stores.channels),
    bindProjection(anomalyWindowsProjection, readModels.stores.anomalyWindows),
    bindProjection(anomaliesProjection, readModels.stores.anomalies),
  ];
  return { log, readModels, runners };
};

export const openRuntime = async (config: Config): Promise<Runtime> => {
  const { log, readModels, runners } = await openStores(config, { writerThread: true });
  const runner = (name: string) => runners.find((r) => r.name === name)!;
  const access = runner('access');
  const monitors = runner('monitors');
  const channels = runner('channels');
  const anomalies = runner('anomalies');
  return {
    log,
    readModels,
    runners,
    commands: {
      log, readModels,
      accessSettled: (position) => waitForCheckpoint(access, position),
      monitorsSettled: (position) => waitForCheckpoint(monitors, position),
      channelsSettled: (position) => waitForCheckpoint(channels, position),
      anomaliesSettled: (position) => waitForCheckpoint(anomalies, position),
    },
    jwtSecret: config.jwtSecret ?? loadOrCreateSecret(config.dataDir, 'jwt-secret'),
    vapid: config.vapid ?? loadOrCreateVapidKeys(config.dataDir),
    async settled(projections, position, timeoutMs = 10_000) {
      const results = await Promise.all(projections.map((name) => waitForCheckpoint(runner(name), position, timeoutMs)));
      return results.every(Boolean);
    },
    async close() {
      await log.close();
      await readModels.close();
    },
  };
};

/** Creates the configured admin when no user exists yet. Waits for the access read model to
 *  reach the log's head first, so "no user" is not just "not projected yet"; a long replay (a
 *  restore, a new read store) makes it wait, with a log line every 30 s, not fail. */
export const ensureAdmin = async (runtime: Runtime, admin: Config['admin'], logger: Logger): Promise<void> => {
  if (!admin) return;
  const head = await runtime.log.headPosition();
  const access = runtime.runners.find((r) => r.name === 'access')!;
  while (head !== null && !(await waitForCheckpoint(access, head, 30_000))) {
    logger.warn({ head, checkpoint: await access.checkpoint() }, 'waiting for the access projection to catch up before checking for users');
  }
  if ((await runtime.readModels.access.countUsers()) > 0) return;
  try {
    await registerUser(runtime.commands, { email: admin.email, password: admin.password, role: 'admin', project_ids: [] }, {
      actor: 'system:bootstrap', correlationId: 'bootstrap', now: () => new Date(),
    });
    logger.info({ email: admin.email }, 'admin user created');
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
  }
};
