import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** Starts a worker thread on a sibling module of `importMetaUrl`. Compiled code runs the `.js`
 *  module directly; under tsx (tests, `npm run bench`) the thread registers tsx first, since a
 *  thread does not inherit the parent's `--import` loader hooks. */
export const startThread = (importMetaUrl: string, moduleName: string, workerData: unknown): Worker => {
  const ext = path.extname(new URL(importMetaUrl).pathname);
  const url = new URL(`./${moduleName}${ext}`, importMetaUrl);
  if (ext !== '.ts') return new Worker(url, { workerData });
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
};
