import * as t from 'io-ts';
import { Liveness, ReadinessAnswer, errorBody } from './answers.ts';
import { json, operation } from './operation.ts';

/** Liveness apart from readiness: a platform restarts what is dead and routes only to what is ready. */

export const healthOperations = {
  liveness: operation({
    method: 'get',
    path: '/healthz',
    tag: 'Operations',
    auth: 'none',
    ignoresQuery: true,
    summary: 'Liveness',
    description: 'The process answers. Takes any query parameter.',
    responses: { 200: json('alive', Liveness, { status: 'ok' }) },
  }),
  readiness: operation({
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    auth: 'none',
    ignoresQuery: true,
    summary: 'Readiness',
    description:
      'Whether a request would succeed now: the bootstrap is done, the log takes writes, and every ' +
      'read model the API answers from has a projector and is no more than `WATCHLOG_READY_MAX_LAG_MS` ' +
      'behind. Each part says why not.',
    responses: {
      200: json('ready', ReadinessAnswer),
      503: json(
        'not ready (each part and why), or the server is shutting down',
        t.union([ReadinessAnswer, errorBody(503)]),
      ),
    },
  }),
};
