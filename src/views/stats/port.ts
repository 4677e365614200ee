import type { ExpiredRange } from '../../domain/retention.ts';
import type { ServiceActivity } from '../../domain/anomaly.ts';
import type { Scope } from '../../domain/scope.ts';
import type { StatsBucket } from '../../domain/stats.ts';

export interface StatsWriter {
  /** Adds one event's contribution to its minute bucket and its hour roll-up; `position` makes
   *  replays harmless. */
  add(contribution: StatsBucket, position: string): void;
  /** Drops the project's buckets that lie wholly before `range.before` (retention). */
  expire(range: ExpiredRange): void;
}

export interface StatsFilter {
  project_id?: string;
  service_name?: string;
  environment?: string;
  /** Bucket minutes from..to, inclusive, epoch ms. */
  from: number;
  to: number;
  /** Whether whole hours may come from the hour roll-up (not when the timeline is per minute). */
  hourly: boolean;
}

export interface ServiceKey {
  project_id: string;
  service_name: string;
}

export interface ServiceBaselineRow {
  service_name: string;
  first_minute: number;
  sum: number;
  sum_squares: number;
}

export interface StatsQueries {
  buckets(filter: StatsFilter, scope: Scope): Promise<StatsBucket[]>;
  /** The volume baselines of a project's services: their per-minute event counts (all
   *  environments together) over the minutes [from, to), epoch ms, summarised as the first minute
   *  with events and the sum and sum of squares of the counts. Services without events in the
   *  range are absent. */
  serviceBaselines(projectId: string, from: number, to: number): Promise<ServiceBaselineRow[]>;
  /** Every service with events in the minutes from `from` (epoch ms) on: how many, and its last
   *  event and that event's environment. Whole hours come from the hour roll-up. */
  serviceActivity(from: number): Promise<ServiceActivity[]>;
}
