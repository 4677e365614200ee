import type { ServiceCounts, ServiceSeries } from './anomaly.ts';

type Growing = ServiceSeries & { buckets: Map<number, ServiceCounts>; total: number; last_ts: number };

/** Gathers the anomaly windows' bucket rows, in any order, into one series per service; a
 *  series' environment is that of the row holding its latest event. Shared by the read-store
 *  adapters, which differ only in how they fetch the rows. */
export class ServiceSeriesBuilder {
  private readonly series = new Map<string, Growing>();

  add(
    bucket: number,
    projectId: string,
    serviceName: string,
    counts: ServiceCounts,
    environment: string,
    lastTs: number,
  ): void {
    const key = `${projectId}\u0000${serviceName}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        project_id: projectId,
        service_name: serviceName,
        environment,
        buckets: new Map(),
        total: 0,
        last_ts: lastTs,
      };
      this.series.set(key, s);
    }
    s.buckets.set(bucket, counts);
    s.total += counts.total;
    if (lastTs >= s.last_ts) {
      s.last_ts = lastTs;
      s.environment = environment;
    }
  }

  /** The series of the services with at least `minTotal` events in their rows. */
  build(minTotal: number): ServiceSeries[] {
    return [...this.series.values()]
      .filter((s) => s.total >= minTotal)
      .map(({ project_id, service_name, environment, buckets }) => ({
        project_id,
        service_name,
        environment,
        buckets,
      }));
  }
}
