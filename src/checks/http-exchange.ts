import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { EgressPolicy } from './egress.ts';

/** One check's HTTP exchange on Node's own client, hop by hop: what got did for the probe, at a
 *  fraction of its cost per request (its option normalisation, hooks and stream wrapping were a
 *  third of a check's CPU at 1,000 checks/s). Every hop is a new connection through the egress
 *  policy's agents, so a redirect is judged like the first request. */

/** The statuses that carry a redirect; 303 turns the request into a GET (or HEAD stays HEAD). */
const REDIRECTS = new Set([300, 301, 302, 303, 307, 308]);

export interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** More redirects than max_redirects. */
export class TooManyRedirectsError extends Error {}

/** A redirect to somewhere a check cannot go (another scheme, a location that is not a URL). */
export class BadRedirectError extends Error {}

/** A failure while talking to a hop, with that hop (error texts name the host that failed). */
export class HopError extends Error {
  constructor(
    readonly hop: URL,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Sends one hop and resolves to its response's head; the body is left unread in the stream. */
const send = (hop: Hop, egress: EgressPolicy, rejectUnauthorized: boolean, signal: AbortSignal) =>
  new Promise<IncomingMessage>((resolve, reject) => {
    const secure = hop.url.protocol === 'https:';
    const headers =
      hop.body === undefined ? hop.headers : { ...hop.headers, 'content-length': String(Buffer.byteLength(hop.body)) };
    const options = { method: hop.method, headers, signal, ...(secure ? { rejectUnauthorized } : {}) };
    const req = secure
      ? https.request(hop.url, { ...options, agent: egress.agent.https })
      : http.request(hop.url, { ...options, agent: egress.agent.http });
    req.once('response', resolve);
    req.once('error', (error) => reject(new HopError(hop.url, error)));
    req.end(hop.body);
  });

/** The next hop a redirect response leads to, null when it is not one, or why it cannot be followed. */
const nextHop = (hop: Hop, response: IncomingMessage): Hop | BadRedirectError | null => {
  const status = response.statusCode ?? 0;
  const location = response.headers.location;
  if (!REDIRECTS.has(status) || location === undefined) return null;
  let url: URL;
  try {
    url = new URL(location, hop.url);
  } catch {
    return new BadRedirectError(`redirect to a location that is not a URL: ${location.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return new BadRedirectError(`redirect to an unsupported protocol (${url.protocol})`);
  const headers = { ...hop.headers };
  // Credentials go to the monitor's own host only.
  if (url.host !== hop.url.host) {
    delete headers.authorization;
    delete headers.cookie;
  }
  if (status === 303 && hop.method !== 'GET' && hop.method !== 'HEAD') {
    delete headers['content-type'];
    return { url, method: 'GET', headers };
  }
  return { url, method: hop.method, headers, ...(hop.body === undefined ? {} : { body: hop.body }) };
};

/** Sends `first` and follows up to `maxRedirects` redirects (a redirect past them rejects with
 *  TooManyRedirectsError); resolves to the last response, its body unread. `signal` aborts it. */
export const exchange = async (
  first: Hop,
  egress: EgressPolicy,
  {
    maxRedirects,
    rejectUnauthorized,
    signal,
  }: { maxRedirects: number; rejectUnauthorized: boolean; signal: AbortSignal },
): Promise<IncomingMessage> => {
  let hop = first;
  for (let redirects = 0; ; redirects += 1) {
    const response = await send(hop, egress, rejectUnauthorized, signal);
    const next = maxRedirects === 0 ? null : nextHop(hop, response);
    if (next === null) return response;
    response.destroy();
    if (next instanceof BadRedirectError) throw next;
    if (redirects >= maxRedirects) throw new TooManyRedirectsError(`more than ${maxRedirects} redirects`);
    hop = next;
  }
};
