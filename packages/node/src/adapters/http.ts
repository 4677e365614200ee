import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identify } from '../identity.ts';
import type { Recorder } from '../recorder.ts';
import { exchanges, noteError, type OnInternalError } from './shared.ts';

export interface HttpOptions<Req> {
  identify?: Identify<Req>;
  /** The route template of a request, when your own router knows it (default: the URL path,
   *  without the query). */
  route?: (request: Req) => string | undefined;
}

/** `a=1&a=2&b=3` as `{ a: ['1', '2'], b: '3' }`, the shape Express and Koa give. */
export const parseQuery = (url: string | undefined): Record<string, string | string[]> | undefined => {
  const q = url?.indexOf('?') ?? -1;
  if (!url || q === -1) return undefined;
  const hash = url.indexOf('#', q);
  const query: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [key, value] of new URLSearchParams(url.slice(q + 1, hash === -1 ? undefined : hash))) {
    const seen = query[key];
    query[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
};

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

export const httpHandler = <Req extends IncomingMessage, Res extends ServerResponse, R>(
  recorder: Recorder,
  handler: (req: Req, res: Res) => R,
  options: HttpOptions<Req>,
  onInternalError: OnInternalError,
): ((req: Req, res: Res) => R) => {
  const { identify, route } = options;
  return (req, res) => {
    let exchange = null;
    try {
      if (recorder.enabled) {
        exchange = recorder.begin(req.method, req.headers, res);
        if (exchange) {
          const current = exchange;
          exchanges.set(req, current);
          // A handler may reject just after ending the response; its rejection is noted in a
          // microtask, which runs after 'close' (emitted on nextTick): record a turn later.
          res.on('close', () =>
            setImmediate(() => {
              try {
                let template: string | undefined;
                try {
                  template = route?.(req);
                } catch (error) {
                  onInternalError(error);
                }
                recorder.finish(
                  current,
                  {
                    res,
                    route: typeof template === 'string' ? template : undefined,
                    url: req.url,
                    params: undefined,
                    query: parseQuery(req.url),
                    requestBody: (req as { body?: unknown }).body,
                    ip: req.socket?.remoteAddress,
                    userAgent: req.headers['user-agent'],
                  },
                  identify,
                  req,
                );
              } catch (error) {
                onInternalError(error);
              }
            }),
          );
        }
      }
    } catch (error) {
      onInternalError(error);
    }
    if (!exchange) return handler(req, res);
    let result: R;
    try {
      result = handler(req, res);
    } catch (error) {
      noteError(exchange, error);
      throw error;
    }
    if (isThenable(result)) {
      const current = exchange;
      // Observing the rejection marks the handler's promise as handled; the promise itself is
      // returned unchanged, so whoever awaits it still sees the rejection.
      result.then(undefined, (error: unknown) => noteError(current, error));
    }
    return result;
  };
};
