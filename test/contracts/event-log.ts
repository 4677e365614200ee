import test from 'ava';
import { randomUUID } from 'node:crypto';
import {
  RedactionUnsupportedError,
  WrongExpectedRevisionError,
  type EventLog,
  type NewEvent,
  type RecordedEvent,
} from '../../src/log/event-log.ts';
import { EMPTY_FRONTIER, appendLeaf, frontierRoot, leafBytes, leafHash } from '../../src/domain/merkle.ts';

/** The EventLog contract: every adapter passes the same suite. `open` returns a log on empty
 *  storage; `reopen` (when given) opens the same storage again, for durability checks. */
export interface EventLogFixture {
  log: EventLog;
  reopen?: () => Promise<EventLog>;
  cleanup: () => Promise<void>;
}

const event = (type = 'ProjectCreated', data: unknown = { n: 1 }): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { recorded_at: new Date().toISOString(), actor: 'test', correlation_id: 'c', schema_version: 1 },
});

const collect = async (log: EventLog, after: string | null, count: number): Promise<RecordedEvent[]> => {
  const subscription = log.subscribeAll(after);
  const seen: RecordedEvent[] = [];
  for await (const batch of subscription) {
    seen.push(...batch);
    if (seen.length >= count) break;
  }
  await subscription.close();
  return seen;
};

