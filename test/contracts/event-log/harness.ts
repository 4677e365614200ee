import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import type { EventLog, NewEvent, RecordedEvent } from '../../../src/log/event-log.ts';

/** What an adapter's test opens for each test of the contract: `log` on empty storage; `reopen`
 *  (when given) opens the same storage again, for durability checks. */
export interface EventLogFixture {
  log: EventLog;
  reopen?: () => Promise<EventLog>;
  cleanup: () => Promise<void>;
}

/** Declares one test of the contract, run on a log of its own. */
export type WithLog = (title: string, body: (t: ExecutionContext, f: EventLogFixture) => Promise<void>) => void;

export const logTest = (adapter: string, open: () => Promise<EventLogFixture>, serial: boolean): WithLog => {
  const register = serial ? test.serial : test;
  return (title, body) =>
    register(`${adapter} event log: ${title}`, async (t) => {
      const fixture = await open();
      try {
        await body(t, fixture);
      } finally {
        await fixture.cleanup();
      }
    });
};

export const event = (type = 'ProjectCreated', data: unknown = { n: 1 }): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { recorded_at: new Date().toISOString(), actor: 'test', correlation_id: 'c', schema_version: 1 },
});

export const collect = async (log: EventLog, after: string | null, count: number): Promise<RecordedEvent[]> => {
  const subscription = log.subscribeAll(after);
  const seen: RecordedEvent[] = [];
  for await (const batch of subscription) {
    seen.push(...batch);
    if (seen.length >= count) break;
  }
  await subscription.close();
  return seen;
};
