import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ConfigFile } from '../../domain/config-file.ts';
import { commandHelp } from '../help.ts';
import { ApiError, apiClient, type ApiClient, type Credentials } from './client.ts';
import { exportYaml, projectAsFile } from './export.ts';
import { ConfigFileError, parseConfig } from './parse.ts';
import { buildPlan, PlanError, runContext, type Step } from './plan.ts';
import { renderPlan, stepTitle, summary } from './render.ts';
import { listProjects, readProject, type ProjectState } from './state.ts';

/** `watchlog plan`, `watchlog apply` and `watchlog export` (docs/config-file.md). Exit codes:
 *  plan 0 no changes, 2 changes; apply and export 0 done; all 1 for an error (bad usage, a faulty
 *  file, an API that refused), never 2, which a pipeline reads as "plan has changes". */

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const stdio: Io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** The projects the file names, as the API has them (null: none of that name yet). */
export const currentOf = async (client: ApiClient, file: ConfigFile): Promise<Map<string, ProjectState | null>> => {
  const visible = await listProjects(client);
  const byName = new Map(visible.map((p) => [p.name, p]));
  const states = await Promise.all(
    file.projects.map(async (p) => {
      const found = byName.get(p.name);
      return [p.name, found ? await readProject(client, found) : null] as const;
    }),
  );
  return new Map(states);
};

export interface Applied {
  readonly steps: readonly Step[];
  readonly requestId: string;
}

/** Plans `text` and runs the plan, step by step; `onStep` hears each one done. What a
 *  start-up apply (watch.ts) and `watchlog apply` share. */
export const applyText = async (
  text: string,
  fileName: string,
  target: { url: string; credentials: Credentials },
  options: { prune: boolean; env?: NodeJS.ProcessEnv; onStep?: (step: Step, once: string | undefined) => void },
): Promise<Applied> => {
  const parsed = parseConfig(text, fileName, options.env);
  const requestId = `config-apply-${randomUUID()}`;
  const client = apiClient(target.url, { ...target.credentials, requestId });
  const current = await currentOf(client, parsed.file);
  const steps = buildPlan(parsed.file, current, { fromEnv: parsed.fromEnv, prune: options.prune });
  const ctx = runContext(client, current);
  for (const step of steps) {
    const once = await step.run(ctx);
    options.onStep?.(step, typeof once === 'string' ? once : undefined);
  }
  // The apply as one system.access row naming its changes, under the request id its calls shared.
  await client.send('POST', '/v1/config/applies', {
    file: fileName,
    changes: steps.map((s) => ({
      action: s.action,
      kind: s.kind,
      project: s.project,
      name: s.name,
      fields: s.fields.map((f) => f.field),
    })),
  });
  return { steps, requestId };
};

interface Target {
  url: string;
  credentials: Credentials;
}

/** A token given on the command line wins over a key from the environment, and the other way round. */
const targetOf = (values: { url?: string; token?: string; 'api-key'?: string }, env: NodeJS.ProcessEnv): Target => {
  const apiKey = values['api-key'];
  return {
    url: values.url ?? env.WATCHLOG_URL ?? `http://127.0.0.1:${env.PORT || 3000}`,
    credentials:
      values.token !== undefined || apiKey !== undefined
        ? { token: values.token, apiKey }
        : { token: env.WATCHLOG_TOKEN || undefined, apiKey: env.WATCHLOG_API_KEY || undefined },
  };
};

const OPTIONS = {
  file: { type: 'string', short: 'f' },
  url: { type: 'string' },
  token: { type: 'string' },
  'api-key': { type: 'string' },
  prune: { type: 'boolean' },
  project: { type: 'string', short: 'p', multiple: true },
  output: { type: 'string', short: 'o' },
} as const;

class UsageError extends Error {}

const parsedArgs = (command: string, argv: string[], wanted: ReadonlyArray<keyof typeof OPTIONS>) => {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  const extra = Object.keys(values).filter((k) => !wanted.includes(k as keyof typeof OPTIONS));
  if (positionals.length > 0 || extra.length > 0)
    throw new UsageError(`unexpected ${[...positionals, ...extra.map((k) => `--${k}`)].join(' ')}`);
  if (wanted.includes('file') && values.file === undefined) throw new UsageError(`${command} needs -f FILE`);
  return values;
};

