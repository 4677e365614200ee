import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, whether the tests run from their TypeScript (test/, through tsx) or
 *  compiled (dist/test/, as `npm test` runs them): what a test reads or runs of the repository
 *  is named from here, never from its own location. */
export const ROOT = fileURLToPath(new URL(import.meta.url.endsWith('.js') ? '../../../' : '../../', import.meta.url));

/** A path of the repository, from its root. */
export const repoPath = (...parts: string[]): string => path.join(ROOT, ...parts);
