import * as t from 'io-ts';
import { nullable, Timestamp } from '../operations/answers.ts';
import {
  type BannerState,
  derivedId,
  type PublicIncident,
  type PublicMaintenance,
  type PublicMonitor,
  type PublicStatus,
} from './status-model.ts';

/** GET /status/:slug/summary.json: Atlassian Statuspage's summary.json, field for field where
 *  watchlog has the fact (docs/status-pages.md#summaryjson), so the tools that read Statuspage
 *  pages read these. Groups are components with `group: true` listing their members, as there. */

export const ComponentStatus = t.keyof(
  { operational: null, degraded_performance: null, partial_outage: null, major_outage: null, under_maintenance: null },
  'operational | degraded_performance | partial_outage | major_outage | under_maintenance',
);
export type ComponentStatus = t.TypeOf<typeof ComponentStatus>;

export const Indicator = t.keyof(
  { none: null, minor: null, major: null, critical: null, maintenance: null },
  'none | minor | major | critical | maintenance',
);

const IncidentStatus = t.keyof(
  { investigating: null, identified: null, monitoring: null, resolved: null },
  'investigating | identified | monitoring | resolved',
);
const MaintenanceStatus = t.keyof({ scheduled: null, in_progress: null }, 'scheduled | in_progress');

const ComponentRef = t.type({ id: t.string, name: t.string, status: ComponentStatus });

const Component = t.intersection([
  t.type({
    id: t.string,
    name: t.string,
    status: ComponentStatus,
    position: t.number,
    description: t.null,
    group: t.boolean,
    group_id: nullable(t.string),
    page_id: t.string,
    updated_at: nullable(Timestamp),
    only_show_if_degraded: t.boolean,
  }),
  /** A group's members' ids. */
  t.partial({ components: t.array(t.string) }),
]);

const Update = <S extends t.Mixed>(status: S) =>
  t.type({
    id: t.string,
    status,
    body: t.string,
    incident_id: t.string,
    created_at: Timestamp,
    updated_at: Timestamp,
    display_at: Timestamp,
  });

const incidentFields = {
  id: t.string,
  name: t.string,
  created_at: Timestamp,
  updated_at: Timestamp,
  started_at: Timestamp,
  resolved_at: nullable(Timestamp),
  shortlink: t.string,
  page_id: t.string,
  components: t.array(ComponentRef),
};

export const PublicSummary = t.type({
  page: t.type({ id: t.string, name: t.string, url: t.string, time_zone: t.string, updated_at: Timestamp }),
  components: t.array(Component),
  incidents: t.array(
    t.type({
      ...incidentFields,
      status: IncidentStatus,
      impact: t.keyof({ none: null, minor: null, major: null, critical: null }, 'none | minor | major | critical'),
      monitoring_at: nullable(Timestamp),
      incident_updates: t.array(Update(IncidentStatus)),
    }),
  ),
  scheduled_maintenances: t.array(
    t.type({
      ...incidentFields,
      status: MaintenanceStatus,
      impact: t.literal('maintenance'),
      monitoring_at: t.null,
      scheduled_for: Timestamp,
      scheduled_until: Timestamp,
      incident_updates: t.array(Update(MaintenanceStatus)),
    }),
  ),
  status: t.type({ indicator: Indicator, description: t.string }),
});
export type PublicSummary = t.TypeOf<typeof PublicSummary>;

const INDICATOR: Record<BannerState, t.TypeOf<typeof Indicator>> = {
  operational: 'none',
  maintenance: 'maintenance',
  degraded: 'minor',
  partial_outage: 'major',
  major_outage: 'critical',
};

/** Statuspage's own words for each indicator. */
const DESCRIPTION: Record<BannerState, string> = {
  operational: 'All Systems Operational',
  maintenance: 'Service Under Maintenance',
  degraded: 'Minor Service Outage',
  partial_outage: 'Partial System Outage',
  major_outage: 'Major System Outage',
};

const COMPONENT_ORDER: readonly ComponentStatus[] = [
  'operational',
  'under_maintenance',
  'degraded_performance',
  'partial_outage',
  'major_outage',
];
const worse = (a: ComponentStatus, b: ComponentStatus) =>
  COMPONENT_ORDER.indexOf(a) >= COMPONENT_ORDER.indexOf(b) ? a : b;

/** A monitor DOWN is a major outage of its component; otherwise an open incident naming it
 *  tells how degraded it is. No data reads operational: Statuspage has no word for it. */
