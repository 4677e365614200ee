import { randomUUID } from 'node:crypto';
import type { NewEvent } from '../../../src/log/event-log.ts';
import { event, type WithLog } from './harness.ts';

export const appendOnceContract = (withLog: WithLog): void => {
  const recordedAt = (ms: number): NewEvent => ({
    ...event('AuditEventRecorded', { at: ms }),
    metadata: {
      recorded_at: new Date(ms).toISOString(),
      actor: 'test',
      correlation_id: 'c',
      schema_version: 1,
      idempotency_fingerprint: `f${ms}`,
    },
  });
  const T = Date.UTC(2026, 10, 24, 12);

  withLog(
    'appendOnce stores an event once per stream within the window; a repeat answers the first, and stores nothing',
    async (t, { log }) => {
      const stream = `audit-once-${randomUUID()}`;
      const before = await log.headPosition();
      const first = recordedAt(T);
      const [stored] = await log.appendOnce([{ stream, event: first }], 60_000);
      t.false(stored!.replay);
      t.is(stored!.id, first.id);
      const [repeat] = await log.appendOnce([{ stream, event: recordedAt(T + 59_999) }], 60_000);
      t.true(repeat!.replay);
      t.is(repeat!.id, first.id, "the first event's id");
      t.is(repeat!.position, stored!.position);
      t.is(
        repeat!.replay && repeat!.metadata.idempotency_fingerprint,
        `f${T}`,
        'with its metadata, to tell another request apart',
      );
      t.deepEqual(
        (await log.readStream(stream)).map((e) => e.id),
        [first.id],
      );
      t.is((await log.readAll(before, 100)).filter((e) => e.stream === stream).length, 1);
    },
  );

  withLog(
    'appendOnce: past the window the stream takes the event as its next one; ' +
      'two of one stream in one call store the first',
    async (t, { log }) => {
      const stream = `audit-once-${randomUUID()}`;
      const [a, b, c] = [recordedAt(T), recordedAt(T + 1), recordedAt(T + 60_000)];
      const [first, second] = await log.appendOnce(
        [
          { stream, event: a },
          { stream, event: b },
        ],
        60_000,
      );
      t.false(first!.replay);
      t.true(second!.replay);
      t.is(second!.id, a.id);
      const [later] = await log.appendOnce([{ stream, event: c }], 60_000);
      t.false(later!.replay, 'the window has passed');
      t.deepEqual(
        (await log.readStream(stream)).map((e) => [e.id, e.revision]),
        [
          [a.id, 0],
          [c.id, 1],
        ],
      );
    },
  );

  withLog(
    'appendOnce under concurrency: ten at once with one stream store one event, and all answer its id',
    async (t, { log }) => {
      const stream = `audit-once-${randomUUID()}`;
      const events = Array.from({ length: 10 }, (_, i) => recordedAt(T + i));
      const outcomes = (await Promise.all(events.map((e) => log.appendOnce([{ stream, event: e }], 60_000)))).flat();
      t.is(outcomes.filter((o) => !o.replay).length, 1);
      const [kept] = await log.readStream(stream);
      t.truthy(kept);
      t.true(outcomes.every((o) => o.id === kept!.id));
      t.is((await log.readStream(stream)).length, 1);
    },
  );

  withLog('appendOnce with other appends of the same turn: each kind as asked, all durable', async (t, fixture) => {
    const { log } = fixture;
    const [keyed, plain] = [`audit-once-${randomUUID()}`, `audit-plain-${randomUUID()}`];
    const e = recordedAt(T);
    const [once, appended] = await Promise.all([
      log.appendOnce([{ stream: keyed, event: e }], 60_000),
      log.append(plain, [event(), event()], 'any'),
    ]);
    t.false(once[0]!.replay);
    t.is(appended.revision, 1);
    if (fixture.reopen) {
      const again = await fixture.reopen();
      try {
        const [repeat] = await again.appendOnce([{ stream: keyed, event: recordedAt(T + 5) }], 60_000);
        t.true(repeat!.replay, 'the stored event is still found after a reopen');
        t.is(repeat!.id, e.id);
        t.is((await again.readStream(plain)).length, 2);
      } finally {
        await again.close();
      }
    }
  });
};
