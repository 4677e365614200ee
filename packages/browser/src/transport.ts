import type { RetryAnswer } from './retry.ts';

/** The page's own fetch, as it was before the SDK wrapped it (the SDK never records itself). */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** A 2xx, counted from its answer; anything else is for retryStep to judge. */
export type Outcome =
  | { kind: 'delivered'; accepted: number; rejected: number }
  | { kind: 'other'; answer: RetryAnswer };

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

/** An error answer's JSON, for the details of a 400; undefined when it has none. */
const errorBody = async (res: Response): Promise<unknown> => {
  if (res.status !== 400) return undefined;
  try {
    return await res.json();
  } catch {
    return undefined;
  }
};

/** One attempt at a batch. keepalive lets it finish when the page goes away mid-request;
 *  credentials are omitted because the API key is the only credential. */
export const postBatch = async (
  fetchFn: Fetch,
  endpoint: string,
  apiKey: string,
  body: string,
  count: number,
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
  } catch (error) {
    return { kind: 'other', answer: { network: error instanceof Error ? error.message : String(error) } };
  }
  if (res.ok) return { kind: 'delivered', ...(await countsOf(res, count)) };
  const retryAfter = res.headers.get('Retry-After') ?? undefined;
  return { kind: 'other', answer: { status: res.status, retryAfter, body: await errorBody(res) } };
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
