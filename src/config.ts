import { MONITORS_PER_PROJECT } from './domain/monitor.ts';
import { DEFAULT_SINK_TUNING, type SinkTuning } from './domain/sink.ts';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import path from 'node:path';
import { BUILT_DASHBOARD_DIR, BUILT_VIEWER_BUNDLE } from './config-paths.ts';
import {
  AnomalySettingsPatch,
  DEFAULT_ANOMALY_SETTINGS,
  applyPatch,
  effectiveSettings,
  settingsProblems,
  type AnomalySettings,
} from './domain/anomaly-settings.ts';
import { describeErrors } from './domain/decode-errors.ts';
import { DEFAULT_LOGIN_LIMITS, type LoginLimits } from './domain/login-throttle.ts';
import { formatCidr, parseAddressList, type AddressList, type EgressRules } from './domain/egress-rules.ts';
import type { IngestLimits } from './domain/ingest-limits.ts';
import { ConfigError, intFromEnv, matching, optional, stringMin } from './config-codecs.ts';
import { SMTP_ENV, subscriberMailOf, type SubscriberMailConfig } from './config-smtp.ts';
import { WEBAUTHN_ENV, relyingPartyOf, type RelyingPartyConfig } from './config-webauthn.ts';
import { SESSION_ENV, sessionSettingsOf } from './config-sessions.ts';
import { SSO_ENV, ssoProviderOf } from './config-sso.ts';
import type { Provider } from './domain/sso.ts';
import type { SessionSettings } from './domain/session.ts';

/** Environment → typed configuration. Every variable, its default and its rule are here; the
 *  README's configuration table mirrors this file. */

/** A comma-separated list of IPs and CIDRs (and host names when `hosts`); a failure names the
 *  faulty entries. */
const addressList = (name: string, hosts: boolean) =>
  new t.Type<AddressList, string, unknown>(
    name,
    (u): u is AddressList => typeof u === 'object' && u !== null && 'cidrs' in u && 'hosts' in u,
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c);
      const { list, bad } = parseAddressList(u, { hosts });
      return bad.length === 0 ? t.success(list) : t.failure(bad.join(', '), c);
    },
    (list) => [...list.cidrs.map(formatCidr), ...list.hosts].join(','),
  );

/** Never a connection's destination unless WATCHLOG_EGRESS_ALLOW says so: link-local (where
 *  cloud metadata services answer, 169.254.169.254), the other metadata addresses (AWS IPv6,
 *  Alibaba), "this network" and unspecified (which reach the local host), broadcast and
 *  multicast. Loopback and private ranges stay allowed: the embedded deployment watches local
 *  services; docker-compose.yml denies them too. */
export const DEFAULT_EGRESS_DENY = [
  '169.254.0.0/16',
  'fe80::/10',
  'fd00:ec2::254',
  '100.100.100.200',
  '0.0.0.0/8',
  '::/128',
  '255.255.255.255/32',
  '224.0.0.0/4',
  'ff00::/8',
].join(',');

const LogLevel = t.keyof(
  { fatal: null, error: null, warn: null, info: null, debug: null, trace: null, silent: null },
  'fatal | error | warn | info | debug | trace | silent',
);

