import { STATUS_CSS, STATUS_JS } from './assets.ts';
import {
  activeSection,
  groupsSection,
  incidentArticle,
  maintenanceSection,
  pastSection,
  subscribeSection,
  time,
} from './html-sections.ts';
import type { PublicHistory } from './history-model.ts';
import { PAST_INCIDENT_DAYS, type PublicPage, type PublicStatus, versionOf } from './status-model.ts';
import { BANNER_TEXT, escapeMarkup as e } from './text.ts';

/** The public status page and its incident history as HTML (docs/status-pages.md#public-answers):
 *  complete on the server, so it reads the same with scripts off; the stylesheet and the live
 *  script come from the same origin under hashed names, as the CSP asks (no inline script or
 *  style, no `style` attribute). */

/** A version as an entity tag may hold it (RFC 9110: no quote, space or control). */
const etagSafe = (version: string): string => version.replace(/[^!#-~]/g, '_');

/** The ETag a route answers the status page with: the live script sends it back as
 *  `If-None-Match`, built the same way from `<main data-version>`. */
export const etagOf = (version: string): string => `"${etagSafe(version)}"`;

export interface Shell {
  page: Pick<PublicPage, 'title' | 'description' | 'links'>;
  title: string;
  /** The live script: the status page only (the history does not change under a reader). */
  live: boolean;
  main: string;
  version: string | null;
  /** After `<main>`, which the live script swaps: what a reader may be typing into stays. */
  after?: string;
}

/** Every public HTML page's frame: head, header, `<main>`, footer. */
export const shell = ({ page, title, live, main, version, after = '' }: Shell): string => {
  const links = page.links;
  const description = page.description === null || page.description === '' ? title : page.description;
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="color-scheme" content="light dark">' +
    '<meta name="referrer" content="no-referrer">' +
    `<title>${e(title)}</title><meta name="description" content="${e(description)}">` +
    `<link rel="stylesheet" href="${STATUS_CSS.path}">` +
    // No icon request: a public page needs no route of its own for one.
    '<link rel="icon" href="data:,">' +
    `<link rel="alternate" type="application/atom+xml" title="${e(`${page.title}: incidents and maintenance`)}"` +
    ` href="${e(links.feed)}">` +
    `<link rel="alternate" type="application/json" title="${e(`${page.title}: summary`)}" href="${e(links.summary)}">` +
    (live ? `<script src="${STATUS_JS.path}" defer></script>` : '') +
    '</head><body><a class="skip" href="#content">Skip to content</a>' +
    `<header class="top"><div class="wrap top__inner"><p class="brand"><a href="${e(links.page)}">` +
    `${e(page.title)}</a></p><p class="vh" id="live" role="status" aria-live="polite" aria-atomic="true"></p>` +
    '</div></header>' +
    `<main id="content" class="wrap" tabindex="-1"${version === null ? '' : ` data-version="${e(version)}"`}>` +
    `${main}</main>${after}` +
    `<footer class="wrap foot"><p><a href="${e(links.history)}">Incident history</a> · ` +
    `<a href="${e(links.feed)}">Atom feed</a> · <a href="${e(links.summary)}">JSON summary</a></p>` +
    '<p>Powered by watchlog</p></footer></body></html>\n'
  );
};

const banner = (status: PublicStatus): string =>
  `<section class="banner banner--${status.banner}" aria-labelledby="banner-h">` +
  `<h2 id="banner-h" data-banner="${status.banner}">${BANNER_TEXT[status.banner]}</h2>` +
  (status.page.updated_at === '' ? '' : `<p>Last change ${time(status.page.updated_at)}</p>`) +
  '</section>';

/** `<main>`'s content alone: what the live script swaps in. */
export const statusMain = (status: PublicStatus): string =>
  `<h1>${e(status.page.title)}</h1>` +
  (status.page.description === null || status.page.description === ''
    ? ''
    : `<p class="lead">${e(status.page.description)}</p>`) +
  banner(status) +
  activeSection(status.active) +
  maintenanceSection(status.maintenances) +
  groupsSection(status.groups) +
  pastSection(status.past, PAST_INCIDENT_DAYS, status.page.links.history);

/** GET /status/:slug. `version`: what the route's ETag is made of (etagOf); by default a digest
 *  of what the page shows. A route that knows a cheaper one (the page's version in the read
 *  model, with the hour) can answer 304 before it builds anything. `subscribe`: the deployment
 *  mails subscribers (WATCHLOG_SMTP_HOST), so the page has the form. */
export const renderStatusPage = (
  status: PublicStatus,
  version: string = versionOf(status),
  { subscribe = false }: { subscribe?: boolean } = {},
): string =>
  shell({
    page: status.page,
    title: `${status.page.title}: ${BANNER_TEXT[status.banner]}`,
    live: true,
    main: statusMain(status),
    version: etagSafe(version),
    after: subscribe ? subscribeSection(status.page.slug) : '',
  });

const pager = (history: PublicHistory): string => {
  const { page, total_pages } = history.pagination;
  if (total_pages <= 1) return '';
  const base = history.page.links.history;
  const prev = page > 1 ? `<a rel="prev" href="${e(`${base}?page=${page - 1}`)}">Newer incidents</a>` : '';
  const next = page < total_pages ? `<a rel="next" href="${e(`${base}?page=${page + 1}`)}">Older incidents</a>` : '';
  return (
    `<nav class="pager" aria-label="Pages of the history">${prev}` +
    `<span>Page ${page} of ${total_pages}</span>${next}</nav>`
  );
};

/** GET /status/:slug/history. */
export const renderHistoryPage = (history: PublicHistory): string => {
  const { pagination } = history;
  const list =
    history.incidents.length === 0
      ? `<p class="empty">${pagination.total_items === 0 ? 'No incidents so far.' : 'No incidents on this page.'}</p>`
      : history.incidents.map((i) => incidentArticle(i, 'h2', false)).join('');
  return shell({
    page: history.page,
    title: `${history.page.title}: incident history`,
    live: false,
    main:
      `<h1>${e(history.page.title)}: incident history</h1>` +
      `<p class="lead"><a href="${e(history.page.links.page)}">Current status</a></p>` +
      `${list}${pager(history)}`,
    version: null,
  });
};
