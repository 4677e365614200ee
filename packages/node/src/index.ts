/** @watchlog/node: records one watchlog audit event per HTTP request an application handles,
 *  and delivers them in batches that survive outages without duplicates. */
export { createWatchlog, type Watchlog } from './client.ts';
export { WatchlogConfigError, NUMBERS as DEFAULTS, type ConfigProblem, type WatchlogOptions } from './options.ts';
export { WatchlogDeliveryError, type DeliveryProblem, type Logger } from './report.ts';
export type { WatchlogStats } from './delivery.ts';
export type { RecordInput } from './recorder.ts';
export { CLIENT_CLOSED } from './recorder.ts';
export { OMITTED_KEY, MAX_OBJECT_DEPTH } from './capture.ts';
export { nearestMethod, type UnsupportedMethodPolicy } from './methods.ts';
export type { Identify, Identity, IdentifyResult } from './identity.ts';
export type { AuditEvent, AuditMethod, Environment, JsonObject } from './event.ts';
export type { ExpressRequest, ExpressMiddleware, ExpressErrorMiddleware, ExpressOptions } from './adapters/express.ts';
export type { KoaContext, KoaMiddleware, KoaOptions } from './adapters/koa.ts';
export type {
  FastifyInstance,
  FastifyPlugin,
  FastifyReply,
  FastifyRequest,
  FastifyOptions,
} from './adapters/fastify.ts';
export type { HttpOptions } from './adapters/http.ts';