export const eventLogContract = (
  adapter: string,
  open: () => Promise<EventLogFixture>,
  { serial = false } = {},
): void => {
  const register = serial ? test.serial : test;
  const withLog = (title: string, body: (t: import('ava').ExecutionContext, f: EventLogFixture) => Promise<void>) =>
    register(`${adapter} event log: ${title}`, async (t) => {
      const fixture = await open();
      try {
        await body(t, fixture);
      } finally {
        await fixture.cleanup();
      }
    });

  withLog('appends and reads a stream in revision order, from a revision', async (t, { log }) => {
    const stream = `s-${randomUUID()}`;
    const first = await log.append(stream, [event(), event()], 'no_stream');
    t.is(first.revision, 1);
    const second = await log.append(stream, [event('ApiKeyIssued', { k: 'v' })], 1);
    t.is(second.revision, 2);
    t.true(BigInt(second.position) > BigInt(first.position));
    const read = await log.readStream(stream);
    t.deepEqual(
      read.map((e) => e.revision),
      [0, 1, 2],
    );
    t.deepEqual(read[2]!.data, { k: 'v' });
    t.is(read[2]!.type, 'ApiKeyIssued');
    t.is(read[2]!.metadata.actor, 'test');
    t.deepEqual(
      (await log.readStream(stream, { fromRevision: 1, maxCount: 1 })).map((e) => e.revision),
      [1],
    );
    t.deepEqual(await log.readStream(`missing-${randomUUID()}`), []);
  });

  withLog('enforces expected revisions with a typed error', async (t, { log }) => {
    const stream = `s-${randomUUID()}`;
    await t.throwsAsync(log.append(stream, [event()], 0), { instanceOf: WrongExpectedRevisionError });
    await log.append(stream, [event()], 'no_stream');
    const dup = await t.throwsAsync(log.append(stream, [event()], 'no_stream'), {
      instanceOf: WrongExpectedRevisionError,
    });
    t.is(dup?.stream, stream);
    await t.throwsAsync(log.append(stream, [event()], 5), { instanceOf: WrongExpectedRevisionError });
    await log.append(stream, [event()], 0);
    await log.append(stream, [event()], 'any');
    t.is((await log.readStream(stream)).length, 3);
  });

  withLog(
    'concurrent appends: one winner per expected revision, and failures do not affect others',
    async (t, { log }) => {
      const stream = `s-${randomUUID()}`;
      await log.append(stream, [event()], 'no_stream');
      const other = `o-${randomUUID()}`;
      const results = await Promise.allSettled([
        log.append(stream, [event()], 0),
        log.append(stream, [event()], 0),
        log.append(other, [event()], 'any'),
        log.append(stream, [event()], 0),
      ]);
      t.is(results.filter((r) => r.status === 'fulfilled').length, 2);
      t.is(results[2]!.status, 'fulfilled');
      t.is(results.filter((r) => r.status === 'rejected' && r.reason instanceof WrongExpectedRevisionError).length, 2);
      t.is((await log.readStream(stream)).length, 2);
    },
  );

  withLog('many concurrent "any" appends get distinct, dense revisions', async (t, { log }) => {
    const stream = `s-${randomUUID()}`;
    await Promise.all(Array.from({ length: 200 }, () => log.append(stream, [event()], 'any')));
    const revisions = (await log.readStream(stream)).map((e) => e.revision);
    t.deepEqual(
      revisions,
      Array.from({ length: 200 }, (_, i) => i),
    );
  });

  withLog('reads all in position order from a position, and knows its head', async (t, { log }) => {
    const before = await log.headPosition();
    const a = await log.append(`a-${randomUUID()}`, [event()], 'any');
    const b = await log.append(`b-${randomUUID()}`, [event(), event()], 'any');
    t.is(await log.headPosition(), b.position);
    const all = await log.readAll(before, 100);
    t.is(all.length, 3);
    t.is(all[0]!.position, a.position);
    t.is(all[2]!.position, b.position);
    const positions = all.map((e) => BigInt(e.position));
    t.deepEqual(
      [...positions].sort((x, y) => (x < y ? -1 : 1)),
      positions,
    );
    t.is((await log.readAll(a.position, 100)).length, 2);
    t.is((await log.readAll(before, 1)).length, 1);
  });

  withLog('catch-up subscription delivers history, then live appends, in order', async (t, { log }) => {
    const start = await log.headPosition();
    const stream = `s-${randomUUID()}`;
    await log.append(stream, [event(), event()], 'any');
    const seen = collect(log, start, 5);
    await new Promise((r) => setTimeout(r, 30));
    await log.append(stream, [event()], 'any');
    await log.append(stream, [event(), event()], 'any');
    const events = await seen;
    t.deepEqual(
      events.map((e) => e.revision),
      [0, 1, 2, 3, 4],
    );
    t.true(events.every((e) => e.stream === stream));
  });

  withLog('a subscription can be closed while waiting', async (t, { log }) => {
    const subscription = log.subscribeAll(await log.headPosition());
    const iterating = (async () => {
      let batches = 0;
      for await (const _ of subscription) batches += 1;
      return batches;
    })();
    await new Promise((r) => setTimeout(r, 20));
    await subscription.close();
    t.is(await iterating, 0);
  });

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
    'appendOnce: past the window the stream takes the event as its next one; two of one stream in one call store the first',
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

  withLog(
    'readPositions: the events at the positions asked, in position order, without those that are not there',
    async (t, { log }) => {
      const stream = `by-position-${randomUUID()}`;
      await log.append(stream, [event('A'), event('B'), event('C'), event('D')], 'any');
      const all = await log.readStream(stream);
      const [a, , c, d] = all;
      const found = await log.readPositions([
        d!.position,
        a!.position,
        c!.position,
        String(BigInt(d!.position) + 1000000n),
      ]);
      t.deepEqual(
        found.map((e) => e.type),
        ['A', 'C', 'D'],
      );
      t.deepEqual(
        found.map((e) => e.data),
        [a!.data, c!.data, d!.data],
      );
      t.deepEqual(await log.readPositions([]), []);
    },
  );

  // The tree of a project must be the same on every log (docs/auditors.md): what a log gives back
  // must hash as what was appended, whatever it does to key order or numbers.
  withLog(
    'leaf bytes survive the log: the tree of the events read back is the tree of the events appended',
    async (t, { log }) => {
      const before = await log.headPosition();
      const stream = `audit-leaves-${randomUUID()}`;
      const appended = [
        event('AuditEventRecorded', {
          z: 1,
          a: { y: [1, 2.5, -0, 1e21, 'é\u2028"\\'], x: null },
          big: 9007199254740991,
          small: 1e-7,
        }),
        event(
          'AuditEventRecorded',
          JSON.parse('{"nested": {"__proto__": {"polluted": true}, "key with space": true, "emoji": "🙂"}}'),
        ),
        event('MonitorCreated', { empty: {}, list: [], t: true, f: false }),
      ];
      await log.append(stream, appended, 'any');
      const back = (await log.readAll(before, 1000)).filter((e) => e.stream === stream);
      const rootOf = (
        records: ReadonlyArray<{ id: string; type: string; data: unknown; metadata: unknown; revision: number }>,
      ) =>
        frontierRoot(
          records.reduce(
            (f, r) =>
              appendLeaf(
                f,
                leafHash(
                  leafBytes({
                    id: r.id,
                    type: r.type,
                    data: r.data,
                    metadata: r.metadata,
                    revision: r.revision,
                    stream,
                  }),
                ),
              ).frontier,
            EMPTY_FRONTIER,
          ),
        ).toString('hex');
      t.is(rootOf(back), rootOf(appended.map((e, revision) => ({ ...e, revision }))));
    },
  );

  withLog('maxCount keeps only the last events of a stream', async (t, { log }) => {
    const stream = `checks-${randomUUID()}`;
    await log.setStreamMaxCount(stream, 3);
    for (let i = 0; i < 5; i += 1) await log.append(stream, [event('CheckRecorded', { i })], 'any');
    const kept = await log.readStream(stream);
    t.deepEqual(
      kept.map((e) => (e.data as { i: number }).i),
      [2, 3, 4],
    );
  });

  withLog(
    'readAll and subscriptions skip what maxCount hides, before any trim: a replay sees what readStream sees',
    async (t, { log }) => {
      const before = await log.headPosition();
      const [capped, other] = [`checks-${randomUUID()}`, `audit-${randomUUID()}`];
      await log.setStreamMaxCount(capped, 2);
      for (let i = 0; i < 5; i += 1) {
        await log.append(capped, [event('CheckRecorded', { i })], 'any');
        await log.append(other, [event('AuditEventRecorded', { i })], 'any');
      }
      const mine = (events: readonly RecordedEvent[]) =>
        events
          .filter((e) => e.stream === capped || e.stream === other)
          .map((e) => `${e.stream === capped ? 'c' : 'o'}${(e.data as { i: number }).i}`);
      const expected = ['o0', 'o1', 'o2', 'c3', 'o3', 'c4', 'o4'];
      t.deepEqual(mine(await log.readAll(before, 100)), expected);
      const page = await log.readAll(before, 3);
      t.is(page.length, 3, 'a page is filled past the hidden events, not cut short');
      t.false(mine(page).some((e) => ['c0', 'c1', 'c2'].includes(e)));
      t.deepEqual(mine(await collect(log, before, 7)).slice(0, 7), expected);
    },
  );

  withLog('trim removes only what maxCount already hides', async (t, { log }) => {
    const stream = `checks-${randomUUID()}`;
    await log.setStreamMaxCount(stream, 2);
    for (let i = 0; i < 5; i += 1) await log.append(stream, [event('CheckRecorded', { i })], 'any');
    const deleted = await log.trim();
    t.true(Number.isInteger(deleted) && deleted >= 0);
    t.deepEqual(
      (await log.readStream(stream)).map((e) => (e.data as { i: number }).i),
      [3, 4],
    );
    const next = await log.append(stream, [event('CheckRecorded', { i: 5 })], 'any');
    t.is(next.revision, 5, 'revisions go on after a trim');
  });

  withLog('onAppend hears each append made through this handle, until removed', async (t, { log }) => {
    let heard = 0;
    const remove = log.onAppend(() => {
      heard += 1;
    });
    await log.append(`s-${randomUUID()}`, [event()], 'no_stream');
    await Promise.all([
      log.append(`s-${randomUUID()}`, [event()], 'any'),
      log.append(`s-${randomUUID()}`, [event()], 'any'),
    ]);
    t.true(heard >= 2, 'a group commit may tell its appends at once');
    const before = heard;
    remove();
    await log.append(`s-${randomUUID()}`, [event()], 'any');
    t.is(heard, before);
  });

  withLog(
    '`redacts` says whether a record can be replaced in place: where it can, the replacement keeps its place; where not, redact refuses and changes nothing',
    async (t, { log }) => {
      const stream = `s-${randomUUID()}`;
      await log.append(
        stream,
        [event('ProjectCreated', { secret: 'x' }), event('ProjectCreated', { other: 1 })],
        'no_stream',
      );
      const [record, next] = await log.readStream(stream);
      const redaction = {
        position: record!.position,
        type: 'RecordRedacted',
        data: { kept: true },
        metadata: record!.metadata,
      };
      if (log.redacts) {
        t.is(await log.redact([redaction]), 1);
        const [after, untouched] = await log.readStream(stream);
        t.like(after, {
          position: record!.position,
          revision: record!.revision,
          id: record!.id,
          type: 'RecordRedacted',
          data: { kept: true },
        });
        t.deepEqual(untouched, next);
      } else {
        await t.throwsAsync(log.redact([redaction]), { instanceOf: RedactionUnsupportedError });
        t.deepEqual(
          (await log.readStream(stream)).map((e) => e.data),
          [{ secret: 'x' }, { other: 1 }],
        );
      }
    },
  );

  withLog('appended events survive a reopen', async (t, fixture) => {
    if (!fixture.reopen) {
      t.pass('adapter has no local reopen');
      return;
    }
    const stream = `s-${randomUUID()}`;
    await fixture.log.append(stream, [event('ProjectCreated', { durable: true })], 'no_stream');
    await fixture.log.close();
    const reopened = await fixture.reopen();
    fixture.log = reopened;
    t.deepEqual(
      (await reopened.readStream(stream)).map((e) => e.data),
      [{ durable: true }],
    );
  });
};
