/** @watchlog/browser: records the page's fetch and XMLHttpRequest calls to its backends as
 *  browser-side audit events, each sent with an X-Request-ID that the backend's own event
 *  carries too, so watchlog can pair them and list the calls the backend never reported.
 *  Importing this module touches nothing; init() does it all, stop() undoes it. */
import { createClient, type Env, type Stats } from './client.ts';
import { wrapFetch } from './fetch.ts';
import { tabSessionId } from './ids.ts';
import { resolveOptions, type WatchlogOptions } from './options.ts';
import { sendOnHide } from './transport.ts';
import { wrapXhr } from './xhr.ts';

export type { Environment, WatchlogOptions } from './options.ts';
export type { Stats } from './client.ts';

export interface WatchlogBrowser {
  /** Sends what is queued now; resolves once it is sent, or a batch waits for a retry. */
  flush(): Promise<void>;
  /** Restores fetch and XMLHttpRequest, stops recording, and sends what is queued (one attempt). */
  stop(): Promise<void>;
  stats(): Stats;
}

let current: WatchlogBrowser | undefined;

const pageBase = (): string | undefined => (typeof document === 'object' ? document.baseURI : undefined);

/** Starts recording. Throws a TypeError naming every faulty option, or an Error when already
 *  started; after that, nothing it does ever throws into the page. */
export const init = (options: WatchlogOptions): WatchlogBrowser => {
  if (current) throw new Error('@watchlog/browser: init() was already called; call stop() first');
  const resolved = resolveOptions(options, pageBase());
  const g = globalThis;
  const originalFetch = g.fetch;
  const env: Env = {
    fetch: (url, init) => originalFetch.call(g, url, init),
    beacon: (url, body) => sendOnHide(env.fetch, url, body),
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (id) => clearTimeout(id as Parameters<typeof clearTimeout>[0]),
    now: () => Date.now(),
    elapsed: () => performance.now(),
    random: () => Math.random(),
    baseUrl: pageBase,
    sessionId: tabSessionId(),
    userAgent: typeof navigator === 'object' ? navigator.userAgent : undefined,
  };
  const client = createClient(resolved, env);

  const wrapped = wrapFetch(originalFetch, client);
  g.fetch = wrapped;
  const restoreXhr = typeof XMLHttpRequest === 'function' ? wrapXhr(XMLHttpRequest.prototype, client) : undefined;
  const page = typeof document === 'object' && typeof addEventListener === 'function';
  const onVisibility = () => {
    if (document.visibilityState === 'hidden') client.hide();
  };
  const onPageHide = () => client.hide();
  if (page) {
    document.addEventListener('visibilitychange', onVisibility);
    addEventListener('pagehide', onPageHide);
  }

  const handle: WatchlogBrowser = {
    flush: () => client.flush(),
    stats: () => client.stats(),
    stop: () => {
      if (current === handle) current = undefined;
      // A fetch wrapper installed after ours stays; ours then passes every call through.
      if (g.fetch === wrapped) g.fetch = originalFetch;
      restoreXhr?.();
      if (page) {
        document.removeEventListener('visibilitychange', onVisibility);
        removeEventListener('pagehide', onPageHide);
      }
      return client.stop();
    },
  };
  current = handle;
  return handle;
};

/** stop() on the running instance, if any. */
export const stop = (): Promise<void> => current?.stop() ?? Promise.resolve();

/** flush() on the running instance, if any. */
export const flush = (): Promise<void> => current?.flush() ?? Promise.resolve();

/** The running instance's counters; undefined before init() and after stop(). */
export const stats = (): Stats | undefined => current?.stats();
