import * as t from 'io-ts';
import { type Role, Uuid, boundedString } from '../../domain/codecs.ts';
import type { ErrorDetail } from '../../domain/errors.ts';
import { IntFromString } from '../middleware/query.ts';
import type { PathParam } from './operation.ts';

/** What the declarations of several operations share: roles, paging, path parameters, the
 *  rule between date parameters, and the examples of the description. */

export const WRITERS: readonly Role[] = ['admin', 'member'];
export const ADMINS: readonly Role[] = ['admin'];
/** A project the caller may not see, named by a parameter or the body, is 404. */
export const NOT_VISIBLE = 404;

export const MAX_PAGE_SIZE = 100;

export const Paging = t.partial({
  page: IntFromString(1, Number.MAX_SAFE_INTEGER),
  limit: IntFromString(1, MAX_PAGE_SIZE),
});
export const paging = `Paged with \`page\` (default 1) and \`limit\` (default 20, at most ${MAX_PAGE_SIZE}).`;

/** The `project_id` filter of the lists of a project's resources (monitors, channels). */
export const ListQuery = t.exact(t.partial({ project_id: Uuid }));

/** A UUID naming `what`: another value is 404, as an unknown one is. */
export const uuidParam = (what: string): PathParam => ({ codec: Uuid, what });
/** A path parameter of 1 to 255 characters. */
export const textParam = (what: string): PathParam => ({ codec: boundedString(1, 255), what });

/** `start_date` must not be after `end_date`. */
export const dateRange = (q: { start_date?: string; end_date?: string }): ErrorDetail[] =>
  q.start_date && q.end_date && Date.parse(q.start_date) > Date.parse(q.end_date)
    ? [{ path: 'start_date', message: 'must not be after end_date' }]
    : [];

export const PROJECT = '7b1e4c1e-5a47-4c8e-9c43-4c35b1f0a001';
export const EVENT = '0f8fad5b-d9cb-469f-a165-70867728950e';
export const MONITOR = '2c4a230c-5085-4924-a3e1-25fb4fc5965b';
export const AT = '2026-09-01T10:00:03.000Z';

export const eventExample = {
  path: '/login',
  method: 'POST',
  status_code: 200,
  response_time: 42,
  identifier: 'user-1',
  service_name: 'auth',
  environment: 'production',
  request_id: 'req-7f3a',
  session_id: 'sess-1',
  request_body: { email: 'ada@example.com', password: 'hunter2' },
};
