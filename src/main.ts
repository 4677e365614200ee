#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { generatePasswordForReset, resetPassword } from './compose/admin.ts';
import { rebuild, serve, type Role } from './compose/roles.ts';
import { StartupError } from './compose/stores.ts';

const HELP = `watchlog — self-hosted audit logging and uptime monitoring

Usage: watchlog <command>

Commands:
  start      HTTP API, projector, monitor checks, anomaly scan and notifications in
             one process (the default)
  api        HTTP API only (run any number of them)
  worker     projector, Agenda jobs (monitor checks, anomaly scan, log trim) and
             notifications
  rebuild    drop every read model and replay the log into it, with progress
             (stop the service first)
  admin      account administration: \`watchlog admin --help\`

Options:
  -h, --help     show this help
  -v, --version  print the version

Configuration comes from environment variables (see the README):
  PORT, HOST, WATCHLOG_DATA_DIR, WATCHLOG_JWT_SECRET, WATCHLOG_JWT_TTL_SECONDS,
  WATCHLOG_ADMIN_EMAIL, WATCHLOG_ADMIN_PASSWORD, WATCHLOG_BODY_LIMIT_BYTES,
  WATCHLOG_LOG_LEVEL, WATCHLOG_SHUTDOWN_TIMEOUT_MS, WATCHLOG_HEADERS_TIMEOUT_MS,
  WATCHLOG_REQUEST_TIMEOUT_MS, WATCHLOG_BODY_TIMEOUT_MS, WATCHLOG_KEEP_ALIVE_TIMEOUT_MS,
  WATCHLOG_MAX_CONNECTIONS (HTTP limits), WATCHLOG_PROJECTION_LEASE_MS,
  WATCHLOG_EVENTSTORE_URL (KurrentDB log), WATCHLOG_EVENTSTORE_NAMESPACE,
  WATCHLOG_VAPID_PUBLIC_KEY, WATCHLOG_VAPID_PRIVATE_KEY, WATCHLOG_VAPID_SUBJECT,
  WATCHLOG_MONGO_URL (MongoDB read models), WATCHLOG_ANOMALY_SCAN_SECONDS,
  WATCHLOG_ANOMALY_DEFAULTS (JSON, e.g. '{"brute_force":{"threshold":5}}'),
  WATCHLOG_LOGIN_ACCOUNT_FAILURES, WATCHLOG_LOGIN_ACCOUNT_LOCK_SECONDS,
  WATCHLOG_LOGIN_ACCOUNT_MAX_LOCK_SECONDS, WATCHLOG_LOGIN_ADDRESS_FAILURES,
  WATCHLOG_LOGIN_ADDRESS_WINDOW_SECONDS (login throttling),
  WATCHLOG_EGRESS_DENY, WATCHLOG_EGRESS_ALLOW (where checks and notifications may
  connect: IPs, CIDRs, and host names to allow)
`;

const ADMIN_HELP = `watchlog admin — account administration

Usage: watchlog admin reset-password EMAIL

  reset-password EMAIL   set a new password for the user with this e-mail (an admin
                         locked out, say). The new password is the first line of
                         standard input; when standard input is a terminal or empty,
                         one is generated and printed. Tokens issued before the reset
                         are refused, and the account's failed logins are forgotten.
                         Writes to the log directly, so it works whether or not the
                         service runs; use the same WATCHLOG_DATA_DIR (or
                         WATCHLOG_EVENTSTORE_URL and WATCHLOG_MONGO_URL) as the service.

Example:
  printf '%s\\n' 'a new long password' | watchlog admin reset-password admin@example.com
`;

/** package.json sits one level up from src/ and two from dist/src/. */
const version = (): string => {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
};

/** The first line of standard input, or '' when it is a terminal (nothing is piped). */
const readStdinLine = async (): Promise<string> => {
  if (process.stdin.isTTY) return '';
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.split(/\r?\n/)[0] ?? '';
};

const loadConfigOrExit = (): Config | number => {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`watchlog: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
};

const admin = async (argv: string[]): Promise<number> => {
  const [sub, email, ...rest] = argv;
  if (sub === undefined || sub === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(ADMIN_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'reset-password' || email === undefined || rest.length > 0) {
    process.stderr.write(`watchlog admin: expected \`reset-password EMAIL\`\n\n${ADMIN_HELP}`);
    return 2;
  }
  const config = loadConfigOrExit();
  if (typeof config === 'number') return config;
  const given = await readStdinLine();
  if (given !== '' && (given.length < 8 || given.length > 1024)) {
    process.stderr.write('watchlog admin: the new password must have 8 to 1024 characters\n');
    return 2;
  }
  const password = given === '' ? generatePasswordForReset() : given;
  const reset = await resetPassword(config, email, password);
  process.stdout.write(`password of ${email.trim().toLowerCase()} (${reset.role}) reset; tokens issued before now are refused\n`);
  if (given === '') process.stdout.write(`new password: ${password}\n`);
  if (reset.disabled) process.stdout.write('note: this account is disabled; an admin can enable it with PUT /v1/users/:id {"disabled": false}\n');
  return 0;
};

const main = async (argv: string[]): Promise<number> => {
  const command = argv[0] ?? 'start';
  if (command === 'admin') return admin(argv.slice(1));
  if (command === '-h' || command === '--help' || command === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (!['start', 'api', 'worker', 'rebuild'].includes(command)) {
    process.stderr.write(`watchlog: unknown command "${command}"\n\n${HELP}`);
    return 2;
  }
  const config = loadConfigOrExit();
  if (typeof config === 'number') return config;
  if (command === 'rebuild') {
    await rebuild(config);
    return 0;
  }
  await serve(command as Role, config, pino({ level: config.logLevel, base: { service: 'watchlog', mode: command } }), version());
  return -1;
};

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    const message = error instanceof StartupError ? error.message : (error as Error).stack ?? String(error);
    process.stderr.write(`watchlog: ${message}\n`);
    process.exit(1);
  },
);
