import type * as t from 'io-ts';
import { ConfigError, intFromEnv, optional } from './config-codecs.ts';
import { DEFAULT_SESSION_SETTINGS, type SessionSettings } from './domain/session.ts';

/** Sign-in sessions (docs/security.md#sessions): the lifetime of the dashboard's access tokens
 *  and of its sessions, idle and absolute. Scripts' tokens keep WATCHLOG_JWT_TTL_SECONDS. */
export const SESSION_ENV = {
  WATCHLOG_ACCESS_TOKEN_TTL_SECONDS: optional(intFromEnv('integer 60-3600', 60, 3600)),
  WATCHLOG_SESSION_IDLE_SECONDS: optional(intFromEnv('integer 300-2592000', 300, 2_592_000)),
  WATCHLOG_SESSION_MAX_SECONDS: optional(intFromEnv('integer 300-31536000', 300, 31_536_000)),
};

type SessionEnv = { [K in keyof typeof SESSION_ENV]: t.TypeOf<(typeof SESSION_ENV)[K]> };

export const sessionSettingsOf = (e: SessionEnv): SessionSettings => {
  const settings = {
    accessTtlSeconds: e.WATCHLOG_ACCESS_TOKEN_TTL_SECONDS ?? DEFAULT_SESSION_SETTINGS.accessTtlSeconds,
    idleSeconds: e.WATCHLOG_SESSION_IDLE_SECONDS ?? DEFAULT_SESSION_SETTINGS.idleSeconds,
    maxSeconds: e.WATCHLOG_SESSION_MAX_SECONDS ?? DEFAULT_SESSION_SETTINGS.maxSeconds,
  };
  if (settings.idleSeconds > settings.maxSeconds || settings.accessTtlSeconds > settings.idleSeconds) {
    throw new ConfigError([
      'WATCHLOG_SESSION_IDLE_SECONDS: must lie between WATCHLOG_ACCESS_TOKEN_TTL_SECONDS and ' +
        'WATCHLOG_SESSION_MAX_SECONDS',
    ]);
  }
  return settings;
};
