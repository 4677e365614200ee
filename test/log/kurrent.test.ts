import test from 'ava';
import { createServer, type AddressInfo } from 'node:net';
import { KurrentEventLog } from '../../src/log/kurrent.ts';
import { eventLogContract } from '../contracts/event-log.ts';

/** The event-log contract on KurrentDB, when WATCHLOG_EVENTSTORE_URL names a server. The tests
 *  use streams of their own and run serially (they read $all around their own appends). */
const url = process.env.WATCHLOG_EVENTSTORE_URL;

if (url === undefined) {
  test.skip('kurrentdb event log contract: skipped, WATCHLOG_EVENTSTORE_URL is not set', (t) => t.pass());
} else {
  eventLogContract(
    'kurrentdb',
    async () => {
      const fixture = {
        log: new KurrentEventLog(url),
        reopen: async () => new KurrentEventLog(url),
        cleanup: async () => {
          await fixture.log.close();
        },
      };
      return fixture;
    },
    { serial: true },
  );
}

/** No server needed: one that accepts connections and never answers (a hung node, a proxy with
 *  nothing behind it). The client's own retries would wait far longer than the deadline. */
test('ping fails within its deadline against a server that never answers', async (t) => {
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => silent.close());
  const log = new KurrentEventLog(`kurrentdb://127.0.0.1:${(silent.address() as AddressInfo).port}?tls=false`);
  t.teardown(() => log.close());
  const started = performance.now();
  await t.throwsAsync(log.ping(500));
  t.true(performance.now() - started < 3000, `answered after ${Math.round(performance.now() - started)} ms`);
});
