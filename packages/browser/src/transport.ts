import { retryAfterMs } from './backoff.ts';

/** The page's own fetch, as it was before the SDK wrapped it (the SDK never records itself). */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export type Outcome =
  | { kind: 'delivered'; accepted: number; rejected: number }
  | { kind: 'retry'; retryAfterMs: number | undefined }
  | { kind: 'refused'; status: number };

/** Worth another try: the batch may never have arrived, or the server asks for it later. Every
 *  event carries an idempotency key, so a batch that did arrive is not stored twice. */
export const isRetryable = (status: number): boolean => status === 408 || status === 429 || status >= 500;

export const batchUrl = (endpoint: string): string => `${endpoint}/v1/audit/batch`;

/** sendBeacon cannot set headers, so the key travels in the query on page hide. */
export const beaconUrl = (endpoint: string, apiKey: string): string =>
  `${batchUrl(endpoint)}?api_key=${encodeURIComponent(apiKey)}`;

/** How many events the server took: its answer's lists when readable, else all of them. */
const countsOf = async (res: Response, count: number): Promise<{ accepted: number; rejected: number }> => {
  try {
    const body = (await res.json()) as { accepted?: unknown; rejected?: unknown } | null;
    if (Array.isArray(body?.accepted) && Array.isArray(body.rejected))
      return { accepted: body.accepted.length, rejected: body.rejected.length };
  } catch {
    // an unreadable answer to a 2xx still means the batch arrived
  }
  return { accepted: count, rejected: 0 };
};

/** One attempt at a batch. keepalive lets it finish when the page goes away mid-request;
 *  credentials are omitted because the API key is the only credential. */
export const postBatch = async (
  fetchFn: Fetch,
  endpoint: string,
  apiKey: string,
  body: string,
  count: number,
  now: number,
): Promise<Outcome> => {
  let res: Response;
  try {
    res = await fetchFn(batchUrl(endpoint), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': apiKey },
      body,
      keepalive: true,
      credentials: 'omit',
    });
  } catch {
    return { kind: 'retry', retryAfterMs: undefined };
  }
  if (res.ok) return { kind: 'delivered', ...(await countsOf(res, count)) };
  if (isRetryable(res.status))
    return { kind: 'retry', retryAfterMs: retryAfterMs(res.headers.get('Retry-After'), now) };
  // 400: no event of the batch was valid (the SDK builds them, so this means a server that
  // disagrees with it); retrying would not change that.
  return res.status === 400
    ? { kind: 'delivered', accepted: 0, rejected: count }
    : { kind: 'refused', status: res.status };
};

/** Page-hide delivery of one body: sendBeacon, else a keepalive fetch, both as text/plain with the
 *  key in the query, a request that needs no CORS preflight, so it can leave a closing page.
 *  false when the browser would not take it (over its keepalive quota). */
export const sendOnHide = (fetchFn: Fetch, url: string, body: string): boolean => {
  try {
    if (typeof navigator === 'object' && typeof navigator.sendBeacon === 'function')
      return navigator.sendBeacon(url, body);
    fetchFn(url, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body,
      keepalive: true,
      credentials: 'omit',
    }).catch(() => undefined);
    return true;
  } catch {
    return false;
  }
};