/** Runs `watchlog plan|apply|export ARGS`; resolves to the exit code. */
export const configCommand = async (
  command: 'plan' | 'apply' | 'export',
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: Io = stdio,
): Promise<number> => {
  let values: ReturnType<typeof parsedArgs>;
  try {
    const wanted = {
      plan: ['file', 'url', 'token', 'api-key', 'prune'],
      apply: ['file', 'url', 'token', 'api-key', 'prune'],
      export: ['url', 'token', 'api-key', 'project', 'output'],
    } as const;
    values = parsedArgs(command, argv, wanted[command]);
  } catch (error) {
    io.err(`watchlog ${command}: ${(error as Error).message}\n\n${commandHelp(command)}`);
    return 1;
  }
  const target = targetOf(values, env);
  try {
    if (command === 'export') return await exportCommand(target, values.project ?? [], values.output, io);
    const file = values.file!;
    const text = readFileSync(file, 'utf8');
    const fileName = path.basename(file);
    if (command === 'apply') {
      io.out(`Applying ${fileName} to ${target.url}\n`);
      const { steps, requestId } = await applyText(text, fileName, target, {
        prune: values.prune === true,
        env,
        onStep: (step, once) =>
          io.out(
            `  ${step.action === 'change' ? 'changed' : `${step.action}d`} ${stepTitle(step)}\n` +
              (once === undefined ? '' : `      ${once}\n`),
          ),
      });
      io.out(
        steps.length === 0
          ? 'No changes: the API holds what the file says.\n'
          : `Applied: ${summary(steps)} (request id ${requestId}).\n`,
      );
      return 0;
    }
    const parsed = parseConfig(text, fileName, env);
    const client = apiClient(target.url, target.credentials);
    const steps = buildPlan(parsed.file, await currentOf(client, parsed.file), {
      fromEnv: parsed.fromEnv,
      prune: values.prune === true,
    });
    io.out(renderPlan(steps));
    return steps.length === 0 ? 0 : 2;
  } catch (error) {
    if (error instanceof ConfigFileError || error instanceof PlanError) io.err(`${error.message}\n`);
    else if (error instanceof ApiError) io.err(`watchlog ${command}: ${error.message}${hintOf(error, target)}\n`);
    else if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      io.err(`watchlog ${command}: ${(error as Error).message}\n`);
    else if (error instanceof TypeError && (error as { cause?: unknown }).cause !== undefined)
      io.err(
        `watchlog ${command}: cannot reach ${target.url}: ${String((error.cause as Error).message ?? error.cause)}\n`,
      );
    else throw error;
    return 1;
  }
};

/** What to do about a refusal of the credentials themselves. */
const hintOf = (error: ApiError, target: Target): string => {
  const scope = ApiError.errorOf(error.body)?.required_scope;
  if (error.status === 403 && scope === 'config' && target.credentials.token === undefined)
    return '\n  (plan, apply and export need a login token, or an API key of the project with the "config" scope)';
  if (error.status === 401) return '\n  (give --token or WATCHLOG_TOKEN, or --api-key or WATCHLOG_API_KEY)';
  return '';
};

const exportCommand = async (target: Target, chosen: string[], output: string | undefined, io: Io): Promise<number> => {
  const client = apiClient(target.url, target.credentials);
  const visible = await listProjects(client);
  const unknown = chosen.filter((name) => !visible.some((p) => p.name === name));
  if (unknown.length > 0) {
    io.err(`watchlog export: no project named ${unknown.map((n) => `"${n}"`).join(', ')}\n`);
    return 1;
  }
  // The built-in `watchlog` project holds the service's own audit trail; it has nothing to keep.
  const projects = visible.filter((p) => (chosen.length > 0 ? chosen.includes(p.name) : p.name !== 'watchlog'));
  const files = await Promise.all(projects.map(async (p) => projectAsFile(await readProject(client, p))));
  for (const skip of files.flatMap((f) => f.skipped)) io.err(`watchlog export: left out ${skip}\n`);
  const yaml = exportYaml(
    files.map((f) => f.file),
    `${target.url.replace(/\/+$/, '')}/v1/config.schema.json`,
  );
  if (output === undefined) io.out(yaml);
  else writeFileSync(output, yaml);
  return 0;
};
