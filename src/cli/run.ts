import { readFileSync } from 'node:fs';
import pino from 'pino';
import type { Role } from '../compose/roles.ts';
import { StartupError } from '../startup-error.ts';
import { UsageError, parseVerifyArgs, runVerify, type VerifyOptions } from '../verify/cli.ts';
import { COMMAND_NAMES, commandHelp, generalHelp } from './help.ts';
import { loadConfigOrExit } from './load-config.ts';

// Each command loads what it runs when it runs: `--help`, `--version` and the offline `verify`
// start in a tenth of the time the service's whole module graph takes to load.

/** package.json sits two levels up from src/cli/ and three from dist/src/cli/. */
const version = (): string => {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
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
  if (options.dataDir !== undefined) {
    const { verifyDataDir } = await import('./verify-data-dir.ts');
    return verifyDataDir(options.dataDir, io);
  }
  return runVerify(options, io);
};

/** Runs the command `argv` names; resolves to the exit code, or -1 for a command that keeps the
 *  process running (a role, the demo) until a signal ends it. */
export const runCommand = async (argv: string[]): Promise<number> => {
  const command = argv[0] ?? 'start';
  if (command === 'admin') return (await import('./admin.ts')).admin(argv.slice(1));
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
  if (command === 'plan' || command === 'apply' || command === 'export')
    return (await import('./config/commands.ts')).configCommand(command, argv.slice(1));
  if (command === 'demo') {
    const { DEFAULT_DEMO_DIR, runDemo } = await import('./demo.ts');
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
    const { runRebuild } = await import('./rebuild.ts');
    await runRebuild(config);
    return 0;
  }
  const { serve } = await import('../compose/roles.ts');
  const logger = pino({ level: config.logLevel, base: { service: 'watchlog', mode: command } });
  const { port, bootstrapped } = await serve(command as Role, config, logger, version());
  if (config.configFile !== null && config.admin !== undefined && port !== null) {
    const { watchConfigFile } = await import('./config/watch.ts');
    // The process's own API: a wildcard listener is reached on the loopback address.
    const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    const watching = watchConfigFile({ file: config.configFile, url, admin: config.admin, logger });
    process.once('exit', () => watching.stop());
    bootstrapped.then(() => watching.applyNow('start-up'));
  }
  return -1;
};

/** What a command that failed prints: one line for a failure the user can fix, else the stack. */
export const failureMessage = (error: unknown): string =>
  `watchlog: ${error instanceof StartupError ? error.message : ((error as Error).stack ?? String(error))}\n`;
