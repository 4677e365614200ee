import type { AuditEventInput } from '../domain/audit-event.ts';
import { backofficeCall, diceOf, shopCall, type User } from './demo-calls.ts';

/** `watchlog demo`'s traffic: a day of two shops' worth of requests, made up but shaped like the
 *  real thing, so every screen of the dashboard has something true to show. Pure and seeded: the
 *  same seed and `now` give the same day (tests and the bench can rely on its shape).
 *
 *  - sessions, not independent events: a user comes back to the same services for a few minutes,
 *    so derived sessions (SPEC 3.3) form; most storefront visits also carry a `session_id`;
 *  - the storefront (a browser app) reports its calls with a `request_id` that the backend event
 *    of the same call also carries; about 1 in 60 never reached a backend (orphans, SPEC 4.5);
 *  - start times follow a daily curve (quiet at night, busiest mid-afternoon UTC);
 *  - 4xx at a few percent, 5xx under one percent, and one past incident on checkout-api where
 *    the payment provider timed out for 20 minutes; latencies log-normal with a long tail;
 *  - bodies carry passwords, card numbers and CVVs, which ingest's masking removes;
 *  - in the last 90 seconds, someone guesses one account's password from one address (the
 *    brute_force rule's pattern). */

export interface DemoProjects {
  shop: string;
  backoffice: string;
}

export interface DemoEvent {
  readonly projectId: string;
  readonly input: AuditEventInput;
  /** When it happened: the stored event's `timestamp`. */
  readonly at: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** mulberry32: small, fast, and good enough to make traffic look random. */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

/** Traffic by hour of the day (UTC), from 0.12 at night to 1 around 15:00. */
export const dailyWeight = (ms: number): number => {
  const hour = (ms % DAY) / HOUR;
  const day = Math.sin((Math.PI * (hour - 6)) / 17);
  return hour >= 6 && hour <= 23 ? 0.12 + 0.88 * Math.max(0, day) ** 1.4 : 0.12;
};

const FIRST = [
  'maria',
  'li',
  'ahmed',
  'olga',
  'james',
  'sofia',
  'kenji',
  'amara',
  'lucas',
  'nina',
  'omar',
  'priya',
  'tom',
  'elena',
  'yusuf',
  'chloe',
  'diego',
  'hana',
  'ivan',
  'zoe',
];
const LAST = [
  'garcia',
  'chen',
  'khan',
  'petrova',
  'smith',
  'rossi',
  'tanaka',
  'okafor',
  'martin',
  'berg',
  'haddad',
  'patel',
  'walker',
  'novak',
  'demir',
  'dubois',
  'lopez',
  'kim',
  'ivanov',
  'young',
];
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'AcmeShop/4.12 (Android 15; Pixel 8)',
];

/** The attacker of the brute-force pattern. */
export const BRUTE_FORCE = { identifier: 'maria.garcia@example.com', ip: '198.51.100.23', attempts: 40 } as const;

export interface TrafficOptions {
  now: number;
  /** How many events in all (the last session may overshoot by a few; they are cut). */
  total: number;
  projects: DemoProjects;
  seed?: number;
  /** How far back the day starts (default 24 h). */
  spanMs?: number;
  /** Include the brute-force pattern (default true). */
  bruteForce?: boolean;
}

/** The day's events in batches of at most `batchSize`, each batch in time order (batches overlap
 *  in time: sessions are generated one after another, not sorted globally, which keeps memory
 *  flat for a million events). */
