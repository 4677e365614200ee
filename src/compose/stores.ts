import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { EventLog, LogObserver } from '../log/event-log.ts';
import { streamFamily } from '../domain/streams.ts';
import { SqliteEventLog } from '../log/sqlite/event-log.ts';
import type { ReadModels } from '../views/read-models.ts';
import type { ReactorStates } from '../reactors/port.ts';
import type { ProjectionRunner } from '../../projections/projector.ts';
import type { LoginThrottle } from '../views/login-throttle/port.ts';
import { sqliteLoginThrottle } from '../views/login-throttle/sqlite.ts';
import { openViewsDatabase } from '../views/store/sqlite.ts';
import type { TreeQueries } from '../views/tree/port.ts';
import { sqliteTree } from '../views/tree/sqlite.ts';
import { SchemaBusyError } from '../views/store/port.ts';
import { READ_MODEL_KEYS, openSqliteReadModels, projectionRunners } from './read-models.ts';
import { openSqliteReactorStates } from './reactors.ts';
import { switchingReadModels } from './views-generation.ts';
import { StartupError } from '../startup-error.ts';
import { VIEWS_FILE, statePath, viewsPath } from '../views/store/sqlite-files.ts';

/** The embedded log's file in the data dir. */
const LOG_FILE = 'log.db';

export type StoreConfig = Pick<Config, 'dataDir' | 'eventStoreUrl' | 'eventStoreNamespace' | 'mongoUrl'>;

/** The log, the read models and the projections bound to them, and the reactors' state. */
export interface Stores {
  readonly log: EventLog;
  readonly readModels: ReadModels;
  /** What reactors did and how far they are: never rebuilt, beside their leases. */
  readonly reactorStates: ReactorStates;
  readonly runners: readonly ProjectionRunner[];
  /** Whether the read models are the embedded SQLite file, whose writes are synchronous: a
   *  projector beside an HTTP server then runs on its own thread. */
  readonly embeddedReadModels: boolean;
  /** Moves the read models to the generation `views.db` names now (after a rebuild published
   *  one); null for MongoDB's, which are rebuilt in place. */
  readonly switchViews: (() => Promise<void>) | null;
  close(): Promise<void>;
}

const ensureDataDir = (dir: string) => {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new StartupError(`data directory ${dir} is not writable: ${(error as Error).message}`);
  }
};

export const openLog = async (
  config: StoreConfig,
  writerThread: boolean,
  logger?: Logger,
  observer?: LogObserver,
): Promise<EventLog> => {
  const observed = observer ? { onCommitted: observer.committed } : {};
  if (config.eventStoreUrl === undefined) {
    return new SqliteEventLog(path.join(config.dataDir, LOG_FILE), {
      writerThread,
      ...observed,
      compaction: { familyOf: streamFamily },
      onWriterStateChange(state) {
        if (state.running) logger?.info('log writer thread running again');
        else
          logger?.error(
            { reason: state.reason },
            'log writer thread stopped; restarting it (appends wait, then answer 503)',
          );
      },
    });
  }
  // Loaded only here: the KurrentDB client (gRPC) costs every thread that loads it ~35 MB.
  const { KurrentEventLog } = await import('../log/kurrent.ts');
  const log = new KurrentEventLog(config.eventStoreUrl, {
    namespace: config.eventStoreNamespace,
    ...observed,
    ...(observer?.unscavenged ? { onUnscavenged: observer.unscavenged } : {}),
  });
  try {
    await log.ping();
  } catch (error) {
    await log.close();
    throw new StartupError(`cannot reach KurrentDB (WATCHLOG_EVENTSTORE_URL): ${(error as Error).message}`);
  }
  return log;
};

/** The log of a deployment that exists already, for a command run beside it (`watchlog admin`):
 *  on the embedded default, a data dir without a log is a mistake in WATCHLOG_DATA_DIR, not a new
 *  deployment to create. */
export const openExistingLog = async (config: StoreConfig): Promise<EventLog> => {
  if (config.eventStoreUrl === undefined && !existsSync(path.join(config.dataDir, LOG_FILE))) {
    throw new StartupError(`no event log in ${config.dataDir} (is WATCHLOG_DATA_DIR set as for the service?)`);
  }
  return openLog(config, false);
};

