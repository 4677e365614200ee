import test from 'ava';
import { KurrentEventLog } from '../../src/log/kurrent.ts';
import { eventLogContract } from '../contracts/event-log.ts';

/** The event-log contract on KurrentDB, when WATCHLOG_EVENTSTORE_URL names a server. The tests
 *  use streams of their own and run serially (they read $all around their own appends). */
const url = process.env.WATCHLOG_EVENTSTORE_URL;

if (url === undefined) {
  test.skip('kurrentdb event log contract: skipped, WATCHLOG_EVENTSTORE_URL is not set', () => {});
} else {
  eventLogContract('kurrentdb', async () => {
    const fixture = {
      log: new KurrentEventLog(url),
      reopen: async () => new KurrentEventLog(url),
      cleanup: async () => {
        await fixture.log.close();
      },
    };
    return fixture;
  }, { serial: true });
}
