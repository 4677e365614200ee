import type { AuthFailureSeries, ServiceSeries } from '../../domain/anomaly.ts';

/** 10-second buckets for the windowed anomaly rules. */

/** What one http event contributes to the anomaly windows. */
export interface WindowContribution {
  project_id: string;
  service_name: string;
  environment: string;
  identifier: string;
  method: string;
  status_code?: number | undefined;
  /** Epoch ms. */
  timestamp: number;
}

export interface AnomalyWindowsWriter {
  /** Adds the event to its service's 10-second bucket and, for a 401, to its identifier's.
   *  Buckets older than WINDOW_RETENTION_MS before the newest event are dropped as the
   *  projection goes, so the read model stays small. */
  add(contribution: WindowContribution, position: string): void;
}

export interface AnomalyWindowsQueries {
  /** Buckets from..to (bucket starts, inclusive) of every service with at least `minTotal`
   *  events in them. */
  serviceSeries(from: number, to: number, minTotal: number): Promise<ServiceSeries[]>;
  /** Buckets from..to of every identifier with at least `minCount` 401 answers in them. */
  authFailureSeries(from: number, to: number, minCount: number): Promise<AuthFailureSeries[]>;
}
