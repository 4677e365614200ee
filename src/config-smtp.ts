import * as t from 'io-ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SmtpSecurity } from './domain/channel.ts';
import { ConfigError, intFromEnv, matching, optional, stringMin } from './config-codecs.ts';

/** WATCHLOG_SMTP_*: the SMTP server that mails status pages' subscribers
 *  (docs/status-pages.md#subscribers), spoken to as an e-mail channel's `smtp` is. */

const FROM_RE = /^(?:[^\s@<>]+@[^\s@<>]+|[^<>\r\n"]{1,100} <[^\s@<>]+@[^\s@<>]+>)$/;

export const SMTP_ENV = {
  WATCHLOG_SMTP_HOST: optional(matching('host name or address, up to 253 characters', /^[^\s/]{1,253}$/)),
  WATCHLOG_SMTP_PORT: optional(intFromEnv('integer 1-65535', 1, 65535)),
  WATCHLOG_SMTP_SECURITY: optional(t.keyof({ starttls: null, tls: null, none: null }, 'starttls, tls or none')),
  WATCHLOG_SMTP_USERNAME: optional(stringMin('user name', 1)),
  WATCHLOG_SMTP_PASSWORD: optional(stringMin('password', 1)),
  WATCHLOG_SMTP_FROM: optional(matching('an e-mail address, or Name <address>', FROM_RE)),
  WATCHLOG_SMTP_CA: optional(stringMin('PEM certificate or file path', 1)),
  WATCHLOG_SMTP_REJECT_UNAUTHORIZED: optional(t.keyof({ true: null, false: null }, 'true or false')),
};

type SmtpEnv = { [K in keyof typeof SMTP_ENV]: t.TypeOf<(typeof SMTP_ENV)[K]> };

/** As a channel's `smtp` (src/domain/channel.ts), and the sender. */
export interface SubscriberMailConfig {
  smtp: {
    host: string;
    port: number;
    security: SmtpSecurity;
    username?: string;
    password?: string;
    ca?: string;
    reject_unauthorized: boolean;
  };
  from: string;
}

const SMTP_PORTS: Record<SmtpSecurity, number> = { starttls: 587, tls: 465, none: 25 };

const readable = (file: string): string => {
  try {
    return readFileSync(path.resolve(file), 'utf8');
  } catch (error) {
    throw new ConfigError([`WATCHLOG_SMTP_CA: cannot read ${file}: ${(error as Error).message}`]);
  }
};

/** WATCHLOG_SMTP_CA: a PEM certificate (`\n` may stand for its line breaks), or a file holding one. */
const caOf = (value: string): string => {
  const pem = value.includes('-----BEGIN') ? value.replace(/\\n/g, '\n') : readable(value);
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new ConfigError(['WATCHLOG_SMTP_CA: expected a PEM certificate, or the path of a file holding one']);
  return pem;
};

/** Every WATCHLOG_SMTP_* needs the host, and the host needs a sender and WATCHLOG_PUBLIC_URL
 *  (`publicUrl`: whether it is set), since a message's links lead back to the page there. */
export const subscriberMailOf = (e: SmtpEnv, publicUrl: boolean): SubscriberMailConfig | null => {
  const host = e.WATCHLOG_SMTP_HOST;
  if (host === undefined) {
    const set = (Object.keys(SMTP_ENV) as Array<keyof SmtpEnv>).filter((k) => e[k] !== undefined);
    if (set.length > 0) throw new ConfigError([`${set.join(', ')}: set WATCHLOG_SMTP_HOST too, or none of them`]);
    return null;
  }
  const problems: string[] = [];
  if (e.WATCHLOG_SMTP_FROM === undefined)
    problems.push("WATCHLOG_SMTP_FROM: required with WATCHLOG_SMTP_HOST (the sender of subscribers' mail)");
  if (!publicUrl)
    problems.push("WATCHLOG_PUBLIC_URL: required with WATCHLOG_SMTP_HOST (subscribers' mail links to the page there)");
  if (e.WATCHLOG_SMTP_PASSWORD !== undefined && e.WATCHLOG_SMTP_USERNAME === undefined)
    problems.push('WATCHLOG_SMTP_PASSWORD: set WATCHLOG_SMTP_USERNAME too');
  if (problems.length > 0) throw new ConfigError(problems);
  const security = e.WATCHLOG_SMTP_SECURITY ?? 'starttls';
  return {
    smtp: {
      host,
      port: e.WATCHLOG_SMTP_PORT ?? SMTP_PORTS[security],
      security,
      ...(e.WATCHLOG_SMTP_USERNAME === undefined ? {} : { username: e.WATCHLOG_SMTP_USERNAME }),
      ...(e.WATCHLOG_SMTP_PASSWORD === undefined ? {} : { password: e.WATCHLOG_SMTP_PASSWORD }),
      ...(e.WATCHLOG_SMTP_CA === undefined ? {} : { ca: caOf(e.WATCHLOG_SMTP_CA) }),
      reject_unauthorized: e.WATCHLOG_SMTP_REJECT_UNAUTHORIZED !== 'false',
    },
    from: e.WATCHLOG_SMTP_FROM!,
  };
};
