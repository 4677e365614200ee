import { createClient, type BrowserEvent, type Env } from '../../src/client.ts';
import { resolveOptions, type WatchlogOptions } from '../../src/options.ts';

export const ENDPOINT = 'https://watchlog.example.com';
export const API = 'https://api.example.com';

interface Post {
  url: string;
  init: RequestInit;
  events: BrowserEvent[];
}
type Answer = Response | Error | Promise<Response> | undefined;

/** A client on a fake world: fetch answers from a script (202 accepting all by default), timers
 *  wait until a test fires them, and the clock moves when told. */
export const harness = (options: Partial<WatchlogOptions> = {}, { beaconTakes = (): boolean => true } = {}) => {
  const posts: Post[] = [];
  const beacons: Array<{ url: string; events: BrowserEvent[]; bytes: number }> = [];
  const answers: Answer[] = [];
  const timers = new Map<number, { fn: () => void; ms: number }>();
  let nextTimer = 1;
  let elapsed = 1000;
  const env: Env = {
    fetch: async (url, init) => {
      const events = JSON.parse(String(init.body)) as BrowserEvent[];
      posts.push({ url, init, events });
      const answer = answers.shift();
      if (answer instanceof Error) throw answer;
      return (
        answer ??
        Response.json(
          { accepted: events.map((_, index) => ({ index, id: `id-${index}` })), rejected: [] },
          { status: 202 },
        )
      );
    },
    beacon: (url, body) => {
      if (!beaconTakes()) return false;
      beacons.push({ url, events: JSON.parse(body) as BrowserEvent[], bytes: Buffer.byteLength(body) });
      return true;
    },
    setTimeout: (fn, ms) => {
      timers.set(nextTimer, { fn, ms });
      return nextTimer++;
    },
    clearTimeout: (id) => {
      timers.delete(id as number);
    },
    now: () => Date.parse('2026-03-01T12:00:00Z'),
    elapsed: () => elapsed,
    random: () => 0.5,
    baseUrl: () => 'https://shop.example.com/cart',
    sessionId: 'session-1',
    userAgent: 'TestBrowser/1.0',
  };
  const client = createClient(
    resolveOptions(
      {
        endpoint: ENDPOINT,
        apiKey: 'key 1',
        serviceName: 'storefront',
        environment: 'staging',
        backends: [API, '/api'],
        ...options,
      },
      'https://shop.example.com/cart',
    ),
    env,
  );
  const settle = () => new Promise<void>((r) => setImmediate(r));
  return {
    client,
    posts,
    beacons,
    answers,
    timers,
    advance: (ms: number) => {
      elapsed += ms;
    },
    /** Fires the one pending timer (there is at most one at a time) and returns its delay. */
    fire: async (): Promise<number> => {
      const [id, timer] = [...timers][0] ?? [];
      if (id === undefined || !timer) throw new Error('no timer pending');
      timers.delete(id);
      timer.fn();
      await settle();
      return timer.ms;
    },
    settle,
    /** One recorded call: GET by default, 200. */
    call: (
      url = `${API}/orders/7?token=x#top`,
      {
        method = 'GET',
        status = 200 as number | null,
        error = undefined as string | undefined,
        requestId = 'req-1',
      } = {},
    ) => {
      const c = client.begin(method, url);
      if (c) {
        elapsed += 25;
        client.end(c, requestId, status ?? undefined, error);
      }
      return c;
    },
  };
};
