import v8 from 'node:v8';

/** How far V8 lets a heap grow past what its last full collection kept, in percent. V8 picks a
 *  factor of up to 4× by itself when the program allocates fast, which a server under ingest
 *  does: a thread keeping ~30 MB alive then holds ~100 MB, and each of the server's threads does
 *  so (measured with `--trace-gc`: peak RSS 323–349 MB under ingest on a data dir of 1M records,
 *  257 MB with 25 %, at the same throughput). A smaller factor costs more full collections of
 *  heaps that small, which stays cheap. Kept where `node --heap-growing-percent=…` is given. */
export const SERVER_HEAP_GROWING_PERCENT = 25;

/** Applies the server's heap settings to every thread it starts from now on (V8's flags are the
 *  process's). Left alone for the other commands: a rebuild or a verification is a bulk job that
 *  wants throughput, not a resident size. */
export const applyServerHeapSettings = (execArgv: readonly string[] = process.execArgv): boolean => {
  if (execArgv.some((flag) => /^--heap[-_]growing[-_]percent\b/.test(flag))) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`);
  return true;
};
