import test from 'ava';
import { deleteMaintenance, scheduleMaintenance } from '../../src/commands/maintenances.ts';
import { maintenanceStream } from '../../src/domain/streams.ts';
import { api, eventually, login, projectWithKey, startTestServer } from '../helpers/server.ts';

/** The maintenance clock on a real worker (Agenda, the embedded stores, the projector): it
 *  records each window's occurrence opening and closing, and nothing while nothing changes. */

const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };
/** A time a whole number of seconds from now (rules expand from a DTSTART in whole seconds). */
const secondsFromNow = (s: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + s * 1000).toISOString();

test(
  'the clock records a one-off and a recurring window opening, the one-off closing at its end, and ' +
    'nothing more while nothing changes; deleting an open window closes it at once; ' +
    'each is a system.maintenance audit event of its project',
  async (t) => {
    const server = await startTestServer({ jobs: true });
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId } = await projectWithKey(server.url, token, 'maintained');
    const commands = server.runtime.commands;
    const maintenances = server.runtime.readModels.maintenances;

    const oneOffStart = secondsFromNow(-60);
    const oneOffEnd = secondsFromNow(3);
    const oneOff = await scheduleMaintenance(
      commands,
      { project_id: projectId, title: 'Switch swap', monitor_ids: 'all', starts_at: oneOffStart, ends_at: oneOffEnd },
      ctx,
    );
    const dailyStart = secondsFromNow(-600);
    const daily = await scheduleMaintenance(
      commands,
      {
        project_id: projectId,
        title: 'Nightly backup',
        monitor_ids: 'all',
        starts_at: dailyStart,
        rrule: 'FREQ=DAILY',
        duration_minutes: 60,
        timezone: 'Europe/Berlin',
      },
      ctx,
    );
    const dailyOpen = { start: dailyStart, end: new Date(Date.parse(dailyStart) + 3_600_000).toISOString() };

    await eventually(async () => {
      const [a, b] = [
        await maintenances.get(oneOff.id, { all: true }),
        await maintenances.get(daily.id, { all: true }),
      ];
      return a?.open && b?.open ? true : undefined;
    });
    t.deepEqual((await maintenances.get(oneOff.id, { all: true }))?.open, { start: oneOffStart, end: oneOffEnd });
    t.deepEqual((await maintenances.get(daily.id, { all: true }))?.open, dailyOpen);

    // The one-off ends at its end; the daily one stays open and its stream still.
    await eventually(
      async () => ((await maintenances.get(oneOff.id, { all: true }))?.open === null ? true : undefined),
      8000,
    );
    t.true(Date.now() >= Date.parse(oneOffEnd));
    const types = async (id: string) => (await server.runtime.log.readStream(maintenanceStream(id))).map((r) => r.type);
    t.deepEqual(await types(oneOff.id), ['MaintenanceScheduled', 'MaintenanceStarted', 'MaintenanceEnded']);
    const before = await types(daily.id);
    t.deepEqual(before, ['MaintenanceScheduled', 'MaintenanceStarted']);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    t.deepEqual(await types(daily.id), before, 'a quiet window adds nothing, run after run');
    t.deepEqual(await types(oneOff.id), ['MaintenanceScheduled', 'MaintenanceStarted', 'MaintenanceEnded']);

    const deleted = await deleteMaintenance(commands, daily.id, ctx);
    t.deepEqual(
      deleted.events.map((e) => e.type),
      ['MaintenanceEnded', 'MaintenanceDeleted'],
    );
    const ended = deleted.events[0]!;
    const endedAt = ended.type === 'MaintenanceEnded' ? ended.data.at : '';
    await new Promise((resolve) => setTimeout(resolve, 600));
    t.deepEqual(await types(daily.id), [
      'MaintenanceScheduled',
      'MaintenanceStarted',
      'MaintenanceEnded',
      'MaintenanceDeleted',
    ]);

    const audit = await eventually(async () => {
      const res = await api(
        server.url,
        'GET',
        `/v1/audit?project_id=${projectId}&identifier=system&sort_by=timestamp&sort_order=asc`,
        { token },
      );
      return res.body.pagination.totalItems === 4 ? (res.body.data as Array<Record<string, unknown>>) : undefined;
    });
    t.deepEqual(
      audit.map((e) => [e.event_type, e.service_name, e.path, e.timestamp]),
      [
        ['system.maintenance.started', 'Nightly backup', `maintenance:${daily.id}`, dailyStart],
        ['system.maintenance.started', 'Switch swap', `maintenance:${oneOff.id}`, oneOffStart],
        ['system.maintenance.ended', 'Switch swap', `maintenance:${oneOff.id}`, oneOffEnd],
        ['system.maintenance.ended', 'Nightly backup', `maintenance:${daily.id}`, endedAt],
      ],
    );
    const filtered = await api(
      server.url,
      'GET',
      `/v1/audit?project_id=${projectId}&event_type=system.maintenance.ended`,
      { token },
    );
    t.is(filtered.status, 200);
    t.is(filtered.body.pagination.totalItems, 2);
  },
);
