import type { CachedAnswer } from './public/reply.ts';
import type { Logger } from 'pino';
import type { MonitorCreationDeps } from '../commands/monitors.ts';
import type { UserCommandDeps } from '../commands/users.ts';
import type { EgressPolicy } from '../checks/egress.ts';
import type { AnomalySettings } from '../domain/anomaly-settings.ts';
import type { ReadModelKey, ReadModels } from '../views/read-models.ts';
import type { LoginThrottle } from '../views/login-throttle/port.ts';
import type { ApiKeyCache } from './middleware/api-key-cache.ts';
import type { UserStateCache } from './middleware/user-cache.ts';
import type { SessionStateCache } from './middleware/session-cache.ts';
import type { SessionSettings } from '../domain/session.ts';
import type { Provider } from '../domain/sso.ts';
import type { SsoClients } from './sso/clients.ts';
import type { RecordLogin } from './login-record.ts';
import type { MaskingCache } from './middleware/masking-cache.ts';
import type { OtlpSettingsCache } from './middleware/otlp-settings-cache.ts';
import type { Readiness, TestAnswer } from './operations/answers.ts';
import type { OpenApiDocument } from './openapi/document.ts';
import type { Admission } from './admission.ts';
import type { HttpMetrics, MetricsSource } from './metrics.ts';
import type { BodyReading } from './middleware/body.ts';
import type { Dashboard } from './dashboard.ts';
import type { IngestLimits } from '../domain/ingest-limits.ts';
import type { CheckpointSigner } from '../domain/checkpoint.ts';
import type { IngestRateLimiter } from './middleware/ingest-rate.ts';
import type { ChannelTarget } from '../domain/channel.ts';
import type { SinkView } from '../views/sinks/port.ts';
import type { SinkAnswer } from './operations/sinks.ts';
import type { Notification } from '../domain/notification.ts';
import type { PublicAnswers } from './public/cache.ts';
import type { SubscribeRateLimiter } from './middleware/subscribe-rate.ts';
import type { FactorCommandDeps } from '../commands/factors.ts';
import type { RelyingParty } from '../commands/passkeys.ts';

/** Sends one notification to one channel now, once, through the egress policy (the reactor's
 *  senders, given by src/compose/). */
export type ChannelTester = (target: ChannelTarget, notification: Notification) => Promise<TestAnswer>;

/** A log sink's forwarding state, read when asked (the sink reactor's store and the log, given
 *  by src/compose/). */
export type SinkStatusSource = (view: SinkView) => Promise<Omit<SinkAnswer, keyof Omit<SinkView, 'degraded'>>>;

