import type { StatusPageView } from '../../views/status-pages/port.ts';
import type { IncidentView } from '../../views/incidents/port.ts';
import type { MonitorView } from '../../views/monitors/port.ts';
import {
  linksOf,
  maxIso,
  newestFirst,
  pageIncidentsOf,
  pageMonitorsOf,
  type PublicIncident,
  type PublicPage,
  publicIncident,
} from './status-model.ts';

/** The history page's value: every incident of a status page, paged, built like PublicStatus
 *  from named fields only (status-model.ts). */

export interface PublicHistoryInput {
  page: StatusPageView;
  monitors: readonly MonitorView[];
  /** The project's incidents, any age: those of other pages are left out before paging. */
  incidents: readonly IncidentView[];
  /** 1-based. */
  pageNumber: number;
  limit: number;
  now: Date;
  baseUrl: string | null;
}

export interface PublicHistory {
  page: PublicPage;
  incidents: PublicIncident[];
  pagination: { page: number; limit: number; total_items: number; total_pages: number };
  generated_at: string;
}

/** The history page: every incident of the page, newest first, `limit` a page. */
export const historyOf = (input: PublicHistoryInput): PublicHistory => {
  const { page } = input;
  const monitors = pageMonitorsOf(page, input.monitors);
  const names = new Map([...monitors.values()].map((m) => [m.id, m.name]));
  const all = pageIncidentsOf(page, input.incidents, new Set(monitors.keys())).sort(newestFirst);
  const limit = Math.max(1, Math.trunc(input.limit));
  const number = Math.max(1, Math.trunc(input.pageNumber));
  const slice = all.slice((number - 1) * limit, number * limit);
  return {
    page: {
      id: page.id,
      slug: page.slug,
      title: page.title,
      description: page.description,
      show_uptime_days: page.show_uptime_days,
      updated_at: maxIso([page.updated_at, ...all.map((i) => i.updated_at)]),
      links: linksOf(page.slug, input.baseUrl),
    },
    incidents: slice.map((i) => publicIncident(i, names)),
    pagination: { page: number, limit, total_items: all.length, total_pages: Math.ceil(all.length / limit) },
    generated_at: input.now.toISOString(),
  };
};
