import http from 'node:http';
import { once } from 'node:events';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createMetricsApp, type MetricsSource } from '../http/metrics.ts';
import { StartupError } from '../startup-error.ts';

export interface MetricsServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** The metrics port (`WATCHLOG_METRICS_PORT` on `WATCHLOG_METRICS_HOST`): `GET /metrics` only,
 *  behind `WATCHLOG_METRICS_TOKEN` when that is set too. Null when no port is configured. */
export const startMetricsServer = async (
  source: MetricsSource,
  config: Pick<Config, 'metrics'>,
  logger: Logger,
): Promise<MetricsServer | null> => {
  const { port, host, token } = config.metrics;
  if (port === undefined) return null;
  const server = http.createServer(createMetricsApp(source, token, logger).callback());
  server.keepAliveTimeout = 5_000;
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StartupError(
      code === 'EADDRINUSE'
        ? `metrics port ${port} on ${host} is already in use (set WATCHLOG_METRICS_PORT)`
        : `cannot listen on ${host}:${port} for metrics (WATCHLOG_METRICS_HOST, WATCHLOG_METRICS_PORT): ` +
            `${(error as Error).message}`,
    );
  }
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    port: bound,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
};
