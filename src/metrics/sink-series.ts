import { Gauge, type Registry } from 'prom-client';

/** What the series need of a log sink: its view and its status (src/reactors/sinks/status.ts). */
export interface SinkSeriesRow {
  id: string;
  project_id: string;
  type: string;
  state: 'active' | 'degraded' | 'paused';
  lag_records: number;
  lag_seconds: number;
  failures: number;
  forwarded_total: number;
}

/** Where the sinks are read from at each scrape. */
export interface SinkSeriesSource {
  list(): Promise<readonly SinkSeriesRow[]>;
}

/** Per-sink series, read on each scrape as `GET /v1/projects/:id/sinks/:sinkId` reads them,
 *  labelled by sink id, project and type. A deleted sink's series go with the next scrape. */
export class SinkSeries {
  private readonly gauges;

  constructor(registry: Registry) {
    const labelNames = ['sink_id', 'project_id', 'type'] as const;
    const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames, registers: [registry] });
    this.gauges = {
      degraded: gauge('watchlog_sink_degraded', 'A log sink is degraded (1: its tries keep failing) or not (0).'),
      paused: gauge('watchlog_sink_paused', 'A log sink is paused (1) or forwarding (0).'),
      lagRecords: gauge(
        'watchlog_sink_lag_records',
        'Records a log sink takes that are in the log and not yet taken by its destination (a floor past 100,000).',
      ),
      lagSeconds: gauge('watchlog_sink_lag_seconds', 'Age of the oldest record a log sink has still to forward.'),
      failures: gauge('watchlog_sink_failures', "A log sink's failed tries in a row (0 once a batch gets through)."),
      forwarded: gauge(
        'watchlog_sink_forwarded_records',
        'Records a log sink has forwarded (taken by its destination).',
      ),
    };
  }

  set(sinks: readonly SinkSeriesRow[]): void {
    for (const g of Object.values(this.gauges)) g.reset();
    for (const s of sinks) {
      const labels = { sink_id: s.id, project_id: s.project_id, type: s.type };
      this.gauges.degraded.set(labels, s.state === 'degraded' ? 1 : 0);
      this.gauges.paused.set(labels, s.state === 'paused' ? 1 : 0);
      this.gauges.lagRecords.set(labels, s.lag_records);
      this.gauges.lagSeconds.set(labels, s.lag_seconds);
      this.gauges.failures.set(labels, s.failures);
      this.gauges.forwarded.set(labels, s.forwarded_total);
    }
  }
}
