import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { workspaceDirs } from './workspaces.ts';

/** Builds the workspaces (the packages and the dashboard: `npm run build:packages`) unless every
 *  one is current. `npm ci` and `npm install` build them already (`prepare`), so `npm test` right
 *  after builds nothing again; after an edit under a workspace, it builds them all, in the
 *  workspaces' order (the SDKs inline @watchlog/masking). `--force` builds whatever the dates. */

/** What a workspace's build is not made from (a package's tests can be: agenda-sqlite's contract). */
const NOT_INPUT = /^(dist|node_modules)(\/|$)|\.md$/;

/** Why the workspace at `dir` needs a build, or null when its dist/ is newer than every input. */
/** The files under `dir`, less the folders `skip` names (a path relative to `dir`). */
const filesUnder = (dir: string, skip: (relative: string) => boolean, at = ''): string[] =>
  readdirSync(path.join(dir, at), { withFileTypes: true }).flatMap((entry) => {
    const relative = at === '' ? entry.name : `${at}/${entry.name}`;
    if (skip(relative)) return [];
    if (entry.isDirectory()) return filesUnder(dir, skip, relative);
    return entry.isFile() ? [path.join(dir, relative)] : [];
  });

/** Why the workspace at `dir` needs a build, or null when its dist/ is newer than every input. */
export const staleness = (dir: string): string | null => {
  let built: number;
  try {
    const outputs = filesUnder(path.join(dir, 'dist'), () => false).map((file) => statSync(file).mtimeMs);
    if (outputs.length === 0) return 'dist/ is empty';
    built = Math.min(...outputs);
  } catch {
    return 'no dist/';
  }
  const newer = filesUnder(dir, (relative) => NOT_INPUT.test(relative)).find((file) => statSync(file).mtimeMs > built);
  return newer === undefined ? null : `${path.relative(dir, newer)} is newer than dist/`;
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dirs = workspaceDirs(root);
  const stale = process.argv.includes('--force')
    ? ['--force']
    : dirs.flatMap((dir) => {
        const why = staleness(path.join(root, dir));
        return why === null ? [] : [`${dir}: ${why}`];
      });
  if (stale.length === 0) {
    process.stdout.write('workspaces current: nothing to build\n');
  } else {
    process.stdout.write(`building the workspaces (${stale.join('; ')})\n`);
    execFileSync('npm', ['run', 'build', '--workspaces', '--if-present'], { cwd: root, stdio: 'inherit' });
  }
}
