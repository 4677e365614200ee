import { ENVIRONMENTS, LIMITS, type Environment } from './event.ts';
import type { UnsupportedMethodPolicy } from './methods.ts';
import type { Logger, WatchlogDeliveryError } from './report.ts';

export interface WatchlogOptions {
  /** Base URL of watchlog's ingest API, http or https, e.g. `https://watchlog.example.com`. */
  endpoint: string;
  /** The project's API key (sent as `X-API-Key`). */
  apiKey: string;
  /** `service_name` of every event (1–255 characters). */
  serviceName: string;
  environment: Environment;
  /** Record request and/or response bodies that are JSON objects (default: neither). */
  captureBodies?: boolean | { request?: boolean; response?: boolean };
  /** Largest body (and query or path parameter object) sent, as JSON bytes before masking;
   *  larger ones are replaced by `{ "_watchlog_omitted": "too_large", bytes, limit }`. */
  maxBodyBytes?: number;
  /** Methods SPEC 2.1 does not accept (PATCH, HEAD, OPTIONS, …): 'skip' (default) or a mapping. */
  unsupportedMethods?: UnsupportedMethodPolicy;
  /** `identifier` when the resolver gives none (default 'anonymous'). */
  anonymousIdentifier?: string;
  /** How long an async `identify` may take before the event is recorded as anonymous. */
  identifyTimeoutMs?: number;
  /** Set `X-Request-ID` on the response when the SDK generated the id (default true). */
  setRequestIdHeader?: boolean;
  /** Flush when this many events are queued (and never send more in one batch); 1–1000. */
  batchMaxEvents?: number;
  /** Flush when the queued events' JSON reaches this size (and never send a larger batch). */
  batchMaxBytes?: number;
  /** Flush whatever is queued this long after the oldest queued event arrived. */
  flushIntervalMs?: number;
  /** Events kept in memory while waiting to be sent; past it the oldest are dropped. */
  maxQueueEvents?: number;
  /** Batches in flight at once. */
  concurrency?: number;
  /** First retry delay; each retry doubles it up to `retryMaxDelayMs`, with full jitter. */
  retryInitialDelayMs?: number;
  retryMaxDelayMs?: number;
  /** One delivery attempt's deadline (connect, send, answer). */
  requestTimeoutMs?: number;
  /** Where warnings and errors go (default: console); null silences them. */
  logger?: Logger | null;
  /** Called for every problem reported (also logged). */
  onError?: (error: WatchlogDeliveryError) => void;
  /** false: the middleware only passes requests through and nothing is sent (default true). */
  enabled?: boolean;
}

export interface ResolvedOptions {
  batchUrl: URL;
  apiKey: string;
  serviceName: string;
  environment: Environment;
  captureRequestBody: boolean;
  captureResponseBody: boolean;
  maxBodyBytes: number;
  unsupportedMethods: UnsupportedMethodPolicy;
  anonymousIdentifier: string;
  identifyTimeoutMs: number;
  setRequestIdHeader: boolean;
  batchMaxEvents: number;
  batchMaxBytes: number;
  flushIntervalMs: number;
  maxQueueEvents: number;
  concurrency: number;
  retryInitialDelayMs: number;
  retryMaxDelayMs: number;
  requestTimeoutMs: number;
  logger: Logger | null;
  onError: ((error: WatchlogDeliveryError) => void) | null;
  enabled: boolean;
}

const KIB = 1024;
const MIB = 1024 * KIB;
/** The batch endpoint refuses a body over 5 MiB. */
export const SERVER_MAX_BATCH_BYTES = 5 * MIB;
export const SERVER_MAX_BATCH_EVENTS = 1000;

/** Every numeric option: default and inclusive range. */
export const NUMBERS = {
  maxBodyBytes: { default: 16 * KIB, min: 256, max: MIB },
  identifyTimeoutMs: { default: 5000, min: 1, max: 60_000 },
  batchMaxEvents: { default: 500, min: 1, max: SERVER_MAX_BATCH_EVENTS },
  batchMaxBytes: { default: MIB, min: 16 * KIB, max: SERVER_MAX_BATCH_BYTES },
  flushIntervalMs: { default: 1000, min: 1, max: 60_000 },
  maxQueueEvents: { default: 10_000, min: 1, max: 1_000_000 },
  concurrency: { default: 2, min: 1, max: 16 },
  retryInitialDelayMs: { default: 500, min: 1, max: 60_000 },
  retryMaxDelayMs: { default: 30_000, min: 1, max: 600_000 },
  requestTimeoutMs: { default: 10_000, min: 100, max: 300_000 },
} as const satisfies Record<string, { default: number; min: number; max: number }>;

