import type { Db } from 'mongodb';
import { RateLimiterMongo } from 'rate-limiter-flexible';
import type { LoginLimits } from '../../domain/login-throttle.ts';
import { counterSettings, throttleOver, type LoginThrottle } from './port.ts';

const COLLECTION = 'login_throttle';

/** The login throttle in the read models' MongoDB database, shared by every API replica: one
 *  collection of counters (rate-limiter-flexible's layout: a unique key, atomic
 *  findOneAndUpdate, a TTL index on `expire` that removes what has run out). */
export const mongoLoginThrottle = async (db: Db, limits: LoginLimits): Promise<LoginThrottle> => {
  const settings = counterSettings(limits);
  const limiter = (s: (typeof settings)[keyof typeof settings]) =>
    // The library would create the indexes in the background; they are made (once) below.
    new RateLimiterMongo({ storeClient: db, tableName: COLLECTION, disableIndexesCreation: true, ...s });
  const counters = {
    accountFailures: limiter(settings.accountFailures),
    accountLock: limiter(settings.accountLock),
    addressFailures: limiter(settings.addressFailures),
  };
  await counters.accountFailures.createIndexes();
  return throttleOver(counters, limits, async () => undefined);
};
