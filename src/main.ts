#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
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

Options:
  -h, --help     show this help
  -v, --version  print the version

Configuration comes from environment variables (see the README):
  PORT, HOST, WATCHLOG_DATA_DIR, WATCHLOG_JWT_SECRET, WATCHLOG_JWT_TTL_SECONDS,
  WATCHLOG_ADMIN_EMAIL, WATCHLOG_ADMIN_PASSWORD, WATCHLOG_BODY_LIMIT_BYTES,
  WATCHLOG_LOG_LEVEL, WATCHLOG_SHUTDOWN_TIMEOUT_MS, WATCHLOG_PROJECTION_LEASE_MS,
  WATCHLOG_EVENTSTORE_URL (KurrentDB log), WATCHLOG_EVENTSTORE_NAMESPACE,
  WATCHLOG_VAPID_PUBLIC_KEY, WATCHLOG_VAPID_PRIVATE_KEY, WATCHLOG_VAPID_SUBJECT,
  WATCHLOG_MONGO_URL (MongoDB read models), WATCHLOG_ANOMALY_SCAN_SECONDS,
  WATCHLOG_ANOMALY_DEFAULTS (JSON, e.g. '{"brute_force":{"threshold":5}}'),
  WATCHLOG_EGRESS_DENY, WATCHLOG_EGRESS_ALLOW (where checks and notifications may
  connect: IPs, CIDRs, and host names to allow)
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

const main = async (argv: string[]): Promise<number> => {
  const command = argv[0] ?? 'start';
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
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`watchlog: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (command === 'rebuild') {
    await rebuild(config);
    return 0;
  }
  await serve(command as Role, config, pino({ level: config.logLevel, base: { service: 'watchlog', mode: command } }));
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
