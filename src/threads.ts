import path from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** Starts a worker thread on a sibling module of `importMetaUrl`. Compiled code runs the `.js`
 *  module directly; under tsx (tests, `npm run bench`) the thread registers tsx first, since a
 *  thread does not inherit the parent's `--import` loader hooks. */
export const startThread = (
  importMetaUrl: string,
  moduleName: string,
  workerData: unknown,
  resourceLimits?: ResourceLimits,
): Worker => {
  const ext = path.extname(new URL(importMetaUrl).pathname);
  const url = new URL(`./${moduleName}${ext}`, importMetaUrl);
  const limits = resourceLimits === undefined ? {} : { resourceLimits };
  if (ext !== '.ts') return new Worker(url, { workerData, ...limits });
  const href = JSON.stringify(url.href);
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${href}); })`;
  return new Worker(bootstrap, { eval: true, workerData, ...limits });
};

/** The young generation of a thread that lives as long as the server (the log's writer, the
 *  projectors), MB: V8 gives every thread 48 MB of it by default, which each busy thread fills
 *  between collections. At 16 MB, a server under batched ingest peaked at 289 MB of RSS instead
 *  of 320 in alternating runs of `npm run bench ingest` (single-event ingest 242 instead of 253),
 *  at the same rates and projector lag; at 8 MB, 274 MB, but the projector fell behind. The HTTP
 *  thread keeps V8's default: there a smaller young generation cost a fifth of the throughput. */
export const SERVER_THREAD_YOUNG_GENERATION_MB = 16;

/** The resource limits of such a thread; none where the node command line or NODE_OPTIONS sizes
 *  the young generation itself (that choice is kept). */
export const serverThreadLimits = (
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): ResourceLimits | undefined =>
  [...execArgv, ...nodeOptions.split(/\s+/)].some((flag) => /^--(max|min)[-_]semi[-_]space[-_]size\b/.test(flag))
    ? undefined
    : { maxYoungGenerationSizeMb: SERVER_THREAD_YOUNG_GENERATION_MB };
