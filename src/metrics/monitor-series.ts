import { Gauge, type Registry } from 'prom-client';

/** What the series need of a monitor (the monitors read model's view has it). */
export interface MonitorState {
  id: string;
  name: string;
  project_id: string;
  type: string;
  status: string;
  last_response_ms: number | null;
  last_certificate: { valid_to: string } | null;
}

/** Where the monitors are read from at each scrape. */
export interface MonitorStates {
  list(scope: { all: true }): Promise<readonly MonitorState[]>;
}

/** Per-monitor series, read from the monitors read model on each scrape: a deployment gets three
 *  series per monitor (two for a monitor that has not seen a certificate), labelled by monitor
 *  id, name, project and kind. A deleted monitor's series go with the next scrape. */
export class MonitorSeries {
  private readonly up;
  private readonly response;
  private readonly certificate;

  constructor(registry: Registry) {
    const labelNames = ['monitor_id', 'name', 'project_id', 'type'] as const;
    const registers = [registry];
    this.up = new Gauge({
      name: 'watchlog_monitor_up',
      help: 'A monitor is UP (1) or DOWN (0); absent until its first check.',
      labelNames,
      registers,
    });
    this.response = new Gauge({
      name: 'watchlog_monitor_response_seconds',
      help: "A monitor's last check's response time.",
      labelNames,
      registers,
    });
    this.certificate = new Gauge({
      name: 'watchlog_monitor_certificate_expiry_timestamp_seconds',
      help: 'When the certificate a monitor last saw expires (Unix time).',
      labelNames,
      registers,
    });
  }

  set(monitors: readonly MonitorState[]): void {
    this.up.reset();
    this.response.reset();
    this.certificate.reset();
    for (const m of monitors) {
      const labels = { monitor_id: m.id, name: m.name, project_id: m.project_id, type: m.type };
      if (m.status !== 'PENDING') this.up.set(labels, m.status === 'UP' ? 1 : 0);
      if (m.last_response_ms !== null) this.response.set(labels, m.last_response_ms / 1000);
      const expires = m.last_certificate === null ? NaN : Date.parse(m.last_certificate.valid_to);
      if (Number.isFinite(expires)) this.certificate.set(labels, expires / 1000);
    }
  }
}
