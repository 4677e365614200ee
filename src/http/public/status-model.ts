import { createHash } from 'node:crypto';
import type { IncidentImpact, IncidentStatus } from '../../domain/incident.ts';
import { type MaintenanceSchedule, type Occurrence, openAt, upcoming } from '../../domain/maintenance-schedule.ts';
import { DAY_MS, type UptimeBucket, uptimeDayOf } from '../../domain/monitor-uptime.ts';
import { MAX_UPTIME_DAYS, monitorIdsOf } from '../../domain/status-page.ts';
import type { IncidentView } from '../../views/incidents/port.ts';
import type { MaintenanceView } from '../../views/maintenances/port.ts';
import type { MonitorView } from '../../views/monitors/port.ts';
import type { StatusPageView } from '../../views/status-pages/port.ts';

/** What a public status page may say, and nothing more (docs/status-pages.md#public-answers).
 *  `publicStatusOf` copies named fields out of the read models' views into `PublicStatus`; every
 *  public renderer takes that value alone, so a monitor's URL, headers, errors or project can
 *  reach no public answer: no renderer is ever handed them. */

/** A monitor as a reader sees it. `pending`: not checked yet, or paused. */
export type PublicMonitorState = 'operational' | 'down' | 'maintenance' | 'pending';
/** The page's overall state, worst wins (see BANNER_ORDER). */
export type BannerState = 'operational' | 'maintenance' | 'degraded' | 'partial_outage' | 'major_outage';
/** A day bar's colour: `up` every check passed, `partial` at least 95% did, `down` fewer. */
export type DayLevel = 'none' | 'up' | 'partial' | 'down';

/** Least to most severe: planned work is news, but any unplanned trouble outranks it. */
export const BANNER_ORDER: readonly BannerState[] = [
  'operational',
  'maintenance',
  'degraded',
  'partial_outage',
  'major_outage',
];

export const PAST_INCIDENT_DAYS = 14;
export const UPCOMING_MAINTENANCE_DAYS = 7;
const PARTIAL_DAY = 0.95;

export interface PublicIncidentRef {
  id: string;
  title: string;
}

export interface PublicMonitorRef {
  id: string;
  name: string;
}

export interface PublicDay {
  /** The UTC day, `YYYY-MM-DD`. */
  date: string;
  /** OK checks over all checks, null without a check. */
  uptime: number | null;
  checks: number;
  level: DayLevel;
  /** The page's incidents about this monitor that were open at some time of the day. */
  incidents: PublicIncidentRef[];
}

export interface PublicMonitor {
  id: string;
  name: string;
  state: PublicMonitorState;
  /** When the state began (UP or DOWN), else null. */
  since: string | null;
  /** The highest impact of the open incidents that name it. */
  impact: IncidentImpact;
  /** Over the days shown. */
  uptime: number | null;
  days: PublicDay[];
}

export interface PublicGroup {
  name: string;
  monitors: PublicMonitor[];
}

export interface PublicUpdate {
  id: string;
  status: IncidentStatus;
  message: string;
  at: string;
}

export interface PublicIncident {
  id: string;
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  started_at: string;
  updated_at: string;
  resolved_at: string | null;
  /** The page's monitors it names; empty: the whole page. */
  monitors: PublicMonitorRef[];
  /** Newest first. */
  updates: PublicUpdate[];
}

export interface PublicMaintenance {
  id: string;
  title: string;
  description: string | null;
  state: 'active' | 'upcoming';
  starts_at: string;
  ends_at: string;
  /** The page's monitors it covers, or every one. */
  monitors: PublicMonitorRef[] | 'all';
  created_at: string;
  updated_at: string;
}

export interface PublicLinks {
  page: string;
  history: string;
  summary: string;
  feed: string;
}

export interface PublicPage {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  show_uptime_days: number;
  /** The latest change of anything the page shows. */
  updated_at: string;
  links: PublicLinks;
}

