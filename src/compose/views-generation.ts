import type { Logger } from 'pino';
import type { ReadModelKey, ReadModels } from '../views/read-models.ts';
import { currentViews } from '../views/store/sqlite-files.ts';

/** How often a process looks whether a rebuild has published a new generation of the embedded
 *  read models. */
export const VIEWS_POLL_MS = 1000;
/** How long the previous generation's handles stay open after a switch: what was reading them
 *  (an export streaming its pages) finishes on them. */
export const PREVIOUS_GENERATION_GRACE_MS = 60_000;

/** An object whose every property is read from `target()` at the time of use, methods bound to
 *  it: whoever holds it (a cache holding a read model's queries) follows a switch. */
const forwarding = <T extends object>(target: () => T): T =>
  new Proxy(Object.create(null) as T, {
    get(_, property) {
      const current = target();
      const value = Reflect.get(current, property, current) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
    has: (_, property) => Reflect.has(target(), property),
  });

export interface SwitchingReadModels {
  /** Follows every switch: its queries, stores and leases are the current generation's. */
  readonly readModels: ReadModels;
  /** Opens the generation `views.db` names now and moves to it; the previous one is closed
   *  after PREVIOUS_GENERATION_GRACE_MS (at once by `close`). */
  switch(): Promise<void>;
}

/** Read models that can move to a new generation without their holders noticing. */
export const switchingReadModels = async (
  open: () => Promise<ReadModels>,
  keys: readonly ReadModelKey[],
): Promise<SwitchingReadModels> => {
  let current = await open();
  const retiring = new Set<{ models: ReadModels; timer: NodeJS.Timeout }>();
  const queries = Object.fromEntries(keys.map((key) => [key, forwarding(() => current[key] as object)]));
  const stores = Object.fromEntries(keys.map((key) => [key, forwarding(() => current.stores[key])]));
  const readModels = {
    ...queries,
    stores,
    leases: forwarding(() => current.leases),
    async close() {
      for (const old of retiring) {
        clearTimeout(old.timer);
        await old.models.close();
      }
      retiring.clear();
      await current.close();
    },
  } as unknown as ReadModels;
  return {
    readModels,
    async switch() {
      const next = await open();
      const previous = current;
      current = next;
      const old = {
        models: previous,
        timer: setTimeout(() => {
          retiring.delete(old);
          void previous.close();
        }, PREVIOUS_GENERATION_GRACE_MS),
      };
      old.timer.unref();
      retiring.add(old);
    },
  };
};

/** Calls `onChange` (one call at a time) each time `views.db` in `dir` names another generation.
 *  A failed switch is logged and tried again at the next look. */
export const followViews = (
  dir: string,
  logger: Logger,
  onChange: (file: string) => Promise<void>,
  everyMs = VIEWS_POLL_MS,
): { stop(): void } => {
  let seen = currentViews(dir);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    const now = currentViews(dir);
    if (now === null || now === seen) return;
    busy = true;
    onChange(now)
      .then(
        () => {
          logger.info({ from: seen, to: now }, 'moved to the read models a rebuild published');
          seen = now;
        },
        (err: unknown) =>
          logger.error({ err, file: now }, 'could not move to the read models a rebuild published; trying again'),
      )
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
};
