import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { LogObserver } from '../log/event-log.ts';
import type { MonitorCreationDeps } from '../commands/monitors.ts';
import { Passwords, SCRYPT_PARAMS, type ScryptParams } from '../commands/passwords.ts';
import type { UserCommandDeps } from '../commands/users.ts';
import type { LoginThrottle } from '../views/login-throttle/port.ts';
import type { VapidKeys } from '../reactors/notifications/webpush.ts';
import { egressPolicy, type EgressPolicy } from '../checks/egress.ts';
import { caughtUp } from '../../projections/projector.ts';
import type { ReadModelKey } from '../views/read-models.ts';
import { loadOrCreateCheckpointSeed, loadOrCreateSecret, loadOrCreateVapidKeys } from './secrets.ts';
import { checkpointSigner, type CheckpointSigner } from '../domain/checkpoint.ts';
import { openLoginThrottle, openStores, type Stores } from './stores.ts';
import { sinkStatusOf } from '../reactors/sinks/status.ts';
import type { Telemetry } from '../metrics/registry.ts';

/** The stores of one deployment, with what the commands and the processes around them need. */
export interface Runtime extends Stores {
  readonly commands: MonitorCreationDeps & UserCommandDeps;
  /** Failed logins per account and address, in the read-model store. */
  readonly loginThrottle: LoginThrottle;
  readonly jwtSecret: string;
  /** Web Push keys: from the configuration, else generated once into the data dir. */
  readonly vapid: VapidKeys;
  /** Where outbound requests may connect: built once, from the configuration, for this thread. */
  readonly egress: EgressPolicy;
  /** The checkpoints' key: from the configuration, else generated once into the data dir. */
  readonly checkpointSeed: Buffer;
  readonly checkpointSigner: CheckpointSigner;
  /** Resolves true once the read models named have applied the log up to `position` (false after
   *  `timeoutMs`). Polls their checkpoints, so it works whichever process projects. */
  caughtUp(readModels: readonly ReadModelKey[], position: string, timeoutMs?: number): Promise<boolean>;
}

export interface RuntimeOptions {
  /** The embedded log commits on a thread of its own (servers), not the caller's. */
  readonly writerThread?: boolean;
  /** The cost of new password hashes: OWASP's unless a test asks for less. */
  readonly scrypt?: ScryptParams;
  /** Where the stores report faults they recover from (the log writer thread's restarts). */
  readonly logger?: Logger;
  /** Told the size and time of each of the log's commits, and what its reads skip (metrics). */
  readonly observer?: LogObserver;
}

export const openRuntime = async (
  config: Config,
  { writerThread = true, scrypt = SCRYPT_PARAMS, logger, observer }: RuntimeOptions = {},
): Promise<Runtime> => {
  const stores = await openStores(config, {
    writerThread,
    ...(logger ? { logger } : {}),
    ...(observer ? { observer } : {}),
  });
  const loginThrottle = await openLoginThrottle(config).catch(async (error: unknown) => {
    await stores.close();
    throw error;
  });
  const checkpointSeed = config.checkpoints.seed ?? loadOrCreateCheckpointSeed(config.dataDir);
  const readModelsCaughtUp = async (keys: readonly ReadModelKey[], position: string, timeoutMs = 10_000) =>
    (await Promise.all(keys.map((key) => caughtUp(stores.readModels.stores[key], position, timeoutMs)))).every(Boolean);
  return {
    ...stores,
    loginThrottle,
    async close() {
      await loginThrottle.close();
      await stores.close();
    },
    commands: {
      log: stores.log,
      passwords: new Passwords(scrypt),
      monitorsPerProject: config.monitorsPerProject,
      async monitorsInProject(projectId) {
        const head = await stores.log.headPosition();
        if (head !== null) await readModelsCaughtUp(['monitors'], head, 5000);
        return stores.readModels.monitors.countInProject(projectId);
      },
    },
    jwtSecret: config.jwtSecret ?? loadOrCreateSecret(config.dataDir, 'jwt-secret'),
    vapid: config.vapid ?? loadOrCreateVapidKeys(config.dataDir),
    checkpointSeed,
    checkpointSigner: checkpointSigner(config.checkpoints.logOrigin, checkpointSeed),
    egress: egressPolicy(config.egress),
    caughtUp: readModelsCaughtUp,
  };
};

/** Reads, on each scrape, the runtime's log (head, writer state) and, where projectors run
 *  (`start`, `worker`), every projection's checkpoint, (unless `notifications` is false) the
 *  notification reactor's and the status pages' reactor's, and every monitor's state. */
export const watchRuntime = (
  telemetry: Telemetry,
  stores: Pick<Stores, 'log' | 'runners' | 'reactorStates' | 'readModels'>,
  { projections, notifications = true }: { projections: boolean; notifications?: boolean },
): void => {
  const { notifications: notifier, pageEffects } = stores.reactorStates.stores;
  const followers = notifications ? [...stores.runners, notifier, pageEffects] : stores.runners;
  // Per-monitor series where the projectors run (start, worker), not on every API replica.
  const sinks = {
    list: async () =>
      Promise.all(
        (await stores.readModels.sinks.all()).map(async ({ view }) => ({
          ...view,
          ...(await sinkStatusOf({ log: stores.log, states: stores.reactorStates.sinks, now: () => new Date() }, view)),
        })),
      ),
  };
  telemetry.watch(
    stores.log,
    projections ? followers : [],
    projections ? stores.readModels.monitors : undefined,
    projections ? sinks : undefined,
  );
};
