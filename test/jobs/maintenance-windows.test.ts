import test from 'ava';
import { rmSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { maintenancesProjection } from '../../projections/maintenances.ts';
import { bindProjection } from '../../projections/projector.ts';
import { openSqliteReadModels } from '../../src/compose/read-models.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { MaintenanceSettings } from '../../src/domain/maintenance.ts';
import { openAt } from '../../src/domain/maintenance-schedule.ts';
import { MaintenanceWindows, openIn } from '../../src/jobs/maintenance-windows.ts';
import { Recorder } from '../helpers/recorder.ts';
import { tempDir } from '../helpers/server.ts';

/** The worker's view of the maintenance windows, on a real maintenances read model: what each
 *  check asks (does a window cover this monitor at this time?) and what the clock compares. */

const SILENT = pino({ level: 'silent' });
const P = '7b2d4f60-1a3c-4e5f-8a7b-9c0d1e2f3a01';
const Q = '7b2d4f60-1a3c-4e5f-8a7b-9c0d1e2f3a02';
const [API, WEB] = ['8c3e5a71-2b4d-4f60-9b8c-0d1e2f3a4b01', '8c3e5a71-2b4d-4f60-9b8c-0d1e2f3a4b02'];
const [ALL, LISTED, SUNDAYS] = [1, 2, 3].map((i) => `9d4f6b82-3c5e-4071-8c9d-1e2f3a4b5c0${i}`) as [
  string,
  string,
  string,
];
const sundays = {
  kind: 'recurring' as const,
  rrule: 'FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0;BYSECOND=0',
  starts_at: '2026-01-04T01:00:00.000Z',
  duration_minutes: 120,
  timezone: 'Europe/Berlin',
};

const scheduled = (id: string, settings: Partial<MaintenanceSettings>, project_id = P): DomainEvent => ({
  type: 'MaintenanceScheduled',
  data: {
    maintenance_id: id,
    project_id,
    title: 'Upgrade',
    description: null,
    monitor_ids: 'all',
    schedule: { kind: 'once', starts_at: '2026-03-01T10:00:00.000Z', ends_at: '2026-03-01T11:00:00.000Z' },
    ...settings,
    created_at: '2026-02-01T00:00:00.000Z',
  },
});

const readModels = async (t: import('ava').ExecutionContext) => {
  const dir = tempDir();
  const models = await openSqliteReadModels(path.join(dir, 'views.db'));
  t.teardown(async () => {
    await models.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  const runner = bindProjection(maintenancesProjection, models.stores.maintenances);
  const recorder = new Recorder();
  return { models, fold: (events: DomainEvent[]) => runner.process(recorder.record(events)) };
};

test('openIn merges the occurrences that overlap the time, as the domain does', (t) => {
  const o = [
    { start: 0, end: 10 },
    { start: 5, end: 20 },
    { start: 30, end: 40 },
  ];
  t.deepEqual(openIn(o, 7), { start: 0, end: 20 });
  t.deepEqual(openIn(o, 12), { start: 5, end: 20 });
  t.is(openIn(o, 20), null, 'an end is not inside');
  t.deepEqual(openIn(o, 30), { start: 30, end: 40 }, 'a start is');
  t.is(openIn([], 0), null);
});

test(
  "a recurring window's occurrence, read through the worker's expansions, is the domain's openAt " +
    'at every time, across the daylight-saving change',
  async (t) => {
    const { models } = await readModels(t);
    const windows = new MaintenanceWindows(models.maintenances, SILENT);
    const from = Date.parse('2026-03-20T00:00:00.000Z');
    let open = 0;
    // Every 11 minutes for 17 days: 02:00 Berlin is 01:00 UTC, then 00:00 UTC; on 29 March it does not exist.
    for (let at = from; at < from + 17 * 86_400_000; at += 11 * 60_000) {
      const expected = openAt(sundays, at);
      t.deepEqual(windows.openAt({ id: SUNDAYS, schedule: sundays }, at), expected, new Date(at).toISOString());
      if (expected !== null) open += 1;
    }
    t.true(open > 18, `the window was open at ${open} of the times`);
    t.deepEqual(windows.openAt({ id: SUNDAYS, schedule: sundays }, Date.parse('2026-04-05T00:30:00.000Z')), {
      start: Date.parse('2026-04-05T00:00:00.000Z'),
      end: Date.parse('2026-04-05T02:00:00.000Z'),
    });
    const once = { kind: 'once' as const, starts_at: '2026-04-05T00:00:00.000Z', ends_at: '2026-04-05T00:10:00.000Z' };
    t.is(
      windows.openAt({ id: SUNDAYS, schedule: once }, Date.parse('2026-04-05T00:30:00.000Z')),
      null,
      'a changed schedule is expanded again',
    );
  },
);

test(
  'covers: a window for "all" covers every monitor of its project only, a list only its monitors, ' +
    'and only while an occurrence is open; new, changed and deleted windows are seen after the refresh',
  async (t) => {
    const { models, fold } = await readModels(t);
    await fold([
      scheduled(ALL, {}),
      scheduled(LISTED, { monitor_ids: [API], schedule: sundays }),
      scheduled(SUNDAYS, { monitor_ids: [WEB] }, Q),
    ]);
    const windows = new MaintenanceWindows(models.maintenances, SILENT, { refreshMs: 50 });
    const at = (iso: string) => new Date(iso);
    t.true(await windows.covers(P, API, at('2026-03-01T10:30:00.000Z')));
    t.true(await windows.covers(P, WEB, at('2026-03-01T10:30:00.000Z')), '"all" covers every monitor');
    t.false(await windows.covers(P, WEB, at('2026-03-01T11:00:00.000Z')), 'the end is outside');
    t.false(await windows.covers(Q, API, at('2026-03-01T10:30:00.000Z')), 'another project');
    t.true(await windows.covers(P, API, at('2026-03-08T01:30:00.000Z')), 'a Sunday at 02:30 Berlin');
    t.false(await windows.covers(P, WEB, at('2026-03-08T01:30:00.000Z')), 'the Sunday window lists API only');
    t.false(await windows.covers(Q, WEB, at('2026-03-08T01:30:00.000Z')));

    await fold([
      {
        type: 'MaintenanceUpdated',
        data: { maintenance_id: LISTED, project_id: P, changes: { monitor_ids: [WEB] }, updated_at: '2026-03-02' },
      },
      { type: 'MaintenanceDeleted', data: { maintenance_id: ALL, project_id: P, deleted_at: '2026-03-02' } },
    ]);
    t.true(await windows.covers(P, API, at('2026-03-08T01:30:00.000Z')), 'within the refresh, the list read before');
    await new Promise((resolve) => setTimeout(resolve, 60));
    t.false(await windows.covers(P, API, at('2026-03-08T01:30:00.000Z')));
    t.true(await windows.covers(P, WEB, at('2026-03-08T01:30:00.000Z')));
    t.false(await windows.covers(P, API, at('2026-03-01T10:30:00.000Z')), 'the deleted window');
    t.deepEqual(
      (await windows.reload()).map((w) => w.id),
      [LISTED, SUNDAYS],
    );

    // A store that cannot be read leaves the checks judged on the last list.
    await models.close();
    await new Promise((resolve) => setTimeout(resolve, 60));
    t.true(await windows.covers(P, WEB, at('2026-03-08T01:30:00.000Z')));
    t.deepEqual(
      (await windows.reload()).map((w) => w.id),
      [LISTED, SUNDAYS],
    );
  },
);
