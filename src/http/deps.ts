import type { Logger } from 'pino';
import type { Middleware } from 'koa';
import type { MonitorCreationDeps } from '../commands/monitors.ts';
import type { AnomalySettings } from '../domain/anomaly-settings.ts';
import type { ReadModelKey, ReadModels } from '../views/read-models.ts';
import type { ApiKeyCache } from './middleware/api-key-cache.ts';
import type { MaskingCache } from './middleware/masking-cache.ts';
import type { AppState } from './state.ts';

/** What the HTTP app is given. */
export interface AppDeps {
  readonly readModels: ReadModels;
  readonly commands: MonitorCreationDeps;
  /** Resolves true once the read models named have applied the log up to `position`. */
  readonly settled: (readModels: readonly ReadModelKey[], position: string) => Promise<boolean>;
  readonly logger: Logger;
  readonly jwtSecret: string;
  readonly jwtTtlSeconds: number;
  readonly bodyLimitBytes: number;
  /** The VAPID public key browsers subscribe with. */
  readonly vapidPublicKey: string;
  /** The deployment's anomaly settings, under each project's own. */
  readonly anomalyDefaults: AnomalySettings;
  readonly now: () => Date;
}

/** What the routes get: the app's dependencies plus what the app builds once for all of them. */
export interface RouteDeps extends AppDeps {
  readonly apiKeys: ApiKeyCache;
  /** Each project's own masking rules, compiled, for ingest. */
  readonly maskingRules: MaskingCache;
  /** JWT verification and principal decoding, to put in front of every protected route. */
  readonly jwt: Middleware<AppState>[];
  /** Read-your-writes: waits until the read models named show a command's events (`position`),
   *  or, when it appended none (null), everything in the log so far. */
  readonly caughtUp: (readModels: readonly ReadModelKey[], position: string | null) => Promise<void>;
}