/** A stopped embedded deployment as `watchlog verify --data-dir` reads it: its log, and its tree
 *  read model opened read-only; null when the data dir holds no such deployment. */
export const openStoppedDeployment = (
  dataDir: string,
): { log: EventLog; tree: TreeQueries; close(): Promise<void> } | null => {
  const logFile = path.join(dataDir, LOG_FILE);
  const viewsFile = path.join(dataDir, VIEWS_FILE);
  if (!existsSync(logFile) || !existsSync(viewsFile)) return null;
  const log = new SqliteEventLog(logFile);
  const views = new Database(viewsFile, { readonly: true, fileMustExist: true });
  return {
    log,
    tree: sqliteTree.queries(views),
    async close() {
      views.close();
      await log.close();
    },
  };
};

/** The read models and the reactors' state: `views.db` (whichever generation it names) and
 *  `state.db` in the data dir, or one MongoDB database. */
const openReadStores = async (
  config: StoreConfig,
): Promise<Pick<Stores, 'readModels' | 'reactorStates' | 'switchViews'>> => {
  if (config.mongoUrl === undefined) {
    try {
      const switching = await switchingReadModels(
        () => openSqliteReadModels(viewsPath(config.dataDir)),
        READ_MODEL_KEYS,
      );
      const reactorStates = await openSqliteReactorStates(statePath(config.dataDir)).catch(async (error: unknown) => {
        await switching.readModels.close();
        throw error;
      });
      return { readModels: switching.readModels, reactorStates, switchViews: () => switching.switch() };
    } catch (error) {
      if (error instanceof SchemaBusyError) throw new StartupError(error.message);
      throw error;
    }
  }
  const { openMongoStores } = await import('./mongo-read-models.ts');
  try {
    return { ...(await openMongoStores(config.mongoUrl)), switchViews: null };
  } catch (error) {
    throw new StartupError(`cannot reach MongoDB (WATCHLOG_MONGO_URL): ${(error as Error).message}`);
  }
};

/** Embedded SQLite files in the data dir, or KurrentDB / MongoDB when their URLs are configured.
 *  `writerThread`: the embedded log commits on a thread of its own (servers), not the caller's;
 *  `observer` is told the size and time of each of its commits, and what its reads skip (metrics). */
export const openStores = async (
  config: StoreConfig,
  { writerThread, logger, observer }: { writerThread: boolean; logger?: Logger; observer?: LogObserver },
): Promise<Stores> => {
  ensureDataDir(config.dataDir);
  const log = await openLog(config, writerThread, logger, observer);
  const { readModels, reactorStates, switchViews } = await openReadStores(config).catch(async (error: unknown) => {
    await log.close();
    throw error;
  });
  return {
    log,
    readModels,
    reactorStates,
    switchViews,
    runners: projectionRunners(readModels),
    embeddedReadModels: config.mongoUrl === undefined,
    async close() {
      await log.close();
      await readModels.close();
      await reactorStates.close();
    },
  };
};

/** The login throttle in the read-model store, where every API process sees the same counts: a
 *  connection of its own to `state.db` (a rebuild does not reset it), or to the MongoDB database
 *  of the read models. */
export const openLoginThrottle = async (config: StoreConfig & Pick<Config, 'loginLimits'>): Promise<LoginThrottle> => {
  if (config.mongoUrl === undefined) {
    const db = openViewsDatabase(statePath(config.dataDir));
    const throttle = sqliteLoginThrottle(db, config.loginLimits);
    return {
      ...throttle,
      async close() {
        await throttle.close();
        db.close();
      },
    };
  }
  const [{ MongoClient }, { mongoDatabaseName }, { mongoLoginThrottle }] = await Promise.all([
    import('mongodb'),
    import('./mongo-read-models.ts'),
    import('../views/login-throttle/mongo.ts'),
  ]);
  const client = new MongoClient(config.mongoUrl, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.connect();
    const throttle = await mongoLoginThrottle(client.db(mongoDatabaseName(config.mongoUrl)), config.loginLimits);
    return {
      ...throttle,
      async close() {
        await throttle.close();
        await client.close();
      },
    };
  } catch (error) {
    await client.close();
    throw new StartupError(`cannot reach MongoDB (WATCHLOG_MONGO_URL): ${(error as Error).message}`);
  }
};