export interface PublicStatus {
  page: PublicPage;
  banner: BannerState;
  groups: PublicGroup[];
  /** Open incidents, newest first. */
  active: PublicIncident[];
  /** Resolved within PAST_INCIDENT_DAYS, newest first. */
  past: PublicIncident[];
  /** Under way first, then upcoming by start. */
  maintenances: PublicMaintenance[];
  generated_at: string;
}

export interface PublicStatusInput {
  page: StatusPageView;
  monitors: readonly MonitorView[];
  days: ReadonlyMap<string, readonly UptimeBucket[]>;
  incidents: readonly IncidentView[];
  maintenances: readonly MaintenanceView[];
  now: Date;
  /** The origin the page is served at (`https://status.example.com`); null: links are relative. */
  baseUrl: string | null;
}

/** The page's paths, the same on the API's origin and on a custom domain. */
export const linksOf = (slug: string, baseUrl: string | null): PublicLinks => {
  const page = `${(baseUrl ?? '').replace(/\/+$/, '')}/status/${encodeURIComponent(slug)}`;
  return { page, history: `${page}/history`, summary: `${page}/summary.json`, feed: `${page}/feed.atom` };
};

export const maxIso = (values: readonly (string | null)[]): string =>
  values.reduce<string>((a, b) => (b !== null && b > a ? b : a), '');

const worst = (a: BannerState, b: BannerState): BannerState =>
  BANNER_ORDER.indexOf(a) >= BANNER_ORDER.indexOf(b) ? a : b;

const IMPACT_ORDER: readonly IncidentImpact[] = ['none', 'minor', 'major', 'critical'];
const higherImpact = (a: IncidentImpact, b: IncidentImpact): IncidentImpact =>
  IMPACT_ORDER.indexOf(a) >= IMPACT_ORDER.indexOf(b) ? a : b;

/** How an open incident's impact raises the banner: minor is degraded service, major a partial
 *  outage, critical a major one. */
export const bannerOfImpact = (impact: IncidentImpact): BannerState =>
  impact === 'critical'
    ? 'major_outage'
    : impact === 'major'
      ? 'partial_outage'
      : impact === 'minor'
        ? 'degraded'
        : 'operational';

/** The banner rule (docs/status-pages.md#the-banner): a monitor DOWN outside maintenance is an
 *  outage, major when no monitor is left operational; else maintenance when one is under it;
 *  then an open incident's impact raises the result. */
export const bannerOf = (
  states: readonly PublicMonitorState[],
  openImpacts: readonly IncidentImpact[],
): BannerState => {
  const down = states.filter((s) => s === 'down').length;
  const operational = states.filter((s) => s === 'operational').length;
  const fromMonitors: BannerState =
    down > 0
      ? operational === 0
        ? 'major_outage'
        : 'partial_outage'
      : states.includes('maintenance')
        ? 'maintenance'
        : 'operational';
  return openImpacts.map(bannerOfImpact).reduce(worst, fromMonitors);
};

const dayName = (start: number) => new Date(start).toISOString().slice(0, 10);

const levelOf = (uptime: number | null): DayLevel =>
  uptime === null ? 'none' : uptime >= 1 ? 'up' : uptime >= PARTIAL_DAY ? 'partial' : 'down';

/** OK checks over all checks in the `count` UTC days ending with today, and the mean response
 *  time of the OK ones: the figures of the uptime and response badges. */
export const figuresOver = (
  buckets: readonly UptimeBucket[],
  now: Date,
  count: number,
): { uptime: number | null; avg_response_ms: number | null } => {
  const last = uptimeDayOf(now);
  const first = last - (count - 1) * DAY_MS;
  let ok = 0;
  let total = 0;
  let ms = 0;
  for (const b of buckets) {
    if (b.start < first || b.start > last) continue;
    ok += b.ok;
    total += b.total;
    ms += b.ok_response_ms;
  }
  return { uptime: total === 0 ? null : ok / total, avg_response_ms: ok === 0 ? null : Math.round(ms / ok) };
};

/** An incident's span, to mark the days it touched; an open one lasts until now. */
const spanOf = (i: IncidentView, now: number) => ({
  from: Date.parse(i.created_at),
  to: i.resolved_at === null ? now : Date.parse(i.resolved_at),
});