type NumberOption = keyof typeof NUMBERS;

const KNOWN = new Set<string>([
  'endpoint',
  'apiKey',
  'serviceName',
  'environment',
  'captureBodies',
  'unsupportedMethods',
  'anonymousIdentifier',
  'setRequestIdHeader',
  'logger',
  'onError',
  'enabled',
  ...Object.keys(NUMBERS),
]);

/** Where an option belongs instead, for the mistakes most likely to be made. */
const MISPLACED: Record<string, string> = {
  identify: 'pass identify to the middleware instead, e.g. watchlog.express({ identify })',
  url: 'the option is called endpoint',
  apikey: 'the option is called apiKey',
  api_key: 'the option is called apiKey',
  service: 'the option is called serviceName',
  service_name: 'the option is called serviceName',
  env: 'the option is called environment',
};

export interface ConfigProblem {
  option: string;
  message: string;
}

/** Thrown by createWatchlog when options are wrong: `problems` names every faulty option. */
export class WatchlogConfigError extends Error {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[]) {
    super(`invalid watchlog options:\n${problems.map((p) => `  - ${p.option}: ${p.message}`).join('\n')}`);
    this.name = 'WatchlogConfigError';
    this.problems = problems;
  }
}

const show = (v: unknown): string => {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  if (typeof v === 'function') return 'a function';
  if (v === null || typeof v !== 'object') return String(v);
  return Array.isArray(v) ? 'an array' : 'an object';
};

const isLogger = (v: unknown): v is Logger =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Logger).warn === 'function' &&
  typeof (v as Logger).error === 'function';

