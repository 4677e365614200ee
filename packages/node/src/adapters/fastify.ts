import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Identify } from '../identity.ts';
import type { Recorder } from '../recorder.ts';
import { exchanges, noteError, type OnInternalError } from './shared.ts';

/** What the plugin reads from a Fastify request (FastifyRequest fits). */
export interface FastifyRequest {
  raw: IncomingMessage;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The matched route; `url` is its template, prefix included (absent on a 404). */
  routeOptions?: { url?: string };
  params?: unknown;
  query?: unknown;
  body?: unknown;
  ip?: string;
}

export interface FastifyReply {
  raw: ServerResponse;
}

type Done = (error?: Error) => void;

/** The part of a Fastify instance the plugin uses (FastifyInstance fits). */
export interface FastifyInstance {
  addHook(name: 'onRequest', hook: (request: FastifyRequest, reply: FastifyReply, done: Done) => void): unknown;
  addHook(
    name: 'onError',
    hook: (request: FastifyRequest, reply: FastifyReply, error: Error, done: () => void) => void,
  ): unknown;
  addHook(
    name: 'preSerialization',
    hook: (
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      done: (error: Error | null, payload?: unknown) => void,
    ) => void,
  ): unknown;
}

/** A plugin for `fastify.register()`. It carries fastify-plugin's marks, so its hooks apply to
 *  the whole application rather than to an encapsulated child context. */
export type FastifyPlugin = (instance: FastifyInstance, options: unknown, done: Done) => void;

export interface FastifyOptions<Req> {
  identify?: Identify<Req>;
}

export const fastifyPlugin = <Req extends FastifyRequest>(
  recorder: Recorder,
  options: FastifyOptions<Req>,
  onInternalError: OnInternalError,
): FastifyPlugin => {
  const identify = options.identify as Identify<FastifyRequest> | undefined;
  const plugin: FastifyPlugin = (instance, _options, done) => {
    instance.addHook('onRequest', (request, reply, next) => {
      try {
        if (recorder.enabled) {
          const res = reply.raw;
          const exchange = recorder.begin(request.method, request.headers, res);
          if (exchange) {
            exchanges.set(request.raw, exchange);
            res.on('close', () => {
              try {
                const route = request.routeOptions?.url;
                recorder.finish(
                  exchange,
                  {
                    res,
                    route,
                    url: request.url,
                    params: route === undefined ? undefined : request.params,
                    query: request.query,
                    requestBody: request.body,
                    ip: request.ip,
                    userAgent: request.headers['user-agent'],
                  },
                  identify,
                  request,
                );
              } catch (error) {
                onInternalError(error);
              }
            });
          }
        }
      } catch (error) {
        onInternalError(error);
      }
      next();
    });
    instance.addHook('onError', (request, _reply, error, next) => {
      noteError(exchanges.get(request.raw), error);
      next();
    });
    if (recorder.captureResponseBody) {
      instance.addHook('preSerialization', (request, _reply, payload, next) => {
        const exchange = exchanges.get(request.raw);
        if (exchange) exchange.responseBody = payload;
        next(null, payload);
      });
    }
    done();
  };
  return Object.assign(plugin, {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: '@watchlog/node',
    [Symbol.for('plugin-meta')]: { name: '@watchlog/node' },
  });
};
