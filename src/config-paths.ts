import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installation's root: the directory with the package's package.json and web/, found from
 *  this file whether it runs from src/ (tsx) or dist/src/ (compiled), whatever the working
 *  directory; the working directory when there is none above it. The built files the service
 *  serves (the dashboard, the audit-log viewer) are found from it. */
const installationRoot = (): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'web'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve('.');
    dir = parent;
  }
};

const ROOT = installationRoot();

/** web/dist: the built dashboard. */
export const BUILT_DASHBOARD_DIR = path.join(ROOT, 'web', 'dist');
/** The audit-log viewer's bundle, which `/embed` serves (packages/viewer). */
export const BUILT_VIEWER_BUNDLE = path.join(ROOT, 'packages', 'viewer', 'dist', 'watchlog-viewer.js');