const Env = t.type({
  PORT: optional(intFromEnv('integer 0-65535', 0, 65535)),
  HOST: optional(stringMin('host name or address', 1)),
  WATCHLOG_DATA_DIR: optional(stringMin('directory path', 1)),
  WATCHLOG_JWT_SECRET: optional(stringMin('string of at least 32 characters', 32)),
  WATCHLOG_JWT_SECRET_PREVIOUS: optional(
    matching('comma-separated secrets of at least 32 characters each', /^[^,]{32,}(,[^,]{32,})*$/),
  ),
  WATCHLOG_JWT_TTL_SECONDS: optional(intFromEnv('integer 60-2592000', 60, 2_592_000)),
  WATCHLOG_ADMIN_EMAIL: optional(stringMin('e-mail address', 3)),
  WATCHLOG_ADMIN_PASSWORD: optional(stringMin('password of at least 8 characters', 8)),
  WATCHLOG_BODY_LIMIT_BYTES: optional(intFromEnv('integer 1024-104857600', 1024, 104_857_600)),
  WATCHLOG_BATCH_MAX_EVENTS: optional(intFromEnv('integer 1-100000', 1, 100_000)),
  WATCHLOG_BATCH_BODY_LIMIT_BYTES: optional(intFromEnv('integer 1024-1073741824', 1024, 1_073_741_824)),
  WATCHLOG_BATCH_CONCURRENCY: optional(intFromEnv('integer 1-1000', 1, 1000)),
  WATCHLOG_IDEMPOTENCY_WINDOW_SECONDS: optional(intFromEnv('integer 60-2592000', 60, 2_592_000)),
  WATCHLOG_INGEST_RATE_LIMIT: optional(intFromEnv('integer 0-10000000', 0, 10_000_000)),
  WATCHLOG_LOG_LEVEL: optional(LogLevel),
  WATCHLOG_SHUTDOWN_TIMEOUT_MS: optional(intFromEnv('integer 0-600000', 0, 600_000)),
  WATCHLOG_HEADERS_TIMEOUT_MS: optional(intFromEnv('integer 100-600000', 100, 600_000)),
  WATCHLOG_REQUEST_TIMEOUT_MS: optional(intFromEnv('integer 100-3600000', 100, 3_600_000)),
  WATCHLOG_BODY_TIMEOUT_MS: optional(intFromEnv('integer 100-600000', 100, 600_000)),
  WATCHLOG_KEEP_ALIVE_TIMEOUT_MS: optional(intFromEnv('integer 100-600000', 100, 600_000)),
  WATCHLOG_MAX_CONNECTIONS: optional(intFromEnv('integer 1-1000000', 1, 1_000_000)),
  WATCHLOG_PROJECTION_LEASE_MS: optional(intFromEnv('integer 1000-600000', 1000, 600_000)),
  WATCHLOG_READY_MAX_LAG_MS: optional(intFromEnv('integer 100-3600000', 100, 3_600_000)),
  WATCHLOG_EVENTSTORE_URL: optional(
    matching('kurrentdb://, esdb:// or their +discover forms', /^(kurrentdb|kdb|esdb)(\+discover)?:\/\//),
  ),
  WATCHLOG_MONGO_URL: optional(matching('mongodb:// or mongodb+srv:// URL', /^mongodb(\+srv)?:\/\//)),
  WATCHLOG_EVENTSTORE_NAMESPACE: optional(matching('letters, digits, _ or -, up to 64', /^[A-Za-z0-9_-]{1,64}$/)),
  WATCHLOG_VAPID_PUBLIC_KEY: optional(matching('URL-safe base64 VAPID public key', /^[A-Za-z0-9_-]{80,100}$/)),
  WATCHLOG_VAPID_PRIVATE_KEY: optional(matching('URL-safe base64 VAPID private key', /^[A-Za-z0-9_-]{40,50}$/)),
  WATCHLOG_VAPID_SUBJECT: optional(matching('mailto: or https: URL', /^(mailto:|https:\/\/)\S+$/)),
  WATCHLOG_PUBLIC_URL: optional(matching('http:// or https:// URL', /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/)),
  WATCHLOG_NOTIFY_DEGRADED_AFTER: optional(intFromEnv('integer 1-100', 1, 100)),
  WATCHLOG_SINK_BATCH_SIZE: optional(intFromEnv('integer 1-10000', 1, 10_000)),
  WATCHLOG_SINK_BACKOFF_MIN_MS: optional(intFromEnv('integer 10-600000', 10, 600_000)),
  WATCHLOG_SINK_BACKOFF_MAX_MS: optional(intFromEnv('integer 10-3600000', 10, 3_600_000)),
  WATCHLOG_SINK_DEGRADED_AFTER: optional(intFromEnv('integer 1-1000', 1, 1000)),
  WATCHLOG_MONITORS_PER_PROJECT: optional(intFromEnv('integer 1-100000', 1, 100_000)),
  WATCHLOG_ANOMALY_SCAN_SECONDS: optional(intFromEnv('integer 5-3600', 5, 3600)),
  WATCHLOG_RETENTION_INTERVAL_SECONDS: optional(intFromEnv('integer 10-86400', 10, 86_400)),
  WATCHLOG_LOG_COMPACTION_SECONDS: optional(intFromEnv('integer 0-86400', 0, 86_400)),
  WATCHLOG_ANOMALY_DEFAULTS: optional(stringMin('JSON object', 2)),
  WATCHLOG_LOGIN_ACCOUNT_FAILURES: optional(intFromEnv('integer 1-100', 1, 100)),
  WATCHLOG_LOGIN_ACCOUNT_LOCK_SECONDS: optional(intFromEnv('integer 1-3600', 1, 3600)),
  WATCHLOG_LOGIN_ACCOUNT_MAX_LOCK_SECONDS: optional(intFromEnv('integer 1-86400', 1, 86_400)),
  WATCHLOG_LOGIN_ADDRESS_FAILURES: optional(intFromEnv('integer 1-100000', 1, 100_000)),
  WATCHLOG_LOGIN_ADDRESS_WINDOW_SECONDS: optional(intFromEnv('integer 1-86400', 1, 86_400)),
  WATCHLOG_EGRESS_DENY: optional(
    addressList('comma-separated IP addresses or CIDRs (e.g. 10.0.0.0/8,fc00::/7)', false),
  ),
  WATCHLOG_EGRESS_ALLOW: optional(addressList('comma-separated IP addresses, CIDRs or host names', true)),
  WATCHLOG_CHECK_ANSWERS: optional(t.keyof({ on: null, off: null }, 'on or off')),
  WATCHLOG_METRICS_TOKEN: optional(matching('16 to 512 printable characters without spaces', /^[\x21-\x7e]{16,512}$/)),
  WATCHLOG_METRICS_PORT: optional(intFromEnv('integer 0-65535', 0, 65535)),
  WATCHLOG_METRICS_HOST: optional(stringMin('host name or address', 1)),
  WATCHLOG_DASHBOARD_DIR: optional(stringMin('directory path', 1)),
  WATCHLOG_CONFIG_FILE: optional(stringMin('file path', 1)),
  WATCHLOG_LOG_ORIGIN: optional(matching('a name without spaces or +, e.g. audit.example.com', /^[^\s+]{1,200}$/u)),
  WATCHLOG_CHECKPOINT_KEY: optional(matching('base64 of a 32-byte Ed25519 seed', /^[A-Za-z0-9+/]{43}=$/)),
  WATCHLOG_CHECKPOINT_INTERVAL_MS: optional(intFromEnv('integer 0 or 200-3600000', 0, 3_600_000)),
  WATCHLOG_WITNESS_URL: optional(matching('http:// or https:// URL', /^https?:\/\/\S+$/)),
  WATCHLOG_WITNESS_FILE: optional(stringMin('file path', 1)),
  ...SMTP_ENV,
  ...WEBAUTHN_ENV,
  ...SESSION_ENV,
  ...SSO_ENV,
});

export { ConfigError } from './config-codecs.ts';
export type { SubscriberMailConfig } from './config-smtp.ts';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** The built dashboard served at `/` (web/dist unless set). */
  dashboardDir: string;
  /** The built audit-log viewer `/embed` serves (packages/viewer/dist). */
  viewerBundle: string;
  jwtSecret: string | undefined;
  /** Secrets WATCHLOG_JWT_SECRET replaced: what was sealed or signed for the long run under them
   *  (TOTP secrets, status page subscribers' links) is still read; tokens signed with them are not. */
  previousJwtSecrets: string[];
  jwtTtlSeconds: number;
  /** The dashboard's sessions: access-token, idle and absolute lifetimes. */
  sessions: SessionSettings;
  /** The single sign-on provider of WATCHLOG_OIDC_*, or null. */
  sso: Provider | null;
  admin: { email: string; password: string } | undefined;
  bodyLimitBytes: number;
  /** The ingest edge: batches, idempotency keys and the per-key rate limit. */
  ingest: IngestLimits;
  logLevel: t.TypeOf<typeof LogLevel>;
  shutdownTimeoutMs: number;
  /** The HTTP server's limits (docs/operations.md#shutdown-and-limits). */
  http: HttpLimits;
  projectionLeaseMs: number;
  /** How far behind the log (in time) a read model may be while the API says it is ready. */
  readyMaxLagMs: number;
  /** Check every JSON answer against the codec its operation declares before it leaves. */
  checkAnswers: boolean;
  /** KurrentDB connection string; unset: the embedded log in the data dir. */
  eventStoreUrl: string | undefined;
  /** MongoDB URL; unset: the embedded read models in the data dir. */
  mongoUrl: string | undefined;
  /** Prefix of this deployment's streams in a shared KurrentDB. */
  eventStoreNamespace: string;
  /** Web Push VAPID keys; unset: generated once into the data dir. */
  vapid: { publicKey: string; privateKey: string } | undefined;
  vapidSubject: string;
  /** Notification channels: the dashboard's address their messages link to (null: no link), and
   *  how many failed deliveries in a row mark a channel degraded. */
  notifications: { publicUrl: string | null; degradedAfter: number; sinks: SinkTuning };
  /** How many monitors a project may have (SPEC 8: 10). */
  monitorsPerProject: number;
  /** How often the anomaly scan runs. */
  anomalyScanMs: number;
  /** How often the retention job runs. */
  retentionEveryMs: number;
  /** How often the embedded log's older records are compressed; null: never. */
  logCompactionEveryMs: number | null;
  /** Every project's anomaly settings until it changes them. */
  anomalyDefaults: AnomalySettings;
  /** When failed logins are answered 429 (src/domain/login-throttle.ts). */
  loginLimits: LoginLimits;
  /** Where monitor checks, webhooks and Web Push may connect (src/checks/egress.ts). */
  egress: EgressRules;
  /** `GET /metrics` (Prometheus): with `token`, on the API's port behind that bearer token (and
   *  the token is also required on the metrics port); with `port`, on a listener of its own at
   *  `host`, the only place a worker serves it. Neither: not served. */
  metrics: { token: string | undefined; port: number | undefined; host: string };
  /** Signed checkpoints of each project's tree (docs/auditors.md). */
  checkpoints: CheckpointConfig;
  /** The SMTP server that mails status pages' subscribers; null: no subscribing. */
  subscriberMail: SubscriberMailConfig | null;
  /** Passkeys' relying party (WATCHLOG_WEBAUTHN_*). */
  relyingParty: RelyingPartyConfig;
  /** The configuration file `start` and `api` apply (docs/config-file.md); null: none. */
  configFile: string | null;
}

export interface CheckpointConfig {
  /** The deployment's origin: the key name of its notes and the start of each project's origin. */
  logOrigin: string;
  /** The Ed25519 seed; unset: generated once into the data dir. */
  seed: Buffer | undefined;
  /** How often grown trees are signed; 0: never. */
  intervalMs: number;
  witnessUrl: string | undefined;
  witnessFile: string | undefined;
}

/** Every variable watchlog reads, in the order of the README's table. */
export const CONFIG_VARIABLES = Object.keys(Env.props) as ReadonlyArray<keyof typeof Env.props>;

/** How long a client may take, and how many may connect at once. */
export interface HttpLimits {
  /** Until a request's headers are complete (from its first byte, or from the connection). */
  headersTimeoutMs: number;
  /** Until the whole request, headers and body, is received. */
  requestTimeoutMs: number;
  /** Longest pause in a request body while it is read: past it, `408`. */
  bodyTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** Connections open at once; more are refused. */
  maxConnections: number;
}

const describe = (u: unknown) =>
  typeof u === 'string' ? JSON.stringify(u.length > 40 ? `${u.slice(0, 40)}…` : u) : String(u);

/** WATCHLOG_ANOMALY_DEFAULTS: the shape of a settings update, over the built-in defaults. */
const anomalyDefaultsOf = (json: string | undefined): AnomalySettings => {
  if (json === undefined) return DEFAULT_ANOMALY_SETTINGS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new ConfigError(['WATCHLOG_ANOMALY_DEFAULTS: expected a JSON object, got text that is not JSON']);
  }
  const patch = AnomalySettingsPatch.decode(parsed);
  if (isLeft(patch))
    throw new ConfigError(describeErrors(patch.left).map((d) => `WATCHLOG_ANOMALY_DEFAULTS: ${d.path}: ${d.message}`));
  if (Object.values(patch.right).some((rule) => Object.values(rule ?? {}).includes(null))) {
    throw new ConfigError([
      'WATCHLOG_ANOMALY_DEFAULTS: null is not a value here (leave the field out for the built-in default)',
    ]);
  }
  const settings = effectiveSettings(DEFAULT_ANOMALY_SETTINGS, applyPatch({}, patch.right));
  const problems = settingsProblems(settings);
  if (problems.length > 0)
    throw new ConfigError(problems.map((d) => `WATCHLOG_ANOMALY_DEFAULTS: ${d.path}: ${d.message}`));
  return settings;
};

export const loadConfig = (env: NodeJS.ProcessEnv): Config => {
  const raw = Object.fromEntries(Object.keys(Env.props).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const decoded = Env.decode(raw);
  if (isLeft(decoded)) {
    const problems = new Map<string, string>();
    for (const e of decoded.left) {
      const key = e.context[1]?.key ?? '?';
      const expected = e.context[1]?.type.name ?? 'valid value';
      const name = [
        'WATCHLOG_JWT_SECRET',
        'WATCHLOG_JWT_SECRET_PREVIOUS',
        'WATCHLOG_ADMIN_PASSWORD',
        'WATCHLOG_EVENTSTORE_URL',
        'WATCHLOG_MONGO_URL',
        'WATCHLOG_VAPID_PRIVATE_KEY',
        'WATCHLOG_METRICS_TOKEN',
        'WATCHLOG_CHECKPOINT_KEY',
        'WATCHLOG_SMTP_PASSWORD',
      ].includes(key)
        ? '(hidden)'
        : describe(e.value);
      // The last error of a variable is its codec's (the first is `optional`'s undefined), which
      // for the address lists names only the faulty entries.
      problems.set(key, `${key}: expected ${expected}, got ${name}`);
    }
    throw new ConfigError([...problems.values()]);
  }
  const e = decoded.right;
  if ((e.WATCHLOG_ADMIN_EMAIL === undefined) !== (e.WATCHLOG_ADMIN_PASSWORD === undefined)) {
    throw new ConfigError(['WATCHLOG_ADMIN_EMAIL and WATCHLOG_ADMIN_PASSWORD must be set together']);
  }
  if ((e.WATCHLOG_VAPID_PUBLIC_KEY === undefined) !== (e.WATCHLOG_VAPID_PRIVATE_KEY === undefined)) {
    throw new ConfigError(['WATCHLOG_VAPID_PUBLIC_KEY and WATCHLOG_VAPID_PRIVATE_KEY must be set together']);
  }
  if (e.WATCHLOG_METRICS_HOST !== undefined && e.WATCHLOG_METRICS_PORT === undefined) {
    throw new ConfigError(['WATCHLOG_METRICS_HOST is the address of the metrics port: set WATCHLOG_METRICS_PORT too']);
  }
  const checkpointInterval = e.WATCHLOG_CHECKPOINT_INTERVAL_MS;
  if (checkpointInterval !== undefined && checkpointInterval > 0 && checkpointInterval < 200) {
    throw new ConfigError([
      `WATCHLOG_CHECKPOINT_INTERVAL_MS: expected 0 (no checkpoints) or 200 to 3600000, got ${checkpointInterval}`,
    ]);
  }
  const subscriberMail = subscriberMailOf(e, e.WATCHLOG_PUBLIC_URL !== undefined);
  const port = e.PORT ?? 3000;
  const host = e.HOST ?? '127.0.0.1';
  const metricsHost = e.WATCHLOG_METRICS_HOST ?? '127.0.0.1';
  // On one address the two listeners would collide (other overlaps are reported when listening).
  if (
    e.WATCHLOG_METRICS_PORT !== undefined &&
    e.WATCHLOG_METRICS_PORT !== 0 &&
    e.WATCHLOG_METRICS_PORT === port &&
    metricsHost === host
  ) {
    throw new ConfigError([
      `WATCHLOG_METRICS_PORT (${port}) must differ from PORT on ${host}: the metrics port is a ` +
        `listener of its own (WATCHLOG_METRICS_TOKEN alone serves metrics on the API's port)`,
    ]);
  }
  const loginLimits: LoginLimits = {
    accountFailures: e.WATCHLOG_LOGIN_ACCOUNT_FAILURES ?? DEFAULT_LOGIN_LIMITS.accountFailures,
    accountLockSeconds: e.WATCHLOG_LOGIN_ACCOUNT_LOCK_SECONDS ?? DEFAULT_LOGIN_LIMITS.accountLockSeconds,
    accountMaxLockSeconds: e.WATCHLOG_LOGIN_ACCOUNT_MAX_LOCK_SECONDS ?? DEFAULT_LOGIN_LIMITS.accountMaxLockSeconds,
    addressFailures: e.WATCHLOG_LOGIN_ADDRESS_FAILURES ?? DEFAULT_LOGIN_LIMITS.addressFailures,
    addressWindowSeconds: e.WATCHLOG_LOGIN_ADDRESS_WINDOW_SECONDS ?? DEFAULT_LOGIN_LIMITS.addressWindowSeconds,
  };
  if (loginLimits.accountMaxLockSeconds < loginLimits.accountLockSeconds) {
    throw new ConfigError([
      `WATCHLOG_LOGIN_ACCOUNT_MAX_LOCK_SECONDS (${loginLimits.accountMaxLockSeconds}) must be at least ` +
        `WATCHLOG_LOGIN_ACCOUNT_LOCK_SECONDS (${loginLimits.accountLockSeconds})`,
    ]);
  }
  const http: HttpLimits = {
    headersTimeoutMs: e.WATCHLOG_HEADERS_TIMEOUT_MS ?? 10_000,
    requestTimeoutMs: e.WATCHLOG_REQUEST_TIMEOUT_MS ?? 30_000,
    bodyTimeoutMs: e.WATCHLOG_BODY_TIMEOUT_MS ?? 10_000,
    keepAliveTimeoutMs: e.WATCHLOG_KEEP_ALIVE_TIMEOUT_MS ?? 5_000,
    maxConnections: e.WATCHLOG_MAX_CONNECTIONS ?? 1_000,
  };
  if (
    e.WATCHLOG_CONFIG_FILE !== undefined &&
    (e.WATCHLOG_ADMIN_EMAIL === undefined || e.WATCHLOG_ADMIN_PASSWORD === undefined)
  )
    throw new ConfigError([
      'WATCHLOG_CONFIG_FILE needs WATCHLOG_ADMIN_EMAIL and WATCHLOG_ADMIN_PASSWORD: the file is applied as that admin',
    ]);
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError([
      `WATCHLOG_HEADERS_TIMEOUT_MS (${http.headersTimeoutMs}) must not exceed ` +
        `WATCHLOG_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs})`,
    ]);
  }
  return {
    port,
    host,
    dataDir: path.resolve(e.WATCHLOG_DATA_DIR ?? './data'),
    dashboardDir: e.WATCHLOG_DASHBOARD_DIR !== undefined ? path.resolve(e.WATCHLOG_DASHBOARD_DIR) : BUILT_DASHBOARD_DIR,
    configFile: e.WATCHLOG_CONFIG_FILE !== undefined ? path.resolve(e.WATCHLOG_CONFIG_FILE) : null,
    viewerBundle: BUILT_VIEWER_BUNDLE,
    jwtSecret: e.WATCHLOG_JWT_SECRET,
    previousJwtSecrets: e.WATCHLOG_JWT_SECRET_PREVIOUS?.split(',') ?? [],
    jwtTtlSeconds: e.WATCHLOG_JWT_TTL_SECONDS ?? 43_200,
    sessions: sessionSettingsOf(e),
    sso: ssoProviderOf(e),
    admin:
      e.WATCHLOG_ADMIN_EMAIL !== undefined && e.WATCHLOG_ADMIN_PASSWORD !== undefined
        ? { email: e.WATCHLOG_ADMIN_EMAIL, password: e.WATCHLOG_ADMIN_PASSWORD }
        : undefined,
    bodyLimitBytes: e.WATCHLOG_BODY_LIMIT_BYTES ?? 1_048_576,
    ingest: {
      batchMaxEvents: e.WATCHLOG_BATCH_MAX_EVENTS ?? 1000,
      batchBodyLimitBytes: e.WATCHLOG_BATCH_BODY_LIMIT_BYTES ?? 5 * 1_048_576,
      batchConcurrency: e.WATCHLOG_BATCH_CONCURRENCY ?? 4,
      idempotencyWindowMs: (e.WATCHLOG_IDEMPOTENCY_WINDOW_SECONDS ?? 86_400) * 1000,
      ratePerKey: e.WATCHLOG_INGEST_RATE_LIMIT ?? 20_000,
    },
    logLevel: e.WATCHLOG_LOG_LEVEL ?? 'info',
    shutdownTimeoutMs: e.WATCHLOG_SHUTDOWN_TIMEOUT_MS ?? 10_000,
    http,
    projectionLeaseMs: e.WATCHLOG_PROJECTION_LEASE_MS ?? 10_000,
    readyMaxLagMs: e.WATCHLOG_READY_MAX_LAG_MS ?? 5000,
    // On where a mismatch should fail loudly: tests (ava sets NODE_ENV=test) and development.
    checkAnswers:
      e.WATCHLOG_CHECK_ANSWERS === undefined
        ? env.NODE_ENV === 'test' || env.NODE_ENV === 'development'
        : e.WATCHLOG_CHECK_ANSWERS === 'on',
    eventStoreUrl: e.WATCHLOG_EVENTSTORE_URL,
    mongoUrl: e.WATCHLOG_MONGO_URL,
    eventStoreNamespace: e.WATCHLOG_EVENTSTORE_NAMESPACE ?? '',
    vapid:
      e.WATCHLOG_VAPID_PUBLIC_KEY !== undefined && e.WATCHLOG_VAPID_PRIVATE_KEY !== undefined
        ? { publicKey: e.WATCHLOG_VAPID_PUBLIC_KEY, privateKey: e.WATCHLOG_VAPID_PRIVATE_KEY }
        : undefined,
    vapidSubject: e.WATCHLOG_VAPID_SUBJECT ?? 'mailto:watchlog@localhost',
    notifications: {
      publicUrl: e.WATCHLOG_PUBLIC_URL?.replace(/\/+$/, '') ?? null,
      degradedAfter: e.WATCHLOG_NOTIFY_DEGRADED_AFTER ?? 3,
      sinks: {
        ...DEFAULT_SINK_TUNING,
        batchSize: e.WATCHLOG_SINK_BATCH_SIZE ?? DEFAULT_SINK_TUNING.batchSize,
        backoffMinMs: e.WATCHLOG_SINK_BACKOFF_MIN_MS ?? DEFAULT_SINK_TUNING.backoffMinMs,
        backoffMaxMs: e.WATCHLOG_SINK_BACKOFF_MAX_MS ?? DEFAULT_SINK_TUNING.backoffMaxMs,
        degradedAfter: e.WATCHLOG_SINK_DEGRADED_AFTER ?? DEFAULT_SINK_TUNING.degradedAfter,
      },
    },
    monitorsPerProject: e.WATCHLOG_MONITORS_PER_PROJECT ?? MONITORS_PER_PROJECT,
    anomalyScanMs: (e.WATCHLOG_ANOMALY_SCAN_SECONDS ?? 30) * 1000,
    retentionEveryMs: (e.WATCHLOG_RETENTION_INTERVAL_SECONDS ?? 3600) * 1000,
    logCompactionEveryMs:
      e.WATCHLOG_LOG_COMPACTION_SECONDS === 0 ? null : (e.WATCHLOG_LOG_COMPACTION_SECONDS ?? 60) * 1000,
    anomalyDefaults: anomalyDefaultsOf(e.WATCHLOG_ANOMALY_DEFAULTS),
    loginLimits,
    egress: {
      deny: (e.WATCHLOG_EGRESS_DENY ?? parseAddressList(DEFAULT_EGRESS_DENY, { hosts: false }).list).cidrs,
      allow: e.WATCHLOG_EGRESS_ALLOW?.cidrs ?? [],
      allowHosts: e.WATCHLOG_EGRESS_ALLOW?.hosts ?? [],
    },
    metrics: { token: e.WATCHLOG_METRICS_TOKEN, port: e.WATCHLOG_METRICS_PORT, host: metricsHost },
    checkpoints: {
      logOrigin: e.WATCHLOG_LOG_ORIGIN ?? 'watchlog.local',
      seed: e.WATCHLOG_CHECKPOINT_KEY === undefined ? undefined : Buffer.from(e.WATCHLOG_CHECKPOINT_KEY, 'base64'),
      intervalMs: e.WATCHLOG_CHECKPOINT_INTERVAL_MS ?? 1000,
      witnessUrl: e.WATCHLOG_WITNESS_URL,
      witnessFile: e.WATCHLOG_WITNESS_FILE === undefined ? undefined : path.resolve(e.WATCHLOG_WITNESS_FILE),
    },
    subscriberMail,
    relyingParty: relyingPartyOf(e, e.WATCHLOG_PUBLIC_URL, port),
  };
};
