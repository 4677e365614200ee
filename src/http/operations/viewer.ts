import * as t from 'io-ts';
import { HIDEABLE_FIELDS, VIEWER_TTL_SECONDS, ViewerTokenRequest } from '../../domain/viewer-token.ts';
import { Timestamp } from './answers.ts';
import { matching } from '../../domain/codecs.ts';
import { json, operation, type TextAnswer } from './operation.ts';

/** Viewer tokens: a SaaS's backend (or a user) gives one of its customers a token that reads that
 *  customer's trail (`<watchlog-audit-log>`, `/embed`). */

export const IssuedViewerToken = t.type({
  token: t.string,
  expires_at: Timestamp,
  tenant_id: t.string,
  identifier: t.union([t.string, t.null]),
  hidden_fields: t.array(t.string),
  /** The browser origins that may read with it and frame `/embed`. */
  allowed_origins: t.array(t.string),
});

export const EmbedQuery = t.exact(t.partial({ token: t.string, page_size: t.string }));

const headers = {
  'Content-Security-Policy': {
    description: "same origin only; `frame-ancestors` the token's origins (`'none'` without a valid token)",
    required: true,
  },
  'Cache-Control': { description: 'the page: `no-store` (its address holds a token); files: `public, no-cache`' },
  'Referrer-Policy': { description: '`no-referrer`', required: true },
  'X-Content-Type-Options': { description: '`nosniff`', required: true },
  ETag: { description: "the files: a digest of the file's content" },
  'Access-Control-Allow-Origin': { description: 'the files: `*`, so that pages elsewhere load the viewer' },
};
const page = (description: string, mediaTypes: string[]): TextAnswer => ({
  description,
  headers,
  text: { mediaTypes, description },
});

export const viewerOperations = {
  issueToken: operation({
    method: 'post',
    path: '/v1/projects/:id/viewer-tokens',
    tag: 'Projects',
    auth: 'jwt',
    keyScope: 'viewer:issue',
    resource: 'project',
    summary: 'Issue a viewer token',
    description:
      `A token that reads one tenant's events of the project, and nothing else: the list and its ` +
      `search, an event, the export and the statistics, narrowed to \`tenant_id\` (and to ` +
      `\`identifier\` when given), without the \`fields\` named (any of ${HIDEABLE_FIELDS.join(', ')}). ` +
      `It lives \`expires_in\` seconds (${VIEWER_TTL_SECONDS.min} to ${VIEWER_TTL_SECONDS.max}, default ` +
      `${VIEWER_TTL_SECONDS.default}). Browsers on the origins the project's API keys allow may read ` +
      `with it and frame \`/embed\`. Called by your backend with a key of the \`viewer:issue\` scope, ` +
      `or by a user who sees the project; each issue is a \`system.access\` event.`,
    body: {
      what: 'viewer token request',
      codec: ViewerTokenRequest,
      example: { tenant_id: 'acme-corp', expires_in: 900, fields: ['ip', 'response_body'] },
    },
    responses: { 201: json('the token (shown once: watchlog keeps no copy)', IssuedViewerToken) },
  }),
  embed: operation({
    method: 'get',
    path: '/embed',
    tag: 'Projects',
    auth: 'none',
    query: EmbedQuery,
    summary: 'The audit-log viewer, alone on a page',
    description:
      "For a frame in your product: `/embed?token=<viewer token>` shows that tenant's events with " +
      '`<watchlog-audit-log>`, without the dashboard around it. Only the origins the token names may ' +
      'frame it. The page takes the token out of its address once loaded; `page_size` sets the rows a page.',
    responses: { 200: page('the page', ['text/html; charset=utf-8']) },
  }),
  embedAsset: operation({
    method: 'get',
    path: '/embed/:file',
    tag: 'Projects',
    auth: 'none',
    params: { file: { codec: matching('an embed file', /^(viewer\.js|embed\.js|embed\.css)$/), what: 'file' } },
    summary: "The embed page's script, stylesheet and the viewer",
    errors: [404],
    responses: {
      200: page('the file', ['text/javascript; charset=utf-8', 'text/css; charset=utf-8']),
      304: { description: 'not modified: the ETag sent in If-None-Match is current', headers },
    },
  }),
};
