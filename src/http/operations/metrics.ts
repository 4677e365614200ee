import { operation } from './operation.ts';

export const metricsOperations = {
  scrape: operation({
    method: 'get',
    path: '/metrics',
    tag: 'Operations',
    auth: 'metrics-token',
    servedBy: 'metrics',
    summary: 'Prometheus metrics',
    description:
      "Served on the API's port only when `WATCHLOG_METRICS_TOKEN` is set (404 otherwise), to requests " +
      'that carry it as a bearer token; `WATCHLOG_METRICS_PORT` serves it on a port of its own.',
    responses: {
      200: {
        description: 'the exposition',
        text: { mediaTypes: ['text/plain; version=0.0.4; charset=utf-8'], description: 'Prometheus text format' },
        headers: { 'Cache-Control': { description: '`no-store`', required: true } },
      },
    },
  }),
};
