import { appendOnceContract } from './event-log/append-once.ts';
import { appendsContract } from './event-log/appends.ts';
import { logTest, type EventLogFixture } from './event-log/harness.ts';
import { maxCountContract } from './event-log/max-count.ts';
import { redactionContract } from './event-log/redaction.ts';
import { subscriptionsContract } from './event-log/subscriptions.ts';

/** The EventLog contract: every adapter passes the same suites (event-log/<concern>.ts), each
 *  test on a log that `open` gives it. `serial`: one test at a time, for a log on a shared server
 *  whose tests read it around their own appends. */
export const eventLogContract = (
  adapter: string,
  open: () => Promise<EventLogFixture>,
  { serial = false } = {},
): void => {
  const withLog = logTest(adapter, open, serial);
  appendsContract(withLog);
  subscriptionsContract(withLog);
  appendOnceContract(withLog);
  maxCountContract(withLog);
  redactionContract(withLog);
};
