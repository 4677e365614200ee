import type { IncomingMessage } from 'node:http';
import type { Exchange } from '../recorder.ts';

const EXCHANGE = Symbol('watchlog.exchange');
type Tagged = IncomingMessage & { [EXCHANGE]?: Exchange };

/** The exchange of a request, kept on its node:http request: how the error handlers and
 *  `requestId(req)` find it, whatever the framework's own request object is. A symbol key is
 *  invisible to JSON, Object.keys and for-in, and cheaper per request than a WeakMap entry. */
export const exchanges = {
  set: (req: IncomingMessage, exchange: Exchange): void => {
    (req as Tagged)[EXCHANGE] = exchange;
  },
  get: (req: IncomingMessage): Exchange | undefined => (req as Tagged)[EXCHANGE],
};

/** Adapters must never throw into the application; what fails inside them is said here. */
export type OnInternalError = (error: unknown) => void;

/** Records the thrown value once: the first error is the one that started it. */
export const noteError = (exchange: Exchange | undefined, error: unknown): void => {
  if (exchange && !exchange.error) exchange.error = { value: error };
};
