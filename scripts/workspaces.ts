import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Manifest {
  workspaces?: string[];
  scripts?: Record<string, string>;
}

/** The package.json of `dir` (relative to `root`). */
export const manifestOf = (root: string, dir = '.'): Manifest =>
  JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as Manifest;

/** The root package's workspaces, as folders relative to `root`, in the order package.json
 *  lists them (`packages/masking` before `packages/*`: the SDKs inline it), each once. */
export const workspaceDirs = (root: string): string[] => [
  ...new Set(
    (manifestOf(root).workspaces ?? []).flatMap((pattern) =>
      pattern.endsWith('/*')
        ? readdirSync(path.join(root, pattern.slice(0, -2))).map((name) => `${pattern.slice(0, -2)}/${name}`)
        : [pattern],
    ),
  ),
];
