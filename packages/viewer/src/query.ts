/** What the viewer asks for: its search box and filters, and the page it shows. Pure: turned
 *  into the query strings of `GET /v1/audit` and `GET /v1/audit/export`. */

export const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

export interface ViewerQuery {
  /** The search box, in watchlog's search syntax (docs/search.md): words, "phrases", field:value. */
  q: string;
  method: '' | (typeof METHODS)[number];
  status: '' | (typeof STATUS_CLASSES)[number];
  /** `datetime-local` values (the reader's local time), or '' for no bound. */
  from: string;
  to: string;
  page: number;
  limit: number;
}

export const emptyQuery = (limit: number): ViewerQuery => ({
  q: '',
  method: '',
  status: '',
  from: '',
  to: '',
  page: 1,
  limit,
});

/** A `datetime-local` value as an ISO 8601 instant (the browser's zone), or null when empty or
 *  not a date. `to` takes the whole minute it names, so an event at 10:30:59 is in "to 10:30". */
export const instantOf = (local: string, end = false): string | null => {
  if (local.trim() === '') return null;
  const at = new Date(local);
  if (Number.isNaN(at.getTime())) return null;
  if (end && /T\d\d:\d\d$/.test(local)) at.setSeconds(59, 999);
  return at.toISOString();
};

/** The search text the server gets: the box's, with the status class as a `status:` term. */
export const searchText = (query: ViewerQuery): string =>
  [query.q.trim(), query.status === '' ? '' : `status:${query.status}`].filter((part) => part !== '').join(' ');

/** The filters both endpoints share. */
const filters = (query: ViewerQuery): URLSearchParams => {
  const params = new URLSearchParams();
  const q = searchText(query);
  if (q !== '') params.set('q', q);
  if (query.method !== '') params.set('method', query.method);
  const from = instantOf(query.from);
  if (from !== null) params.set('start_date', from);
  const to = instantOf(query.to, true);
  if (to !== null) params.set('end_date', to);
  return params;
};

export const listParams = (query: ViewerQuery): URLSearchParams => {
  const params = filters(query);
  params.set('page', String(query.page));
  params.set('limit', String(query.limit));
  params.set('sort_by', 'timestamp');
  params.set('sort_order', 'desc');
  return params;
};

export const exportParams = (query: ViewerQuery): URLSearchParams => {
  const params = filters(query);
  params.set('format', 'csv');
  return params;
};