const concerns = (i: IncidentView, monitorId: string) =>
  i.monitor_ids.length === 0 || i.monitor_ids.includes(monitorId);

const daysOf = (
  monitorId: string,
  buckets: readonly UptimeBucket[],
  incidents: readonly IncidentView[],
  now: Date,
  count: number,
): PublicDay[] => {
  const byStart = new Map(buckets.map((b) => [b.start, b]));
  const last = uptimeDayOf(now);
  const mine = incidents.filter((i) => concerns(i, monitorId));
  const out: PublicDay[] = [];
  for (let start = last - (count - 1) * DAY_MS; start <= last; start += DAY_MS) {
    const bucket = byStart.get(start);
    const total = bucket?.total ?? 0;
    const uptime = bucket === undefined || total === 0 ? null : bucket.ok / total;
    const touched = mine.filter((i) => {
      const span = spanOf(i, now.getTime());
      return span.from < start + DAY_MS && span.to >= start;
    });
    out.push({
      date: dayName(start),
      uptime,
      checks: total,
      level: levelOf(uptime),
      incidents: touched.map((i) => ({ id: i.id, title: i.title })),
    });
  }
  return out;
};

/** A maintenance's windows now: a rule that cannot be expanded hides its window, not the
 *  whole page. */
const windowsOf = (
  schedule: MaintenanceSchedule,
  now: number,
): { open: Occurrence | null; next: Occurrence | null } => {
  try {
    return {
      open: openAt(schedule, now),
      next: upcoming(schedule, now, UPCOMING_MAINTENANCE_DAYS * DAY_MS, 1)[0] ?? null,
    };
  } catch {
    return { open: null, next: null };
  }
};

interface Shown {
  view: MaintenanceView;
  window: Occurrence;
  state: 'active' | 'upcoming';
}

const shownMaintenances = (
  maintenances: readonly MaintenanceView[],
  page: StatusPageView,
  pageMonitors: ReadonlySet<string>,
  now: number,
): Shown[] => {
  const out: Shown[] = [];
  for (const view of maintenances) {
    if (view.project_id !== page.project_id) continue;
    if (view.monitor_ids !== 'all' && !view.monitor_ids.some((id) => pageMonitors.has(id))) continue;
    const { open, next } = windowsOf(view.schedule, now);
    if (open !== null) out.push({ view, window: open, state: 'active' });
    else if (next !== null) out.push({ view, window: next, state: 'upcoming' });
  }
  return out.sort(
    (a, b) => (a.state === b.state ? 0 : a.state === 'active' ? -1 : 1) || a.window.start - b.window.start,
  );
};

const namesOf = (ids: readonly string[], names: ReadonlyMap<string, string>): PublicMonitorRef[] =>
  ids.flatMap((id) => {
    const name = names.get(id);
    return name === undefined ? [] : [{ id, name }];
  });

export const publicIncident = (i: IncidentView, names: ReadonlyMap<string, string>): PublicIncident => ({
  id: i.id,
  title: i.title,
  status: i.status,
  impact: i.impact,
  started_at: i.created_at,
  updated_at: i.updated_at,
  resolved_at: i.resolved_at,
  monitors: namesOf(i.monitor_ids, names),
  updates: i.updates.map((u) => ({ id: u.id, status: u.status, message: u.message, at: u.at })).reverse(),
});

/** The page's own monitors that exist, by id: a group may still list a deleted monitor, and a
 *  monitor of another project is never shown, whatever a page lists. */
export const pageMonitorsOf = (page: StatusPageView, monitors: readonly MonitorView[]) => {
  const listed = new Set(monitorIdsOf(page.groups));
  return new Map(monitors.filter((m) => listed.has(m.id) && m.project_id === page.project_id).map((m) => [m.id, m]));
};

/** The page's incidents: of its project, naming one of its monitors or none. */
export const pageIncidentsOf = (page: StatusPageView, incidents: readonly IncidentView[], shown: ReadonlySet<string>) =>
  incidents.filter(
    (i) =>
      i.project_id === page.project_id && (i.monitor_ids.length === 0 || i.monitor_ids.some((id) => shown.has(id))),
  );

