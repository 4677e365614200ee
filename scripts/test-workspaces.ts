import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { manifestOf, workspaceDirs } from './workspaces.ts';

/** Runs each workspace's own `npm test` (those that have one), as many at once as there are
 *  cores: a package's suite is a type-check on one core and a short ava run, so one at a time
 *  leaves a core idle. Each one's output is printed whole when it ends, in the order they end;
 *  exits 1 when any failed. */

interface Outcome {
  workspace: string;
  code: number;
  output: string;
  ms: number;
}

const run = (root: string, workspace: string): Promise<Outcome> =>
  new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('npm', ['test'], { cwd: path.join(root, workspace), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('close', (code) => resolve({ workspace, code: code ?? 1, output, ms: Date.now() - started }));
  });

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const workspaces = workspaceDirs(root).filter((dir) => manifestOf(root, dir).scripts?.test !== undefined);
  const queue = [...workspaces];
  const failed: string[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const outcome = await run(root, next);
      process.stdout.write(
        `\n── ${outcome.workspace}: npm test ${outcome.code === 0 ? 'passed' : `failed (exit ${outcome.code})`} ` +
          `in ${(outcome.ms / 1000).toFixed(1)} s\n${outcome.output}`,
      );
      if (outcome.code !== 0) failed.push(outcome.workspace);
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), workspaces.length) }, worker));
  if (failed.length > 0) {
    process.stderr.write(`workspace suites failed: ${failed.join(', ')}\n`);
    process.exit(1);
  }
}
