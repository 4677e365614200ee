import type { MetricsSource } from '../metrics.ts';
import { HttpError } from '../middleware/errors.ts';
import type { metricsOperations } from '../operations/metrics.ts';
import { type Handlers, ok } from '../operations/operation.ts';

/** Where the exposition comes from: on the API's port only when configured. */
export interface MetricsDeps {
  readonly metricsEndpoint?: { readonly source: MetricsSource };
}

/** The exposition of this process's metrics, in the Prometheus text format: on the API's port,
 *  or on a port of its own (`WATCHLOG_METRICS_PORT`). */
export const metricsHandlers: Handlers<typeof metricsOperations, MetricsDeps> = {
  scrape: async ({ ctx }, { metricsEndpoint }) => {
    if (metricsEndpoint === undefined) throw new HttpError(404, 'not_found', 'no such route');
    const { contentType, body } = await metricsEndpoint.source.scrape();
    ctx.type = contentType;
    return ok(body, { 'Cache-Control': 'no-store' });
  },
};
