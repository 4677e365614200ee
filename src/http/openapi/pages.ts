import type { AnyOperation, Answer, Header } from '../operations/operation.ts';

/** An operation as the description reads it: one of the table's, or a page of the dashboard. */
export type Described = Pick<
  AnyOperation,
  | 'method'
  | 'path'
  | 'tag'
  | 'summary'
  | 'description'
  | 'auth'
  | 'keyScope'
  | 'roles'
  | 'orSelf'
  | 'params'
  | 'query'
  | 'ignoresQuery'
  | 'headers'
  | 'body'
  | 'responses'
  | 'errors'
>;

/** The headers of every dashboard file. */
const dashboardHeaders: Readonly<Record<string, Header>> = {
  'Content-Security-Policy': { description: 'no inline script or style, nothing from elsewhere', required: true },
  'X-Content-Type-Options': { description: '`nosniff`', required: true },
  'Referrer-Policy': { description: '`no-referrer`', required: true },
  'Cross-Origin-Opener-Policy': { description: '`same-origin`', required: true },
  'Cache-Control': { description: '`no-cache` for pages; a year, immutable, for hashed assets', required: true },
  ETag: { description: 'for `If-None-Match`', required: true },
};

const dashboardPage = (description: string): Answer => ({
  description,
  text: { mediaTypes: ['text/html; charset=utf-8'], description: "the dashboard's index.html" },
  headers: dashboardHeaders,
});

/** The pages the dashboard serves (src/http/dashboard.ts): no routes of the API, but the API's
 *  process answers them. */
export const DASHBOARD_PAGES: readonly Described[] = [
  {
    method: 'get',
    path: '/',
    tag: 'Dashboard',
    auth: 'none',
    ignoresQuery: true,
    summary: 'The dashboard',
    description:
      'The dashboard (a single-page app that signs in and uses this API). Any other path without an ' +
      'extension that asks for HTML answers the same page, so links to its screens work.',
    responses: {
      200: dashboardPage('the dashboard'),
      304: { description: 'not modified (`If-None-Match`)', headers: dashboardHeaders },
    },
  },
  {
    method: 'get',
    path: '/docs',
    tag: 'Dashboard',
    auth: 'none',
    ignoresQuery: true,
    summary: 'This reference, rendered',
    description: 'A page of the dashboard that renders `/v1/openapi.json` (Swagger UI, bundled with the dashboard).',
    responses: {
      200: dashboardPage('the reference page'),
      304: { description: 'not modified (`If-None-Match`)', headers: dashboardHeaders },
    },
  },
];
