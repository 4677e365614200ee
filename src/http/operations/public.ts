import * as t from 'io-ts';
import { matching, Uuid } from '../../domain/codecs.ts';
import { Slug } from '../../domain/status-page.ts';
import { IntFromString } from '../middleware/query.ts';
import { noContent, operation, type Header, type TextAnswer } from './operation.ts';

/** The public status pages, their machine-readable forms, their assets and the monitors' badges:
 *  no authentication, and nothing but what a published page shows (docs/status-pages.md). Each
 *  answer carries an ETag, and `If-None-Match` with it is 304. */

const TAG = 'Public status pages';
const slug = { slug: { codec: Slug, what: 'status page' } };
const monitorId = { monitor_id: { codec: Uuid, what: 'monitor' } };

const cacheHeaders: Readonly<Record<string, Header>> = {
  ETag: { description: 'a digest of what the answer shows', required: true },
  'Cache-Control': { description: '`public, no-cache`: revalidate with the ETag', required: true },
  'Content-Security-Policy': { description: 'same origin only: no inline script or style, no frames', required: true },
  'X-Content-Type-Options': { description: '`nosniff`', required: true },
  'Referrer-Policy': { description: '`no-referrer`', required: true },
};
const body = (description: string, ...mediaTypes: string[]): TextAnswer => ({
  description,
  headers: cacheHeaders,
  text: { mediaTypes, description },
});
const notModified = {
  ...noContent('not modified: the ETag sent in If-None-Match is current'),
  headers: cacheHeaders,
};
const cached = (description: string, mediaType: string) => ({ 200: body(description, mediaType), 304: notModified });

const notFound = 'An unknown slug, or a page that is not published, is 404.';

export const BadgeDaysQuery = t.exact(t.partial({ days: IntFromString(1, 90) }));
export const HistoryQuery = t.exact(t.partial({ page: IntFromString(1, 10_000) }));

const ASSET_RE = /^status\.[0-9a-f]{16}\.(css|js)$/;

export const publicOperations = {
  page: operation({
    method: 'get',
    path: '/status/:slug',
    tag: TAG,
    auth: 'none',
    params: slug,
    summary: 'A status page',
    description:
      'Rendered on the server: complete without JavaScript; a small script from the same origin keeps it ' +
      `current. ${notFound} Also served at \`/\` of the page's \`custom_domain\`.`,
    errors: [404],
    responses: cached('the page', 'text/html; charset=utf-8'),
  }),
  history: operation({
    method: 'get',
    path: '/status/:slug/history',
    tag: TAG,
    auth: 'none',
    params: slug,
    query: HistoryQuery,
    summary: "A status page's incident history",
    description: `Every incident of the page, newest first, 20 a page. ${notFound}`,
    errors: [404],
    responses: cached('the history', 'text/html; charset=utf-8'),
  }),
  summary: operation({
    method: 'get',
    path: '/status/:slug/summary.json',
    tag: TAG,
    auth: 'none',
    params: slug,
    summary: "A status page's summary",
    description:
      "Close to Atlassian Statuspage's `summary.json` (page, components, incidents, scheduled_maintenances, " +
      `status), so tools that read that read this; fields in docs/status-pages.md. ${notFound}`,
    errors: [404],
    responses: cached('the summary', 'application/json; charset=utf-8'),
  }),
  feed: operation({
    method: 'get',
    path: '/status/:slug/feed.atom',
    tag: TAG,
    auth: 'none',
    params: slug,
    summary: "A status page's Atom feed",
    description: `Incidents (an entry per update) and maintenance windows, newest first. ${notFound}`,
    errors: [404],
    responses: cached('the feed', 'application/atom+xml; charset=utf-8'),
  }),
  asset: operation({
    method: 'get',
    path: '/status-assets/:file',
    tag: TAG,
    auth: 'none',
    params: { file: { codec: matching('a status page asset', ASSET_RE), what: 'asset' } },
    summary: "The status pages' stylesheet and script",
    description: 'Named by a digest of their content: cached for a year.',
    errors: [404],
    responses: {
      200: body('the file', 'text/css; charset=utf-8', 'text/javascript; charset=utf-8'),
      304: notModified,
    },
  }),
  statusBadge: operation({
    method: 'get',
    path: '/badge/:monitor_id/status.svg',
    tag: TAG,
    auth: 'none',
    params: monitorId,
    summary: "A monitor's state as a badge",
    description:
      'Shields-style SVG. Badges exist for monitors on a published status page, or marked ' +
      '`public_badges: true`; any other is 404.',
    errors: [404],
    responses: cached('the badge', 'image/svg+xml'),
  }),
  uptimeBadge: operation({
    method: 'get',
    path: '/badge/:monitor_id/uptime.svg',
    tag: TAG,
    auth: 'none',
    params: monitorId,
    query: BadgeDaysQuery,
    summary: "A monitor's uptime as a badge",
    description: 'Over the last `days` (1 to 90, default 30), maintenance left out.',
    errors: [404],
    responses: cached('the badge', 'image/svg+xml'),
  }),
  responseBadge: operation({
    method: 'get',
    path: '/badge/:monitor_id/response.svg',
    tag: TAG,
    auth: 'none',
    params: monitorId,
    summary: "A monitor's response time as a badge",
    description: 'The mean response time of its successful checks over the last 24 hours.',
    errors: [404],
    responses: cached('the badge', 'image/svg+xml'),
  }),
  certificateBadge: operation({
    method: 'get',
    path: '/badge/:monitor_id/certificate.svg',
    tag: TAG,
    auth: 'none',
    params: monitorId,
    summary: "A monitor's certificate expiry as a badge",
    description: 'Days until the certificate its last check saw expires.',
    errors: [404],
    responses: cached('the badge', 'image/svg+xml'),
  }),
};
