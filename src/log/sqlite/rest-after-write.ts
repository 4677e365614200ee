/** The pause after a write transaction of redact or compact, so that the writer thread (or
 *  another process) gets the lock: a commit that finds the file locked retries after SQLite's
 *  busy-handler sleeps (1, 2, 5, 10… ms from when it first waited), not when the lock is
 *  released, so transactions one turn of the event loop apart could keep it waiting for all of
 *  them. As long as the transaction took, and at least 5 ms. */
export const restAfterWrite = (startedAt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(5, performance.now() - startedAt)));
