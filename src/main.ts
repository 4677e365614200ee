#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { generatePasswordForReset, resetPassword } from './compose/admin.ts';
import { rebuild, serve, type Role } from './compose/roles.ts';
import { StartupError } from './compose/stores.ts';
import { COMMAND_NAMES, commandHelp, generalHelp } from './compose/cli-help.ts';
import { DEFAULT_DEMO_DIR, runDemo } from './compose/demo.ts';
import { UsageError, parseVerifyArgs, runVerify, type VerifyOptions } from './verify/cli.ts';
import { verifyDataDir } from './compose/verify-data-dir.ts';

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

const loadConfigOrExit = (env: NodeJS.ProcessEnv = process.env): Config | number => {
  try {
    return loadConfig(env);
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
    process.stdout.write(commandHelp('admin')!);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'reset-password' || email === undefined || rest.length > 0) {
    process.stderr.write(`watchlog admin: expected \`reset-password EMAIL\`\n\n${commandHelp('admin')!}`);
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
  process.stdout.write(
    `password of ${email.trim().toLowerCase()} (${reset.role}) reset; tokens issued before now are refused\n`,
  );
  if (given === '') process.stdout.write(`new password: ${password}\n`);
  if (reset.disabled)
    process.stdout.write(
      'note: this account is disabled; an admin can enable it with PUT /v1/users/:id {"disabled": false}\n',
    );
  return 0;
};

/** Offline: no configuration, no store. Exit 0 verified, 1 failed, 2 bad usage. */
const verify = async (argv: string[]): Promise<number> => {
  let options: VerifyOptions;
  try {
    options = parseVerifyArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`watchlog verify: ${error.message} (watchlog verify --help)\n`);
    return 2;
  }
  const io = {
    out: (line: string) => process.stdout.write(`${line}\n`),
    err: (line: string) => process.stderr.write(`${line}\n`),
  };
  if (options.dataDir !== undefined) return verifyDataDir(options.dataDir, io);
  return runVerify(options, io);
};

const main = async (argv: string[]): Promise<number> => {
  const command = argv[0] ?? 'start';
  if (command === 'admin') return admin(argv.slice(1));
  if (command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(argv[1] !== undefined && commandHelp(argv[1]) ? commandHelp(argv[1])! : generalHelp());
    return 0;
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(commandHelp(command) ?? generalHelp());
    return commandHelp(command) === null ? 2 : 0;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (!COMMAND_NAMES.includes(command)) {
    process.stderr.write(`watchlog: unknown command "${command}"\n\n${generalHelp()}`);
    return 2;
  }
  if (command === 'verify') return verify(argv.slice(1));
  if (command === 'demo') {
    // Its own directory unless told otherwise, and a quiet log: the demo's lines are what matter.
    const demoConfig = loadConfigOrExit({
      ...process.env,
      WATCHLOG_DATA_DIR: process.env.WATCHLOG_DATA_DIR ?? DEFAULT_DEMO_DIR,
      WATCHLOG_LOG_LEVEL: process.env.WATCHLOG_LOG_LEVEL ?? 'warn',
    });
    if (typeof demoConfig === 'number') return demoConfig;
    await runDemo(demoConfig, process.env, version());
    return -1;
  }
  const config = loadConfigOrExit();
  if (typeof config === 'number') return config;
  if (command === 'rebuild') {
    await rebuild(config);
    return 0;
  }
  await serve(
    command as Role,
    config,
    pino({ level: config.logLevel, base: { service: 'watchlog', mode: command } }),
    version(),
  );
  return -1;
};

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    const message = error instanceof StartupError ? error.message : ((error as Error).stack ?? String(error));
    process.stderr.write(`watchlog: ${message}\n`);
    process.exit(1);
  },
);
