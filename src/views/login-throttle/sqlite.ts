import type Database from 'better-sqlite3';
import { RateLimiterSQLite } from 'rate-limiter-flexible';
import type { LoginLimits } from '../../domain/login-throttle.ts';
import { counterSettings, throttleOver, type LoginThrottle } from './port.ts';

const TABLE = 'login_throttle';
const PURGE_EVERY_MS = 5 * 60_000;

/** The login throttle in the embedded read-model file (`views.db`), which every process on the
 *  data dir opens: one table of counters (rate-limiter-flexible's layout), updated in one
 *  statement each. Expired rows are deleted every five minutes. */
export const sqliteLoginThrottle = (db: Database.Database, limits: LoginLimits): LoginThrottle => {
  // Created here, synchronously: the library would create it asynchronously after construction.
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (key TEXT PRIMARY KEY, points INTEGER NOT NULL DEFAULT 0, expire INTEGER)`,
  );
  const settings = counterSettings(limits);
  const limiter = (s: (typeof settings)[keyof typeof settings]) =>
    new RateLimiterSQLite({ storeClient: db, storeType: 'better-sqlite3', tableName: TABLE, tableCreated: true, ...s });
  const purge = db.prepare(`DELETE FROM ${TABLE} WHERE expire < ?`);
  const timer = setInterval(() => purge.run(Date.now()), PURGE_EVERY_MS);
  timer.unref();
  return throttleOver(
    {
      accountFailures: limiter(settings.accountFailures),
      accountLock: limiter(settings.accountLock),
      addressFailures: limiter(settings.addressFailures),
    },
    limits,
    async () => clearInterval(timer),
  );
};
