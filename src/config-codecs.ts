import * as t from 'io-ts';

/** The codecs of environment variables (src/config.ts): a value is text; each codec's name says
 *  what it must be, which the configuration's errors repeat. */

export const intFromEnv = (name: string, min: number, max: number) =>
  new t.Type<number, string, unknown>(
    name,
    (u): u is number => Number.isInteger(u),
    (u, c) => {
      if (typeof u !== 'string' || !/^\d+$/.test(u.trim())) return t.failure(u, c);
      const n = Number(u);
      return n >= min && n <= max ? t.success(n) : t.failure(u, c);
    },
    String,
  );

export const stringMin = (name: string, min: number) =>
  new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string' && u.length >= min,
    (u, c) => (typeof u === 'string' && u.length >= min ? t.success(u) : t.failure(u, c)),
    t.identity,
  );

export const matching = (name: string, scheme: RegExp) =>
  new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string' && scheme.test(u),
    (u, c) => (typeof u === 'string' && scheme.test(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  );

/** Unset is allowed; named after the codec so errors say what a value must be. */
export const optional = <C extends t.Mixed>(codec: C) => t.union([t.undefined, codec], codec.name);

/** Every problem of a configuration, reported at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}
