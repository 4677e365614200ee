import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  expressErrorMiddleware,
  expressMiddleware,
  type ExpressErrorMiddleware,
  type ExpressMiddleware,
  type ExpressOptions,
  type ExpressRequest,
} from './adapters/express.ts';
import { fastifyPlugin, type FastifyOptions, type FastifyPlugin, type FastifyRequest } from './adapters/fastify.ts';
import { httpHandler, type HttpOptions } from './adapters/http.ts';
import { koaMiddleware, type KoaContext, type KoaMiddleware, type KoaOptions } from './adapters/koa.ts';
import { exchanges } from './adapters/shared.ts';
import { Delivery, type WatchlogStats } from './delivery.ts';
import { resolveOptions, type WatchlogOptions } from './options.ts';
import { Recorder, type RecordInput } from './recorder.ts';
import { Reporter } from './report.ts';

export interface Watchlog {
  /** Express 5 middleware; mount it first: `app.use(watchlog.express())`. */
  express<Req extends ExpressRequest = ExpressRequest>(options?: ExpressOptions<Req>): ExpressMiddleware<Req>;
  /** Express error middleware that notes `error_message`; mount it after the routes, before
   *  your own error handlers. It passes the error on unchanged. */
  expressErrors(): ExpressErrorMiddleware;
  /** Koa 3 middleware; mount it first: `app.use(watchlog.koa())`. */
  koa<Ctx extends KoaContext = KoaContext>(options?: KoaOptions<Ctx>): KoaMiddleware<Ctx>;
  /** Fastify 5 plugin: `await app.register(watchlog.fastify())`. Not encapsulated. */
  fastify<Req extends FastifyRequest = FastifyRequest>(options?: FastifyOptions<Req>): FastifyPlugin;
  /** Wraps a node:http request handler: `http.createServer(watchlog.http(handler))`. */
  http<Req extends IncomingMessage, Res extends ServerResponse, R>(
    handler: (req: Req, res: Res) => R,
    options?: HttpOptions<Req>,
  ): (req: Req, res: Res) => R;
  /** Records an event of your own (a job, a message): shaped and queued like the others. */
  record(event: RecordInput): void;
  /** The request id recorded for a request in flight (given the node:http request: Express
   *  `req`, Koa `ctx.req`, Fastify `request.raw`). */
  requestId(req: IncomingMessage): string | undefined;
  /** Sends what is queued now; true once it is settled, false after `timeoutMs` (default 5000). */
  flush(options?: { timeoutMs?: number }): Promise<boolean>;
  /** Stops the timer and sends everything left, dropping what is still unsent after
   *  `timeoutMs` (default 5000). Resolves with the final stats; never rejects. */
  close(options?: { timeoutMs?: number }): Promise<WatchlogStats>;
  stats(): WatchlogStats;
}

const DEFAULT_DEADLINE_MS = 5000;

const deadline = (options: { timeoutMs?: number } | undefined): number => {
  const ms = options?.timeoutMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : DEFAULT_DEADLINE_MS;
};

/** Validates the options (throwing one WatchlogConfigError that lists every faulty option) and
 *  returns the client. Nothing it returns throws into the application afterwards. */
export const createWatchlog = (options: WatchlogOptions): Watchlog => {
  const resolved = resolveOptions(options);
  const reporter = new Reporter(resolved.logger, resolved.onError, resolved.batchUrl.origin);
  const delivery = new Delivery(resolved, reporter);
  const recorder = new Recorder(resolved, delivery, reporter);
  const onInternalError = (error: unknown) =>
    reporter.failed(
      'failed',
      1,
      `internal error while recording a request (${error instanceof Error ? error.message : String(error)})`,
    );

  return {
    express: (o = {}) => expressMiddleware(recorder, o, onInternalError),
    expressErrors: () => expressErrorMiddleware(),
    koa: (o = {}) => koaMiddleware(recorder, o, onInternalError),
    fastify: (o = {}) => fastifyPlugin(recorder, o, onInternalError),
    http: (handler, o = {}) => httpHandler(recorder, handler, o, onInternalError),
    record: (event) => recorder.record(event),
    requestId: (req) => exchanges.get(req)?.requestId,
    flush: (o) => delivery.flush(deadline(o)),
    close: (o) => delivery.close(deadline(o)),
    stats: () => delivery.stats(),
  };
};
