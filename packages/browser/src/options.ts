import { toPrefix, type Prefix } from './match.ts';

export type Environment = 'production' | 'staging' | 'development';

/** What `init()` takes. Relative URLs are resolved against the page's address. */
export interface WatchlogOptions {
  /** watchlog's base address, e.g. `https://watchlog.example.com` (its ingest endpoints are under it). */
  endpoint: string;
  /** A project API key: sent as `X-API-Key`, and in the `api_key` query parameter on page hide. */
  apiKey: string;
  /** This front end's `service_name` (1 to 255 characters). */
  serviceName: string;
  environment: Environment;
  /** The backends whose calls are recorded: origins (`https://api.example.com`) or URL prefixes
   *  (`https://example.com/api`, `/api`). A prefix matches whole path segments. */
  backends: readonly string[];
  /** The signed-in user's id, asked at each recorded call; absent, empty or throwing: the tab's anonymous id. */
  identify?: () => string | null | undefined;
  /** How long an event may wait in the queue before a batch is sent. */
  flushIntervalMs?: number;
  /** At most this many events per request; a queue this long is sent at once. */
  maxBatch?: number;
  /** At most this many events wait; beyond it the oldest is dropped (`stats().dropped`). */
  maxQueue?: number;
  /** Retries of a batch after a network error, 408, 429 or 5xx before it is given up (`stats().failed`). */
  maxRetries?: number;
}

export interface ResolvedOptions {
  /** Without a trailing slash. */
  endpoint: string;
  /** The endpoint as a prefix: calls under it are never recorded. */
  watchlog: Prefix;
  apiKey: string;
  serviceName: string;
  environment: Environment;
  backends: Prefix[];
  identify: (() => string | null | undefined) | undefined;
  flushIntervalMs: number;
  maxBatch: number;
  maxQueue: number;
  maxRetries: number;
}

/** Each number option: default, minimum, maximum. The flush interval stays far below the 2-minute
 *  window in which watchlog pairs a browser event with its backend event: both are stamped with
 *  their arrival time. The batch size is the server's limit. */
const NUMBERS = {
  flushIntervalMs: [5000, 100, 60_000],
  maxBatch: [50, 1, 1000],
  maxQueue: [1000, 1, 100_000],
  maxRetries: [5, 0, 20],
} as const;

export const DEFAULTS = {
  flushIntervalMs: NUMBERS.flushIntervalMs[0],
  maxBatch: NUMBERS.maxBatch[0],
  maxQueue: NUMBERS.maxQueue[0],
  maxRetries: NUMBERS.maxRetries[0],
};

const ENVIRONMENTS = ['production', 'staging', 'development'];
const KNOWN = ['endpoint', 'apiKey', 'serviceName', 'environment', 'backends', 'identify', ...Object.keys(NUMBERS)];

/** Checks every option and throws one TypeError naming each faulty one, so a wrong set-up is
 *  seen at once rather than as silently missing events. `base` resolves relative URLs. */
export const resolveOptions = (input: unknown, base?: string): ResolvedOptions => {
  const problems: string[] = [];
  const isObject = typeof input === 'object' && input !== null;
  if (!isObject) problems.push('options must be an object');
  const o = (isObject ? input : {}) as Record<string, unknown>;
  // A misspelt option would otherwise fall back to its default without a word.
  for (const key of Object.keys(o)) if (!KNOWN.includes(key)) problems.push(`${key} is not a known option`);

  const text = (name: string, max: number): string => {
    const v = o[name];
    if (typeof v === 'string' && v.length > 0 && v.length <= max) return v;
    problems.push(`${name} must be a string of 1 to ${max} characters`);
    return '';
  };
  const url = (name: string, v: unknown): URL | undefined => {
    try {
      const u = new URL(v as string, base);
      if (typeof v === 'string' && /^https?:$/.test(u.protocol) && !u.search && !u.hash) return u;
    } catch {
      // reported below
    }
    problems.push(
      `${name} must be an http(s) URL without query or fragment${base ? '' : ' (absolute: there is no page address)'}`,
    );
    return undefined;
  };

  const endpoint = url('endpoint', o.endpoint);
  const apiKey = text('apiKey', 1000);
  const serviceName = text('serviceName', 255);
  const environment = o.environment as Environment;
  if (!ENVIRONMENTS.includes(environment)) problems.push('environment must be one of production, staging, development');

  const backends: Prefix[] = [];
  if (!Array.isArray(o.backends) || o.backends.length === 0)
    problems.push('backends must be a non-empty array of origins or URL prefixes');
  else
    o.backends.forEach((b: unknown, i) => {
      const u = url(`backends[${i}]`, b);
      if (u) backends.push(toPrefix(u));
    });

  if (o.identify !== undefined && typeof o.identify !== 'function') problems.push('identify must be a function');

  const numbers = {} as Record<keyof typeof NUMBERS, number>;
  for (const [name, [fallback, min, max]] of Object.entries(NUMBERS) as Array<
    [keyof typeof NUMBERS, readonly [number, number, number]]
  >) {
    const v = o[name] ?? fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      problems.push(`${name} must be an integer from ${min} to ${max}`);
    numbers[name] = v as number;
  }

  if (problems.length > 0 || !endpoint)
    throw new TypeError(`@watchlog/browser: invalid options: ${problems.join('; ')}`);
  const href = endpoint.href.replace(/\/+$/, '');
  return {
    endpoint: href,
    watchlog: toPrefix(endpoint),
    apiKey,
    serviceName,
    environment,
    backends,
    identify: o.identify as ResolvedOptions['identify'],
    ...numbers,
  };
};
