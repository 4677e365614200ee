import {
  type Incident,
  type Maintenance,
  type Monitor,
  type StatusPage,
  type StatusPageCreate,
  type Verbatim,
  verbatim,
} from '../../api.ts';

/** The status page form's state (what the reader typed), the bodies of POST and PUT made from it,
 *  and what the public page would show of it. Pure: the components are in this folder. */

export interface GroupRow {
  /** A React key: rows hold inputs, their keys must stay when rows move. */
  key: number;
  name: string;
  monitorIds: string[];
}

export interface PageValues {
  slug: string;
  title: string;
  description: string;
  groups: GroupRow[];
  published: boolean;
  show_uptime_days: string;
  custom_domain: string;
  auto_incidents: boolean;
}

let rowKey = 0;
export const newGroup = (name = ''): GroupRow => ({ key: ++rowKey, name, monitorIds: [] });

export const valuesOf = (page: StatusPage | null): PageValues => ({
  slug: page?.slug ?? '',
  title: page?.title ?? '',
  description: page?.description ?? '',
  groups: (page?.groups ?? [{ name: 'Services', monitor_ids: [] }]).map((g) => ({
    key: ++rowKey,
    name: g.name,
    monitorIds: [...g.monitor_ids],
  })),
  published: page?.published ?? false,
  show_uptime_days: String(page?.show_uptime_days ?? 90),
  custom_domain: page?.custom_domain ?? '',
  auto_incidents: page?.auto_incidents ?? false,
});

/** A slug from a title: lower-case letters, digits and dashes (the server wants 3 to 63 of them). */
export const slugOf = (title: string): string =>
  title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');

const daysOf = (text: string): number | Verbatim => {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isInteger(n) ? n : verbatim(text.trim());
};

type Body = Omit<StatusPageCreate, 'project_id' | 'show_uptime_days'> & { show_uptime_days: number | Verbatim };

/** Every field, as both POST and PUT take them: an emptied description or domain is null. */
export const bodyOf = (v: PageValues): Body => ({
  slug: v.slug.trim(),
  title: v.title.trim(),
  description: v.description.trim() === '' ? null : v.description.trim(),
  groups: v.groups.map((g) => ({ name: g.name.trim(), monitor_ids: g.monitorIds })),
  published: v.published,
  show_uptime_days: daysOf(v.show_uptime_days),
  custom_domain: v.custom_domain.trim() === '' ? null : v.custom_domain.trim().toLowerCase(),
  auto_incidents: v.auto_incidents,
});

/** Where the form shows the server's messages (a group's at its name, its list or its line). */
export const shownPaths = (v: PageValues): string[] => [
  'slug',
  'title',
  'description',
  'published',
  'show_uptime_days',
  'custom_domain',
  'auto_incidents',
  'groups',
  ...v.groups.map((_, i) => `groups.${i}`),
];

/** A monitor's state as the public page words it (docs/status-pages.md#a-monitors-state). */
export type PublicState = 'operational' | 'down' | 'maintenance' | 'pending';
export const STATE_TEXT: Record<PublicState, string> = {
  operational: 'Operational',
  down: 'Down',
  maintenance: 'Under maintenance',
  pending: 'No data',
};

export const publicStateOf = (m: Monitor): PublicState => {
  if (m.in_maintenance) return 'maintenance';
  if (!m.enabled || m.last_checked_at === null || m.status === 'PENDING') return 'pending';
  return m.status === 'DOWN' ? 'down' : 'operational';
};

export type Banner = 'operational' | 'maintenance' | 'degraded' | 'partial' | 'major';
export const BANNER_TEXT: Record<Banner, string> = {
  operational: 'All systems operational',
  maintenance: 'Under maintenance',
  degraded: 'Degraded service',
  partial: 'Partial outage',
  major: 'Major outage',
};
const RANK: Banner[] = ['operational', 'maintenance', 'degraded', 'partial', 'major'];
const BY_IMPACT: Record<Incident['impact'], Banner> = {
  none: 'operational',
  minor: 'degraded',
  major: 'partial',
  critical: 'major',
};

/** The incidents a page with these monitors shows: those naming one of them, or naming none. */
export const incidentsOn = (incidents: readonly Incident[], onPage: ReadonlySet<string>): Incident[] =>
  incidents.filter((i) => i.monitor_ids.length === 0 || i.monitor_ids.some((id) => onPage.has(id)));

/** The banner: worst of the monitors' states, then raised by each open incident's impact. */
export const bannerOf = (states: readonly PublicState[], open: readonly Incident[]): Banner => {
  let banner: Banner = 'operational';
  if (states.includes('down')) banner = states.includes('operational') ? 'partial' : 'major';
  else if (states.includes('maintenance')) banner = 'maintenance';
  for (const i of open) {
    const raised = BY_IMPACT[i.impact];
    if (RANK.indexOf(raised) > RANK.indexOf(banner)) banner = raised;
  }
  return banner;
};

const WEEK_MS = 7 * 86_400_000;

export interface ShownMaintenance {
  window: Maintenance;
  start: string;
  end: string;
  open: boolean;
}

/** The windows a page with these monitors shows: open now, or starting within 7 days (the next
 *  occurrence only), for every monitor of the project or one of the page's. */
export const maintenanceOn = (
  windows: readonly Maintenance[],
  onPage: ReadonlySet<string>,
  now: number,
): ShownMaintenance[] =>
  windows.flatMap((w): ShownMaintenance[] => {
    if (w.monitor_ids !== 'all' && !w.monitor_ids.some((id) => onPage.has(id))) return [];
    if (w.open !== null) return [{ window: w, ...w.open, open: true }];
    const next = w.next[0];
    return next !== undefined && Date.parse(next.start) - now <= WEEK_MS ? [{ window: w, ...next, open: false }] : [];
  });
