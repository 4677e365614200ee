import test from 'ava';
import fc from 'fast-check';
import { daysLeft } from '../../../src/domain/monitor-certificates.ts';
import { renderAtom } from '../../../src/http/public/atom.ts';
import { certificateBadge, responseBadge, statusBadge, uptimeBadge } from '../../../src/http/public/badge.ts';
import { historyOf } from '../../../src/http/public/history-model.ts';
import { renderHistoryPage, renderStatusPage } from '../../../src/http/public/html.ts';
import { figuresOver, publicStatusOf } from '../../../src/http/public/status-model.ts';
import { summaryOf } from '../../../src/http/public/summary.ts';
import type { MonitorView } from '../../../src/views/monitors/port.ts';
import { ids, incident, input, maintenance, monitors, NOW, OTHER_PROJECT, PROJECT, page } from './fixtures.ts';

/** The public answers leak nothing: whatever the monitors hold (URLs, hosts, headers,
 *  credentials, bodies, error texts, certificates) and whatever else the views carry (the
 *  project, monitors and incidents of other pages, an automatic incident's event), no byte of
 *  it reaches the page, the history, summary.json, the feed or a badge. */

const HIDDEN_INCIDENT = 'Incident about the hidden backend only';
const HIDDEN_MAINTENANCE = 'Maintenance of the hidden backend only';
const DOWN_EVENT = '0e0e0e0e-0000-4000-8000-0000000000ee';

/** Every string of a monitor's view but the ones a page may show. */
const secretsOf = (m: MonitorView): string[] => {
  const { name: _name, status: _status, type: _type, ...rest } = m;
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(rest);
  return out.filter((s) => s.includes('SECRET') || s.includes('internal.example'));
};

const render = (data: ReturnType<typeof input>): string[] => {
  const status = publicStatusOf(data);
  const history = historyOf({
    page: data.page,
    monitors: data.monitors,
    incidents: data.incidents,
    pageNumber: 1,
    limit: 50,
    now: data.now,
    baseUrl: data.baseUrl,
  });
  const badges = status.groups.flatMap((g) =>
    g.monitors.flatMap((m) => {
      const view = data.monitors.find((v) => v.id === m.id);
      const figures = figuresOver(data.days.get(m.id) ?? [], data.now, 30);
      const cert = view?.last_certificate ?? null;
      return [
        statusBadge(m.state, m.name),
        uptimeBadge(figures.uptime, 30),
        responseBadge(figures.avg_response_ms),
        certificateBadge(cert === null ? null : daysLeft(cert, data.now.toISOString())),
      ];
    }),
  );
  return [
    renderStatusPage(status),
    // With the subscription form: it posts to the page's own path, and shows no subscriber.
    renderStatusPage(status, undefined, { subscribe: true }),
    renderHistoryPage(history),
    JSON.stringify(summaryOf(status)),
    renderAtom(status),
    ...badges,
  ];
};

const forbidden = (data: ReturnType<typeof input>): string[] => [
  ...data.monitors.flatMap(secretsOf),
  PROJECT,
  OTHER_PROJECT,
  ids.hidden,
  ids.deleted,
  'Hidden admin backend',
  'Other project monitor',
  HIDDEN_INCIDENT,
  HIDDEN_MAINTENANCE,
  DOWN_EVENT,
  'SECRET',
  'internal.example',
];

const scenario = (statuses: readonly ('UP' | 'DOWN' | 'PENDING')[], enabled: readonly boolean[], baseUrl: boolean) =>
  input({
    monitors: monitors().map((m, i) => ({ ...m, status: statuses[i] ?? 'UP', enabled: enabled[i] ?? true })),
    incidents: [
      incident('1c000000-0000-4000-8000-000000000001', {
        title: 'API is down',
        monitor_ids: [ids.api, ids.hidden, ids.deleted],
        auto: { monitor_id: ids.api, down_event_id: DOWN_EVENT },
      }),
      incident('1c000000-0000-4000-8000-000000000002', { title: HIDDEN_INCIDENT, monitor_ids: [ids.hidden] }),
      incident('1c000000-0000-4000-8000-000000000003', {
        title: 'Earlier',
        created_at: '2026-09-02T10:00:00.000Z',
        status: 'resolved',
        resolved_at: '2026-09-02T11:00:00.000Z',
        monitor_ids: [ids.db, ids.hidden],
      }),
    ],
    maintenances: [
      maintenance('3a000000-0000-4000-8000-000000000001', { monitor_ids: [ids.db, ids.hidden] }),
      maintenance('3a000000-0000-4000-8000-000000000002', { title: HIDDEN_MAINTENANCE, monitor_ids: [ids.hidden] }),
      maintenance('3a000000-0000-4000-8000-000000000003', { title: 'All of them', monitor_ids: 'all' }),
    ],
    baseUrl: baseUrl ? 'https://status.acme.example' : null,
  });

test('no public answer holds a monitor’s secrets, the project or what another page shows', (t) => {
  const data = scenario(['DOWN', 'UP', 'PENDING', 'DOWN', 'DOWN'], [true, true, true, true, true], true);
  const outputs = render(data);
  t.true(outputs[0]!.includes('API is down'));
  t.true(outputs[0]!.includes('Database'));
  for (const needle of forbidden(data)) {
    for (const [n, out] of outputs.entries()) t.false(out.includes(needle), `output ${n} holds ${needle}`);
  }
});

test('nor in any state of the monitors', (t) => {
  const state = fc.constantFrom('UP' as const, 'DOWN' as const, 'PENDING' as const);
  fc.assert(
    fc.property(
      fc.array(state, { minLength: 5, maxLength: 5 }),
      fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
      fc.boolean(),
      fc.integer({ min: 1, max: 90 }),
      (statuses, enabled, baseUrl, days) => {
        const data = { ...scenario(statuses, enabled, baseUrl), page: page({ show_uptime_days: days }) };
        const outputs = render(data).join('\n');
        return forbidden(data).every((needle) => !outputs.includes(needle));
      },
    ),
    { numRuns: 40 },
  );
  t.pass();
});

test('PublicStatus itself carries none of it: renderers cannot leak what they are not given', (t) => {
  const data = scenario(['DOWN', 'UP', 'UP', 'UP', 'UP'], [true, true, true, true, true], true);
  const value = JSON.stringify(publicStatusOf(data));
  for (const needle of forbidden(data)) t.false(value.includes(needle), needle);
  t.is(NOW.toISOString(), publicStatusOf(data).generated_at);
});
