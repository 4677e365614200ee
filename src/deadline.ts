/** `work`, or a rejection with `message` once `ms` have passed without an answer. The work itself
 *  is not cancelled: callers close what it runs on (a client, a store) when it fails. */
export const withTimeout = <T>(work: Promise<T>, ms: number, message: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e as Error);
      },
    );
  });