export function* demoTraffic(options: TrafficOptions, batchSize = 10_000): Generator<DemoEvent[]> {
  const random = seededRandom(options.seed ?? 13);
  const { now, projects } = options;
  const span = options.spanMs ?? DAY;
  const dice = diceOf(random);
  const { pick, chance, hex, latency } = dice;
  // A start time on the daily curve (rejection sampling).
  const startTime = (): number => {
    for (;;) {
      const t = now - span + random() * Math.max(span - 5 * 60_000, span / 2);
      if (random() <= dailyWeight(t)) return t;
    }
  };
  const users: User[] = Array.from({ length: 1200 }, (_, i) => {
    const first = FIRST[i % FIRST.length]!;
    const last = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
    const n = Math.floor(i / (FIRST.length * LAST.length));
    return {
      id: `usr_${(100_000 + i * 7919).toString(36)}`,
      email: `${first}.${last}${n > 0 ? n : ''}@example.com`,
      name: `${first[0]!.toUpperCase()}${first.slice(1)} ${last[0]!.toUpperCase()}${last.slice(1)}`,
      ip: `${[81, 92, 145, 176, 203][i % 5]}.${(i * 37) % 256}.${(i * 11) % 256}.${((i * 101) % 254) + 1}`,
      agent: AGENTS[i % AGENTS.length]!,
      tenant: `tenant_${['eu', 'us', 'apac'][i % 3]}`,
    };
  });
  const staff = users.slice(0, 25);
  // The incident: checkout-api's payment provider timed out, 7 h ago, for 20 minutes.
  const incident = { from: now - 7 * HOUR, to: now - 7 * HOUR + 20 * 60_000 };

  let batch: DemoEvent[] = [];
  let emitted = 0;
  const full = () => emitted >= options.total;
  const push = (e: DemoEvent) => {
    // A session that started just before now would run into the future: it stops at now.
    if (full() || e.at > now) return;
    batch.push(e);
    emitted += 1;
  };
  const flush = function* (): Generator<DemoEvent[]> {
    if (batch.length === 0) return;
    const out = batch.sort((a, b) => a.at - b.at);
    batch = [];
    yield out;
  };

  // The brute force comes first, so even the smallest demo has it.
  for (let i = 0; options.bruteForce !== false && i < BRUTE_FORCE.attempts && i < options.total; i += 1) {
    push({
      projectId: projects.shop,
      at: now - 90_000 + Math.floor((i * 88_000) / BRUTE_FORCE.attempts),
      input: {
        path: '/v1/login',
        method: 'POST',
        identifier: BRUTE_FORCE.identifier,
        service_name: 'auth',
        environment: 'production',
        source: 'backend',
        status_code: 401,
        response_time: latency(140),
        ip: BRUTE_FORCE.ip,
        user_agent: 'python-requests/2.32.3',
        request_id: `req_${hex(16)}`,
        request_body: { email: BRUTE_FORCE.identifier, password: `guess-${i}` },
        response_body: { error: 'invalid_credentials' },
        error_message: 'wrong e-mail or password',
      },
    });
  }

  while (!full()) {
    const at0 = startTime();
    if (chance(0.14)) {
      // A staff member in the back office: a few calls a minute apart.
      const user = pick(staff);
      let at = at0;
      for (let step = 0, n = 2 + Math.floor(random() * 12); step < n; step += 1) {
        const call = backofficeCall(dice, now);
        push({
          projectId: projects.backoffice,
          at,
          input: {
            path: call.path,
            method: call.method,
            identifier: user.id,
            service_name: call.service,
            environment: chance(0.1) ? 'staging' : 'production',
            status_code: call.status,
            response_time: call.latency,
            user_email: user.email,
            user_name: user.name,
            user_roles: ['staff', ...(chance(0.3) ? ['finance'] : [])],
            user_type: 'staff',
            ip: user.ip,
            user_agent: user.agent,
            request_id: `req_${hex(16)}`,
            source: 'backend',
            ...call.extra,
          },
        });
        at += 5_000 + random() * 90_000;
      }
    } else {
      // A shopper on the storefront: each call reported by the browser and by the backend.
      const user = pick(users);
      const sessionId = chance(0.7) ? `sess_${hex(20)}` : undefined;
      const environment = chance(0.04) ? 'staging' : 'production';
      let at = at0;
      for (let step = 0, n = 2 + Math.floor(random() * 14); step < n; step += 1) {
        const call = shopCall(dice, user, at, step, incident);
        const requestId = `req_${hex(16)}`;
        const common: Omit<AuditEventInput, 'path' | 'service_name'> = {
          method: call.method,
          identifier: user.id,
          environment,
          user_email: user.email,
          user_name: user.name,
          user_roles: ['customer'],
          user_type: 'customer',
          tenant_id: user.tenant,
          ip: user.ip,
          user_agent: user.agent,
          request_id: requestId,
          ...(sessionId ? { session_id: sessionId } : {}),
        };
        const orphan = chance(1 / 60);
        push({
          projectId: projects.shop,
          at,
          input: {
            ...common,
            path: `/api${call.path}`,
            service_name: 'storefront',
            source: 'browser',
            ...(orphan
              ? { error_message: 'TypeError: Failed to fetch' }
              : { status_code: call.status, response_time: call.latency + 20 + Math.floor(random() * 60) }),
          },
        });
        if (!orphan) {
          push({
            projectId: projects.shop,
            at: at + 8 + Math.floor(random() * 20),
            input: {
              ...common,
              path: call.path,
              service_name: call.service,
              source: 'backend',
              status_code: call.status,
              response_time: call.latency,
              ...call.extra,
            },
          });
        }
        at += 2_000 + random() * 45_000;
      }
    }
    if (batch.length >= batchSize) yield* flush();
  }
  yield* flush();
}
