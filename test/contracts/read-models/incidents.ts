import { randomUUID } from 'node:crypto';
import type { IncidentUpdateView, IncidentView, IncidentsWriter } from '../../../src/views/incidents/port.ts';
import type { ReadModels } from '../../../src/views/read-models.ts';
import { recorded, type WithModels } from './harness.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString();

const incident = (project_id: string, minute: number, over: Partial<IncidentView> = {}): IncidentView => {
  const status = over.status ?? 'investigating';
  return {
    id: randomUUID(),
    project_id,
    title: `incident at ${minute}`,
    status,
    impact: 'minor',
    monitor_ids: [],
    auto: null,
    created_at: at(minute),
    updated_at: at(minute),
    resolved_at: status === 'resolved' ? at(minute) : null,
    updates: [{ id: randomUUID(), status, message: 'Looking into it', impact: 'minor', at: at(minute) }],
    ...over,
  };
};

const update = (
  status: IncidentUpdateView['status'],
  minute: number,
  impact: IncidentUpdateView['impact'] = null,
): IncidentUpdateView => ({ id: randomUUID(), status, message: `now ${status}`, impact, at: at(minute) });

const write = (m: ReadModels, ...writes: Array<(w: IncidentsWriter) => void>) => {
  const records = writes.map(() => recorded());
  return m.stores.incidents.commit(records, (r, w) => writes[records.indexOf(r)]!(w));
};

const ids = (views: IncidentView[]) => views.map((v) => v.id);

export const incidentsContract = (withModels: WithModels): void => {
  withModels(
    'incidents: updates once per id, status and times, removal; pages newest first in scope',
    async (t, m, opened) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const monitor = randomUUID();
      const auto = incident(p, 0, {
        monitor_ids: [monitor],
        auto: { monitor_id: monitor, down_event_id: randomUUID() },
        impact: 'major',
      });
      const retro = incident(p, 1, { status: 'resolved' });
      const other = incident(q, 2);
      const later = incident(p, 3);
      await write(m, ...[auto, retro, other, later].map((v) => (w: IncidentsWriter) => w.opened(v)));
      await write(m, (w) => w.opened({ ...auto, title: 'again' }));
      t.deepEqual(await m.incidents.get(auto.id, { all: true }), auto, 'an opening met again changes nothing');

      const identified = update('identified', 4, 'critical');
      const checkpoint = recorded();
      await m.stores.incidents.commit([checkpoint], (_r, w) => w.updated(auto.id, identified));
      await write(m, (w) => w.updated(auto.id, identified));
      const afterOne = await m.incidents.get(auto.id, { all: true });
      t.deepEqual(afterOne, {
        ...auto,
        status: 'identified',
        impact: 'critical',
        updated_at: at(4),
        updates: [...auto.updates, identified],
      });
      const replayed = recorded();
      await m.stores.incidents.commit([replayed], (_r, w) => w.updated(auto.id, identified));
      await opened.rewindCheckpoint?.('incidents', checkpoint.position);
      await m.stores.incidents.commit([replayed], (_r, w) => w.updated(auto.id, identified));
      t.deepEqual(await m.incidents.get(auto.id, { all: true }), afterOne, 'an update already added adds nothing');
      t.deepEqual(ids(await m.incidents.openAuto(monitor)), [auto.id]);
      t.deepEqual(await m.incidents.openAuto(randomUUID()), []);

      const page = (n: number, limit: number) => ({ page: n, limit });
      const first = await m.incidents.list({ all: true }, page(1, 3));
      t.deepEqual(ids(first.data), [later.id, other.id, retro.id]);
      t.deepEqual(first.pagination, { page: 1, limit: 3, totalItems: 4, totalPage: 2 });
      t.deepEqual(ids((await m.incidents.list({ all: true }, page(2, 3))).data), [auto.id]);
      t.deepEqual(ids((await m.incidents.list({ all: true }, { ...page(1, 10), projectId: p })).data), [
        later.id,
        retro.id,
        auto.id,
      ]);
      t.deepEqual(ids((await m.incidents.list({ all: true }, { ...page(1, 10), open: true })).data), [
        later.id,
        other.id,
        auto.id,
      ]);
      const member = { all: false as const, projectIds: [q] };
      t.deepEqual(ids((await m.incidents.list(member, page(1, 10))).data), [other.id]);
      t.deepEqual(await m.incidents.list(member, { ...page(1, 10), projectId: p }), {
        data: [],
        pagination: { page: 1, limit: 10, totalItems: 0, totalPage: 0 },
      });
      t.is(await m.incidents.get(auto.id, member), null);
      t.deepEqual(ids(await m.incidents.shownSince(p, at(0), 10)), [later.id, retro.id, auto.id]);
      t.deepEqual(ids(await m.incidents.shownSince(p, at(2), 10)), [later.id, auto.id], 'resolved before: not shown');
      t.deepEqual(ids(await m.incidents.shownSince(p, at(0), 2)), [later.id, retro.id]);

      const resolved = update('resolved', 5);
      await write(m, (w) => w.updated(auto.id, resolved));
      t.like(await m.incidents.get(auto.id, { all: true }), {
        status: 'resolved',
        impact: 'critical',
        resolved_at: at(5),
        updated_at: at(5),
      });
      t.deepEqual(await m.incidents.openAuto(monitor), []);
      t.deepEqual(ids(await m.incidents.shownSince(p, at(6), 10)), [later.id]);
      t.deepEqual(ids(await m.incidents.shownSince(p, at(5), 10)), [later.id, auto.id]);

      const reopened = update('investigating', 6);
      await write(
        m,
        (w) => w.updated(auto.id, reopened),
        (w) => w.deleted(later.id),
        (w) => w.updated(later.id, update('resolved', 7)),
        (w) => w.updated(randomUUID(), update('resolved', 7)),
      );
      const back = await m.incidents.get(auto.id, { all: true });
      t.like(back, { status: 'investigating', resolved_at: null, updated_at: at(6) });
      t.deepEqual(
        back?.updates.map((u) => u.status),
        ['investigating', 'identified', 'resolved', 'investigating'],
      );
      t.deepEqual(ids(await m.incidents.openAuto(monitor)), [auto.id]);
      t.is(await m.incidents.get(later.id, { all: true }), null);
      t.deepEqual(ids((await m.incidents.list({ all: true }, { ...page(1, 10), projectId: p })).data), [
        retro.id,
        auto.id,
      ]);
      t.deepEqual(ids(await m.incidents.shownSince(p, at(9), 10)), [auto.id]);
    },
  );
};