/** Checks every option and throws one WatchlogConfigError listing each problem. */
export const resolveOptions = (input: unknown): ResolvedOptions => {
  const problems: ConfigProblem[] = [];
  const problem = (option: string, message: string) => problems.push({ option, message });
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new WatchlogConfigError([
      {
        option: 'options',
        message: `must be an object with endpoint, apiKey, serviceName and environment (got ${show(input)})`,
      },
    ]);
  }
  const o = input as Record<string, unknown>;

  for (const key of Object.keys(o)) {
    if (!KNOWN.has(key)) problem(key, MISPLACED[key] ?? MISPLACED[key.toLowerCase()] ?? 'unknown option');
  }

  let batchUrl: URL | undefined;
  if (typeof o.endpoint !== 'string' || o.endpoint.trim() === '') {
    problem('endpoint', `must be the http(s) URL of watchlog (got ${show(o.endpoint)})`);
  } else {
    let url: URL | undefined;
    try {
      url = new URL(o.endpoint.trim());
    } catch {
      problem('endpoint', `must be an http(s) URL (got ${show(o.endpoint)})`);
    }
    if (url) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        problem('endpoint', `must be an http or https URL (got ${show(o.endpoint)})`);
      else if (url.username || url.password)
        problem('endpoint', 'must not contain credentials: the API key goes in apiKey');
      else if (url.search || url.hash)
        problem('endpoint', `must be the base URL, without a query or fragment (got ${show(o.endpoint)})`);
      else batchUrl = new URL(`${url.pathname.replace(/\/+$/, '')}/v1/audit/batch`, url);
    }
  }

  // The key itself is never echoed into an error message.
  if (o.apiKey === undefined) problem('apiKey', 'is required: the API key of the watchlog project');
  else if (typeof o.apiKey !== 'string' || o.apiKey.length === 0)
    problem(
      'apiKey',
      `must be a non-empty string (got ${typeof o.apiKey === 'string' ? 'an empty string' : show(o.apiKey)})`,
    );
  else if (!/^[\x21-\x7e]{1,1024}$/.test(o.apiKey))
    problem('apiKey', 'must be printable ASCII without spaces (it is sent as a header), at most 1024 characters');

  if (typeof o.serviceName !== 'string' || o.serviceName.trim().length === 0)
    problem('serviceName', `must be a non-empty string (got ${show(o.serviceName)})`);
  else if (o.serviceName.length > LIMITS.serviceName)
    problem('serviceName', `must be at most ${LIMITS.serviceName} characters (got ${o.serviceName.length})`);

  if (typeof o.environment !== 'string' || !(ENVIRONMENTS as readonly string[]).includes(o.environment)) {
    problem('environment', `must be one of ${ENVIRONMENTS.join(', ')} (got ${show(o.environment)})`);
  }

  let captureRequestBody = false;
  let captureResponseBody = false;
  const cb = o.captureBodies;
  if (typeof cb === 'boolean') {
    captureRequestBody = cb;
    captureResponseBody = cb;
  } else if (typeof cb === 'object' && cb !== null && !Array.isArray(cb)) {
    const c = cb as Record<string, unknown>;
    for (const key of Object.keys(c))
      if (key !== 'request' && key !== 'response')
        problem(`captureBodies.${key}`, 'unknown option (request and response are)');
    for (const key of ['request', 'response'] as const) {
      if (c[key] !== undefined && typeof c[key] !== 'boolean')
        problem(`captureBodies.${key}`, `must be a boolean (got ${show(c[key])})`);
    }
    captureRequestBody = c.request === true;
    captureResponseBody = c.response === true;
  } else if (cb !== undefined) {
    problem('captureBodies', `must be a boolean or { request?: boolean, response?: boolean } (got ${show(cb)})`);
  }

  const numbers = {} as Record<NumberOption, number>;
  for (const [name, rule] of Object.entries(NUMBERS) as Array<[NumberOption, (typeof NUMBERS)[NumberOption]]>) {
    const v = o[name];
    if (v === undefined) numbers[name] = rule.default;
    else if (typeof v !== 'number' || !Number.isInteger(v) || v < rule.min || v > rule.max) {
      problem(name, `must be an integer from ${rule.min} to ${rule.max} (got ${show(v)})`);
      numbers[name] = rule.default;
    } else numbers[name] = v;
  }
  if (o.retryMaxDelayMs !== undefined && numbers.retryMaxDelayMs < numbers.retryInitialDelayMs) {
    problem('retryMaxDelayMs', `must be at least retryInitialDelayMs (${numbers.retryInitialDelayMs})`);
  }

  const policy = o.unsupportedMethods ?? 'skip';
  if (policy !== 'skip' && typeof policy !== 'function')
    problem(
      'unsupportedMethods',
      `must be 'skip' or a function mapping a method to GET, POST, PUT or DELETE (got ${show(policy)})`,
    );

  const anonymous = o.anonymousIdentifier ?? 'anonymous';
  if (typeof anonymous !== 'string' || anonymous.length === 0 || anonymous.length > LIMITS.identifier) {
    problem('anonymousIdentifier', `must be a string of 1 to ${LIMITS.identifier} characters (got ${show(anonymous)})`);
  }

  for (const name of ['setRequestIdHeader', 'enabled'] as const) {
    if (o[name] !== undefined && typeof o[name] !== 'boolean')
      problem(name, `must be a boolean (got ${show(o[name])})`);
  }
  if (o.logger !== undefined && o.logger !== null && !isLogger(o.logger))
    problem('logger', 'must have warn() and error() methods (console, pino and winston do), or be null');
  if (o.onError !== undefined && typeof o.onError !== 'function')
    problem('onError', `must be a function (got ${show(o.onError)})`);

  if (problems.length > 0 || !batchUrl) throw new WatchlogConfigError(problems);
  return {
    batchUrl,
    apiKey: o.apiKey as string,
    serviceName: o.serviceName as string,
    environment: o.environment as Environment,
    captureRequestBody,
    captureResponseBody,
    unsupportedMethods: policy as UnsupportedMethodPolicy,
    anonymousIdentifier: anonymous as string,
    setRequestIdHeader: o.setRequestIdHeader !== false,
    logger: o.logger === undefined ? console : (o.logger as Logger | null),
    onError: (o.onError as ResolvedOptions['onError']) ?? null,
    enabled: o.enabled !== false,
    ...numbers,
  };
};