export const newestFirst = (a: IncidentView, b: IncidentView) =>
  b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);

export const publicStatusOf = (input: PublicStatusInput): PublicStatus => {
  const { page, now } = input;
  const nowMs = now.getTime();
  const monitors = pageMonitorsOf(page, input.monitors);
  const ids = new Set(monitors.keys());
  const names = new Map([...monitors.values()].map((m) => [m.id, m.name]));
  const incidents = pageIncidentsOf(page, input.incidents, ids).sort(newestFirst);
  const open = incidents.filter((i) => i.resolved_at === null && i.status !== 'resolved');
  const since = nowMs - PAST_INCIDENT_DAYS * DAY_MS;
  const past = incidents.filter((i) => !open.includes(i) && Date.parse(i.resolved_at ?? i.updated_at) >= since);
  const shown = shownMaintenances(input.maintenances, page, ids, nowMs);
  const covered = (id: string) =>
    shown.some((s) => s.state === 'active' && (s.view.monitor_ids === 'all' || s.view.monitor_ids.includes(id)));
  const count = Math.min(Math.max(Math.trunc(page.show_uptime_days), 1), MAX_UPTIME_DAYS);

  const publicMonitors = new Map<string, PublicMonitor>();
  for (const m of monitors.values()) {
    const state: PublicMonitorState = covered(m.id)
      ? 'maintenance'
      : !m.enabled || m.status === 'PENDING'
        ? 'pending'
        : m.status === 'DOWN'
          ? 'down'
          : 'operational';
    const buckets = input.days.get(m.id) ?? [];
    publicMonitors.set(m.id, {
      id: m.id,
      name: m.name,
      state,
      since: state === 'pending' ? null : m.status_since,
      impact: open
        .filter((i) => i.monitor_ids.includes(m.id))
        .reduce<IncidentImpact>((a, i) => higherImpact(a, i.impact), 'none'),
      uptime: figuresOver(buckets, now, count).uptime,
      days: daysOf(m.id, buckets, incidents, now, count),
    });
  }

  const groups = page.groups.map((g) => ({
    name: g.name,
    monitors: g.monitor_ids.flatMap((id) => {
      const m = publicMonitors.get(id);
      return m === undefined ? [] : [m];
    }),
  }));
  const maintenances: PublicMaintenance[] = shown.map(({ view, window, state }) => ({
    id: view.id,
    title: view.title,
    description: view.description,
    state,
    starts_at: new Date(window.start).toISOString(),
    ends_at: new Date(window.end).toISOString(),
    monitors: view.monitor_ids === 'all' ? 'all' : namesOf(view.monitor_ids, names),
    created_at: view.created_at,
    updated_at: view.updated_at,
  }));
  const updatedAt = maxIso([
    page.updated_at,
    ...incidents.map((i) => i.updated_at),
    ...shown.map((s) => s.view.updated_at),
    ...[...monitors.values()].map((m) => m.status_since),
  ]);
  return {
    page: {
      id: page.id,
      slug: page.slug,
      title: page.title,
      description: page.description,
      show_uptime_days: count,
      updated_at: updatedAt,
      links: linksOf(page.slug, input.baseUrl),
    },
    banner: bannerOf(
      [...publicMonitors.values()].map((m) => m.state),
      open.map((i) => i.impact),
    ),
    groups,
    active: open.map((i) => publicIncident(i, names)),
    past: past.map((i) => publicIncident(i, names)),
    maintenances,
    generated_at: now.toISOString(),
  };
};

/** A stable UUID-shaped id for something the views give no id of its own (a group, one
 *  occurrence of a recurring window): a digest of what names it. */
export const derivedId = (...parts: readonly string[]): string => {
  const h = createHash('sha256').update(parts.join('\n')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** A digest of what the page shows (not when it was rendered): the same data gives the same
 *  version, which the HTML carries for the live script. */
export const versionOf = (status: PublicStatus): string => {
  const { generated_at: _, ...shown } = status;
  return createHash('sha256').update(JSON.stringify(shown)).digest('base64url').slice(0, 22);
};