export const componentStatusOf = (m: Pick<PublicMonitor, 'state' | 'impact'>): ComponentStatus => {
  if (m.state === 'down') return 'major_outage';
  if (m.state === 'maintenance') return 'under_maintenance';
  return m.impact === 'critical'
    ? 'major_outage'
    : m.impact === 'major'
      ? 'partial_outage'
      : m.impact === 'minor'
        ? 'degraded_performance'
        : 'operational';
};

export const summaryOf = (status: PublicStatus): PublicSummary => {
  const { page } = status;
  const pageId = page.id;
  const updatedAt = page.updated_at === '' ? status.generated_at : page.updated_at;
  const monitors = new Map<string, { monitor: PublicMonitor; group: string }>();
  const groups = status.groups.map((g, index) => {
    const id = derivedId(pageId, 'group', String(index));
    for (const m of g.monitors) if (!monitors.has(m.id)) monitors.set(m.id, { monitor: m, group: id });
    return { id, name: g.name, members: g.monitors };
  });
  const statusOf = new Map([...monitors.values()].map(({ monitor }) => [monitor.id, componentStatusOf(monitor)]));
  const components: PublicSummary['components'] = [];
  const emitted = new Set<string>();
  for (const g of groups) {
    components.push({
      id: g.id,
      name: g.name,
      status: g.members.map((m) => statusOf.get(m.id) ?? 'operational').reduce(worse, 'operational'),
      position: components.length + 1,
      description: null,
      group: true,
      group_id: null,
      page_id: pageId,
      updated_at: null,
      only_show_if_degraded: false,
      components: [...new Set(g.members.map((m) => m.id))],
    });
    for (const m of g.members) {
      if (monitors.get(m.id)?.group !== g.id || emitted.has(m.id)) continue;
      emitted.add(m.id);
      components.push({
        id: m.id,
        name: m.name,
        status: statusOf.get(m.id) ?? 'operational',
        position: components.length + 1,
        description: null,
        group: false,
        group_id: g.id,
        page_id: pageId,
        updated_at: m.since,
        only_show_if_degraded: false,
      });
    }
  }
  const refs = (list: PublicIncident['monitors'] | 'all') =>
    (list === 'all' ? [...monitors.values()].map((v) => v.monitor) : list).map((m) => ({
      id: m.id,
      name: m.name,
      status: statusOf.get(m.id) ?? 'operational',
    }));
  const link = (fragment: string) => `${page.links.page}#${fragment}`;
  const incidents = status.active.map((i) => ({
    id: i.id,
    name: i.title,
    status: i.status,
    impact: i.impact,
    created_at: i.started_at,
    updated_at: i.updated_at,
    started_at: i.started_at,
    resolved_at: i.resolved_at,
    monitoring_at: [...i.updates].reverse().find((u) => u.status === 'monitoring')?.at ?? null,
    shortlink: link(`incident-${encodeURIComponent(i.id)}`),
    page_id: pageId,
    components: refs(i.monitors),
    incident_updates: i.updates.map((u) => ({
      id: u.id,
      status: u.status,
      body: u.message,
      incident_id: i.id,
      created_at: u.at,
      updated_at: u.at,
      display_at: u.at,
    })),
  }));
  const maintenance = (m: PublicMaintenance) => {
    const state = m.state === 'active' ? ('in_progress' as const) : ('scheduled' as const);
    const id = derivedId(m.id, m.starts_at);
    return {
      id,
      name: m.title,
      status: state,
      impact: 'maintenance' as const,
      created_at: m.created_at,
      updated_at: m.updated_at,
      started_at: m.starts_at,
      resolved_at: null,
      monitoring_at: null,
      scheduled_for: m.starts_at,
      scheduled_until: m.ends_at,
      shortlink: link('maint-h'),
      page_id: pageId,
      components: refs(m.monitors),
      incident_updates:
        m.description === null || m.description === ''
          ? []
          : [
              {
                id: derivedId(id, 'description'),
                status: state,
                body: m.description,
                incident_id: id,
                created_at: m.updated_at,
                updated_at: m.updated_at,
                display_at: m.updated_at,
              },
            ],
    };
  };
  return {
    page: {
      id: pageId,
      name: page.title,
      url: page.links.page,
      time_zone: 'Etc/UTC',
      updated_at: updatedAt,
    },
    components,
    incidents,
    scheduled_maintenances: status.maintenances.map(maintenance),
    status: { indicator: INDICATOR[status.banner], description: DESCRIPTION[status.banner] },
  };
};