/** What the HTTP app is given. `draining` is aborted when the server starts its shutdown drain. */
export interface AppDeps extends BodyReading {
  readonly readModels: ReadModels;
  readonly commands: MonitorCreationDeps & UserCommandDeps;
  /** Failed logins per account and per client address, shared by every API process. */
  readonly loginThrottle: LoginThrottle;
  /** Where every login attempt is reported; by default, the service's log. */
  readonly recordLogin?: RecordLogin;
  /** Read-your-writes: resolves true once the read models named have applied the log up to
   *  `position`, false when they have not within a few seconds. */
  readonly caughtUp: (readModels: readonly ReadModelKey[], position: string) => Promise<boolean>;
  readonly logger: Logger;
  readonly jwtSecret: string;
  /** WATCHLOG_JWT_SECRET_PREVIOUS: keys derived from them still read TOTP secrets and subscribers'
   *  links; no token signed with them is accepted. */
  readonly previousJwtSecrets?: readonly string[];
  readonly jwtTtlSeconds: number;
  /** The dashboard's sessions (default: DEFAULT_SESSION_SETTINGS). */
  readonly sessions?: SessionSettings;
  /** The single sign-on provider of WATCHLOG_OIDC_* (besides those of the settings API). */
  readonly ssoProvider?: Provider | null;
  /** WATCHLOG_PUBLIC_URL: the address users reach the deployment at (heartbeat URLs); absent or
   *  null: the request's own origin. */
  readonly publicUrl?: string | null;
  /** The VAPID public key browsers subscribe with. */
  readonly vapidPublicKey: string;
  /** The deployment's anomaly settings, under each project's own. */
  readonly anomalyDefaults: AnomalySettings;
  /** Batches, idempotency keys and the per-key rate of ingest. */
  readonly ingest: IngestLimits;
  /** The public half of the checkpoints' key, for auditors. */
  readonly checkpointKey: Pick<CheckpointSigner, 'keyName' | 'keyId' | 'verifierKey' | 'publicKey' | 'publicKeyPem'>;
  /** Monitor checks on demand connect through it; saved URLs with a denied literal address are refused. */
  readonly egress: EgressPolicy;
  /** `POST /v1/channels/:id/test`. */
  readonly testChannel: ChannelTester;
  readonly sinkStatus: SinkStatusSource;
  readonly now: () => Date;
  /** Whether a request would succeed now, and why not. */
  readonly readiness: () => Promise<Readiness>;
  /** Where ingest and read requests are counted and timed (default: nowhere). */
  readonly metrics?: HttpMetrics;
  /** `GET /metrics` on this app, behind this bearer token; absent, the path is 404. */
  readonly metricsEndpoint?: { readonly source: MetricsSource; readonly token: string };
  /** The built dashboard served at `/`; null: not built (`/` says how to build it). */
  readonly dashboard?: Dashboard | null;
  /** The `/embed` page's files (loadEmbedAssets); absent, the page says the viewer is not built. */
  readonly embedAssets?: ReadonlyMap<string, CachedAnswer>;
  /** Check every JSON answer against its declared codec before it leaves (tests, development). */
  readonly checkAnswers?: boolean;
  /** Status pages take e-mail subscriptions: the deployment mails them (WATCHLOG_SMTP_HOST). */
  readonly subscriptions?: boolean;
  /** Who passkeys are registered for (WATCHLOG_WEBAUTHN_*); absent: `localhost`, for development. */
  readonly relyingParty?: RelyingParty;
}

/** What the handlers get: the app's dependencies plus what the app builds once for all of them. */
export interface RouteDeps extends Omit<AppDeps, 'caughtUp' | 'sessions' | 'ssoProvider'> {
  readonly sessions: SessionSettings;
  readonly ssoProvider: Provider | null;
  /** openid-client's configuration of each single sign-on provider. */
  readonly ssoClients: SsoClients;
  /** The key of the single sign-on state cookie, derived from the JWT secret. */
  readonly ssoStateKey: Buffer;
  /** Whether a token's session still stands, for the token check of every request. */
  readonly sessionStates: SessionStateCache;
  readonly apiKeys: ApiKeyCache;
  readonly ingestRate: IngestRateLimiter;
  /** Batches in work at once (WATCHLOG_BATCH_CONCURRENCY); the others wait their turn. */
  readonly batches: Admission;
  /** Users' current state, for the token check of every request. */
  readonly users: UserStateCache;
  readonly recordLogin: RecordLogin;
  /** Each project's own masking rules, compiled, for ingest. */
  readonly maskingRules: MaskingCache;
  /** Each project's OTLP settings, for OTLP ingest. */
  readonly otlpSettings: OtlpSettingsCache;
  /** Read-your-writes: waits until the read models named show a command's events (`position`),
   *  or, when it appended none (null), everything in the log so far; 503 when they do not in time. */
  readonly caughtUp: (readModels: readonly ReadModelKey[], position: string | null) => Promise<void>;
  /** This API's OpenAPI document (built at its first request). */
  readonly openApi: () => OpenApiDocument;
  /** The public status pages' answers, built once per change of what they show. */
  readonly publicAnswers: PublicAnswers;
  /** The keys of subscriber links' tokens, derived from the JWT secret (the first, which makes
   *  them) and from those it replaced. */
  readonly subscriptionKeys: readonly Buffer[];
  /** The key viewer tokens are signed with, derived from the JWT secret. */
  readonly viewerKey: Buffer;
  /** The key of second-factor sign-in tokens (factor-tokens.ts), derived from the JWT secret. */
  readonly factorKey: Buffer;
  /** The factor commands' log, with the key TOTP secrets are sealed with. */
  readonly factorCommands: FactorCommandDeps;
  readonly relyingParty: RelyingParty;
  /** The `/embed` page's files, the viewer's bundle among them when it is built. */
  readonly embedAssets: ReadonlyMap<string, CachedAnswer>;
  /** Subscription requests per client address and per page, in this process. */
  readonly subscribeRate: SubscribeRateLimiter;
}
