import type { UptimeBucket } from '../../../src/domain/monitor-uptime.ts';
import type { PublicStatusInput } from '../../../src/http/public/status-model.ts';
import type { IncidentView } from '../../../src/views/incidents/port.ts';
import type { MaintenanceView } from '../../../src/views/maintenances/port.ts';
import type { MonitorView } from '../../../src/views/monitors/port.ts';
import type { StatusPageView } from '../../../src/views/status-pages/port.ts';

/** Views as the read models give them, for the public renderers' tests. Monitors carry every
 *  kind of secret a monitor may have, each a string that must never reach a public answer. */

export const PROJECT = '0b6f2d4e-0000-4000-8000-00000000aaaa';
export const OTHER_PROJECT = '0b6f2d4e-0000-4000-8000-00000000bbbb';
export const NOW = new Date('2026-09-10T12:00:00.000Z');
export const DAY = 86_400_000;

export const ids = {
  page: '5a1e0000-0000-4000-8000-000000000001',
  api: '5a1e0000-0000-4000-8000-0000000000a1',
  web: '5a1e0000-0000-4000-8000-0000000000a2',
  db: '5a1e0000-0000-4000-8000-0000000000a3',
  hidden: '5a1e0000-0000-4000-8000-0000000000ff',
  deleted: '5a1e0000-0000-4000-8000-0000000000dd',
};

export const page = (over: Partial<StatusPageView> = {}): StatusPageView => ({
  id: ids.page,
  project_id: PROJECT,
  slug: 'acme',
  title: 'Acme',
  description: 'Acme services',
  groups: [
    { name: 'Public', monitor_ids: [ids.api, ids.web] },
    { name: 'Data', monitor_ids: [ids.db, ids.deleted] },
  ],
  published: true,
  show_uptime_days: 90,
  custom_domain: null,
  auto_incidents: false,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-09-01T00:00:00.000Z',
  ...over,
});

/** A secret that names where it came from, so a leak says which. */
export const secret = (what: string, id: string) => `SECRET-${what}-${id.slice(-4)}`;

export const monitor = (id: string, name: string, over: Partial<MonitorView> = {}): MonitorView => ({
  id,
  project_id: PROJECT,
  type: 'http',
  name,
  url: `https://${secret('host', id)}.internal.example/${secret('path', id)}?token=${secret('query', id)}`,
  interval_seconds: 60,
  timeout_seconds: 10,
  expected_status: 200,
  enabled: true,
  method: 'POST',
  headers: { Authorization: `Bearer ${secret('header', id)}` },
  body: secret('body', id),
  auth: { type: 'basic', username: secret('user', id), password: secret('password', id) },
  hostname: secret('hostname', id),
  status: 'UP',
  status_since: '2026-09-09T08:00:00.000Z',
  last_checked_at: '2026-09-10T11:59:00.000Z',
  last_status_code: 200,
  last_response_ms: 87,
  last_error: secret('error', id),
  last_certificate: {
    valid_from: '2026-01-01T00:00:00.000Z',
    valid_to: '2027-01-01T00:00:00.000Z',
    issuer: secret('issuer', id),
    subject: secret('subject', id),
    names: [`${secret('san', id)}.internal.example`],
  },
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

export const monitors = (): MonitorView[] => [
  monitor(ids.api, 'API'),
  monitor(ids.web, 'Website'),
  monitor(ids.db, 'Database'),
  // Same project, not on the page.
  monitor(ids.hidden, 'Hidden admin backend'),
  // Another project's monitor listed by id: never shown.
  monitor(ids.deleted, 'Other project monitor', { project_id: OTHER_PROJECT }),
];

export const dayStart = (daysAgo: number) => Math.floor(NOW.getTime() / DAY) * DAY - daysAgo * DAY;

export const buckets = (perDay: (daysAgo: number) => [ok: number, total: number] | null): UptimeBucket[] => {
  const out: UptimeBucket[] = [];
  for (let ago = 0; ago < 91; ago++) {
    const day = perDay(ago);
    if (day !== null) out.push({ start: dayStart(ago), ok: day[0], total: day[1], ok_response_ms: day[0] * 100 });
  }
  return out;
};

export const incident = (id: string, over: Partial<IncidentView> = {}): IncidentView => {
  const at = over.created_at ?? '2026-09-10T10:00:00.000Z';
  return {
    id,
    project_id: PROJECT,
    title: `Incident ${id.slice(-2)}`,
    status: 'investigating',
    impact: 'minor',
    monitor_ids: [ids.api],
    auto: null,
    created_at: at,
    updated_at: at,
    resolved_at: null,
    updates: [
      {
        id: `${id}-update-1`,
        status: 'investigating',
        message: 'We are looking into it.',
        impact: null,
        at,
      },
    ],
    ...over,
  };
};

export const maintenance = (id: string, over: Partial<MaintenanceView> = {}): MaintenanceView => ({
  id,
  project_id: PROJECT,
  title: `Maintenance ${id.slice(-2)}`,
  description: 'Database upgrade.',
  monitor_ids: [ids.db],
  schedule: { kind: 'once', starts_at: '2026-09-10T11:00:00.000Z', ends_at: '2026-09-10T13:00:00.000Z' },
  open: null,
  created_at: '2026-09-01T00:00:00.000Z',
  updated_at: '2026-09-01T00:00:00.000Z',
  ...over,
});

export const input = (over: Partial<PublicStatusInput> = {}): PublicStatusInput => ({
  page: page(),
  monitors: monitors(),
  days: new Map([
    [ids.api, buckets((ago) => (ago === 3 ? [90, 100] : [1440, 1440]))],
    [ids.web, buckets((ago) => (ago < 30 ? [1440, 1440] : null))],
    [ids.db, buckets((ago) => (ago === 1 ? [10, 1440] : [1440, 1440]))],
  ]),
  incidents: [],
  maintenances: [],
  now: NOW,
  baseUrl: 'https://status.acme.example',
  ...over,
});
