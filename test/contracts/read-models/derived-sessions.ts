import { randomUUID } from 'node:crypto';
import { addEvent, sessionTimes, type SessionSpan } from '../../../src/domain/sessions.ts';
import type { RecordedEvent } from '../../../src/log/event-log.ts';
import type { ReadModels } from '../../../src/views/read-models.ts';
import { recorded, type WithModels } from './harness.ts';

export const derivedSessionsContract = (withModels: WithModels): void => {
  withModels(
    'derived sessions: out-of-order events land in the right session; replays change nothing; list filters',
    async (t, m) => {
      const MIN = 60_000;
      const p = randomUUID();
      const key = (identifier: string, service_name = 'web') => ({ project_id: p, identifier, service_name });
      const at = (minute: number) => Date.UTC(2026, 2, 1, 8, 0) + minute * MIN;
      // ann: 0, 30 (exactly 30:00 later: same session), then 61 (31 min later: new), then a late 45 that bridges both.
      const plan: Array<[string, number]> = [
        ['ann', 0],
        ['ann', 30],
        ['ann', 61],
        ['bob', 5],
        ['ann', 45],
        ['bob', 36],
      ];
      const batch = plan.map(() => recorded());
      await m.stores.derivedSessions.commit(batch, (r, w) => {
        const [who, minute] = plan[batch.indexOf(r)]!;
        w.event(key(who), at(minute), r.position);
      });
      await m.stores.derivedSessions.commit(batch, (r, w) => {
        const [who, minute] = plan[batch.indexOf(r)]!;
        w.event(key(who), at(minute), r.position);
      });
      const scope = { all: false as const, projectIds: [p] };
      const all = await m.derivedSessions.list({ page: 1, limit: 10 }, scope);
      t.deepEqual(
        all.data.map((s) => [s.identifier, s.session_start, s.session_end, s.event_count, s.duration_seconds]),
        [
          ['bob', new Date(at(36)).toISOString(), new Date(at(36)).toISOString(), 1, 0],
          ['bob', new Date(at(5)).toISOString(), new Date(at(5)).toISOString(), 1, 0],
          ['ann', new Date(at(0)).toISOString(), new Date(at(61)).toISOString(), 4, 61 * 60],
        ],
      );
      t.deepEqual(all.pagination, { page: 1, limit: 10, totalItems: 3, totalPage: 1 });
      t.is((await m.derivedSessions.list({ page: 1, limit: 10, identifier: 'bob' }, scope)).pagination.totalItems, 2);
      t.is((await m.derivedSessions.list({ page: 1, limit: 10, service_name: 'api' }, scope)).pagination.totalItems, 0);
      const fromMinute5 = await m.derivedSessions.list(
        { page: 1, limit: 10, start_date: new Date(at(5)).toISOString() },
        scope,
      );
      t.deepEqual(
        fromMinute5.data.map((s) => s.identifier),
        ['bob', 'bob'],
      );
      t.deepEqual(
        (await m.derivedSessions.list({ page: 2, limit: 2 }, scope)).data.map((s) => s.identifier),
        ['ann'],
      );
      t.is(
        (await m.derivedSessions.list({ page: 1, limit: 10 }, { all: false, projectIds: [randomUUID()] })).pagination
          .totalItems,
        0,
      );
    },
  );

  /** A key's sessions as the domain makes them of its event times, newest first, as listed. */
  const sessionsOf = (times: readonly number[]) =>
    times
      .reduce<SessionSpan[]>((spans, ts) => addEvent(spans, ts), [])
      .reverse()
      .map((span): [string, string, number] => {
        const { session_start, session_end, event_count } = sessionTimes(span);
        return [session_start, session_end, event_count];
      });
  /** Every session of `identifier`, newest first, read page by page. */
  const listedSessions = async (m: ReadModels, projectId: string, identifier: string) => {
    const listed: Array<[string, string, number]> = [];
    for (let page = 1; ; page += 1) {
      const { data, pagination } = await m.derivedSessions.list(
        { project_id: projectId, identifier, page, limit: 100 },
        { all: true },
      );
      listed.push(...data.map((s): [string, string, number] => [s.session_start, s.session_end, s.event_count]));
      if (page >= pagination.totalPage) return { listed, total: pagination.totalItems };
    }
  };
  type Planned = { r: RecordedEvent; identifier: string; ts: number };
  const planSessions = (events: ReadonlyArray<[string, number]>): Planned[] =>
    events.map(([identifier, ts]) => ({ r: recorded(), identifier, ts }));
  const commitSessions = (m: ReadModels, projectId: string, batch: readonly Planned[]) => {
    const byRecord = new Map(batch.map((x) => [x.r, x]));
    return m.stores.derivedSessions.commit(
      batch.map((x) => x.r),
      (r, w) => {
        const { identifier, ts } = byRecord.get(r)!;
        w.event({ project_id: projectId, identifier, service_name: 'web' }, ts, r.position);
      },
    );
  };
  const inBatches = <T>(items: readonly T[], size: number): T[][] =>
    Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

  withModels(
    'derived sessions: 500 sessions of one identifier, late events deep in its history; ' +
      'replays, also after a crash before the checkpoint, change nothing',
    async (t, m, opened) => {
      const MIN = 60_000;
      const p = randomUUID();
      const t0 = Date.UTC(2026, 3, 1);
      // A session every 40 minutes, every third with a second event 5 minutes in.
      const inOrder = Array.from({ length: 500 }, (_, i) => [
        t0 + i * 40 * MIN,
        ...(i % 3 === 0 ? [t0 + (i * 40 + 5) * MIN] : []),
      ]).flat();
      // Joining sessions 100 and 101, and 250 and 251; lengthening 400; a new first session, and
      // one more event 20 minutes before the old first.
      const late = [
        t0 + (100 * 40 + 20) * MIN,
        t0 + (250 * 40 + 25) * MIN,
        t0 + (400 * 40 + 5) * MIN,
        t0 - 61 * MIN,
        t0 - 20 * MIN,
      ];
      const batches = inBatches(planSessions(inOrder.map((ts) => ['ann', ts])), 100);
      const lateBatch = planSessions([
        ...late.map((ts): [string, number] => ['ann', ts]),
        ['bob', t0],
        ['bob', t0 + 31 * MIN],
      ]);
      for (const batch of batches) await commitSessions(m, p, batch);
      await commitSessions(m, p, lateBatch);
      const expected = { listed: sessionsOf([...inOrder, ...late]), total: 499 };
      t.is(expected.listed.length, 499);
      t.deepEqual(await listedSessions(m, p, 'ann'), expected);
      t.deepEqual(await listedSessions(m, p, 'bob'), { listed: sessionsOf([t0, t0 + 31 * MIN]), total: 2 });

      await commitSessions(m, p, lateBatch);
      t.deepEqual(await listedSessions(m, p, 'ann'), expected, 'a batch at or before the checkpoint');
      if (opened.rewindCheckpoint) {
        const name = m.stores.derivedSessions.name;
        await opened.rewindCheckpoint(name, batches.at(-1)!.at(-1)!.r.position);
        await commitSessions(m, p, lateBatch);
        t.deepEqual(
          await listedSessions(m, p, 'ann'),
          expected,
          'the last batch again after a crash before its checkpoint',
        );
        await opened.rewindCheckpoint(name, batches[1]!.at(-1)!.r.position);
        for (const batch of [...batches.slice(2), lateBatch]) await commitSessions(m, p, batch);
        await opened.rewindCheckpoint(name, null);
        await commitSessions(m, p, [...batches.flat(), ...lateBatch]);
        t.deepEqual(await listedSessions(m, p, 'ann'), expected, 'several batches, then everything, again');
        t.deepEqual(await listedSessions(m, p, 'bob'), { listed: sessionsOf([t0, t0 + 31 * MIN]), total: 2 });
      }
    },
  );

  withModels(
    'derived sessions: events in any order, cut into batches anywhere, give the sessions of their sorted times',
    async (t, m, opened) => {
      const MIN = 60_000;
      const p = randomUUID();
      const t0 = Date.UTC(2026, 4, 1);
      // Gaps under, at and over 30 minutes, and repeated times.
      const gaps = [5, 12, 31, 29, 45, 30, 1, 0, 61, 3];
      const times: number[] = [];
      for (let i = 0; i < 200; i += 1) times.push((times.at(-1) ?? t0) + gaps[i % gaps.length]! * MIN);
      const scrambled = times.map((_, k) => times[(k * 73) % times.length]!);
      const plan = planSessions([
        ...scrambled.map((ts): [string, number] => ['cat', ts]),
        ...[...times].reverse().map((ts): [string, number] => ['dan', ts]),
      ]);
      const batches = inBatches(plan, 37);
      for (const batch of batches) await commitSessions(m, p, batch);
      const expected = sessionsOf(times);
      t.true(expected.length > 20 && expected.some(([, , count]) => count > 3), 'sessions of one event and of many');
      t.deepEqual(await listedSessions(m, p, 'cat'), { listed: expected, total: expected.length });
      t.deepEqual(await listedSessions(m, p, 'dan'), { listed: expected, total: expected.length });
      if (opened.rewindCheckpoint) {
        await opened.rewindCheckpoint(m.stores.derivedSessions.name, batches[2]!.at(-1)!.r.position);
        for (const batch of inBatches(plan.slice(3 * 37), 50)) await commitSessions(m, p, batch);
        t.deepEqual(
          await listedSessions(m, p, 'cat'),
          { listed: expected, total: expected.length },
          'replayed after a crash, cut otherwise',
        );
        t.deepEqual(await listedSessions(m, p, 'dan'), { listed: expected, total: expected.length });
      }
    },
  );
};
