import { MonitorSeries, type MonitorStates } from './monitor-series.ts';
import { SinkSeries, type SinkSeriesSource } from './sink-series.ts';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { SKIP_REASONS } from '../domain/otlp-mapping.ts';
import type { Logger } from 'pino';
import {
  comparePositions,
  type CommitObserver,
  type CommitStats,
  type EventLog,
  type LogObserver,
} from '../log/event-log.ts';
import type { HttpMetrics, MetricsSource } from '../http/metrics.ts';
import type { CheckOutcome, JobMetrics, ScanOutcome } from '../jobs/metrics.ts';
import {
  DELIVERY_OUTCOMES,
  type DeliveryOutcome,
  type NotificationMetrics,
} from '../reactors/notifications/metrics.ts';
import { CHANNEL_TYPES, type ChannelType } from '../domain/channel.ts';

/** The service's metrics: one prom-client registry per process, built here and handed down as
 *  the small interfaces each layer declares (HttpMetrics, JobMetrics, NotificationMetrics, the
 *  log's CommitObserver), so nothing outside src/metrics/ imports prom-client. Every name, label
 *  and bucket is in this file; docs/operations.md#metrics explains them.
 *
 *  Labels take a few fixed values each (a route template, an outcome, a channel type, a
 *  projection's name), never a project, user, path or URL. Projection positions, the log head
 *  and the writer's state are read when scraped, from the stores this process has open: they are
 *  right whichever thread or process projects (`watchlog start` projects on a thread of its own,
 *  workers share the read store). */

/** A projection's checkpoint, as the read store keeps it (the registry's runners, and the
 *  notification reactor's deliveries). */
export interface Checkpointed {
  readonly name: string;
  checkpoint(): Promise<string | null>;
}

export interface Telemetry extends HttpMetrics, JobMetrics, NotificationMetrics, MetricsSource, LogObserver {
  readonly registry: Registry;
  /** The log's commit observer (bound: pass it as it is). */
  readonly committed: CommitObserver;
  /** Events the log's reads skipped that maxCount hides but the store keeps (bound). */
  readonly unscavenged: (events: number) => void;
  /** On each scrape, read the log's head and writer state, each projection's checkpoint, and
   *  (given `monitors`, `sinks`) every monitor's and log sink's state for their series. */
  watch(log: EventLog, projections: readonly Checkpointed[], monitors?: MonitorStates, sinks?: SinkSeriesSource): void;
}

export interface TelemetryOptions {
  role: string;
  version: string;
  logger: Logger;
  /** prom-client's process and Node.js metrics (default true; tests that start many servers in
   *  one process leave them out). */
  defaultMetrics?: boolean;
  /** The clock that stamps events' `recorded_at`, on which their age is read (default: the
   *  wall clock). */
  clock?: () => Date;
}

/** An ingest answer's status, as the reason label of a rejection. */
export const rejectionReason = (status: number): string => REASONS[status] ?? 'error';
const REASONS: Record<number, string> = {
  400: 'validation',
  401: 'api_key',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
  503: 'log_unavailable',
};
/** Every value rejectionReason gives. */
const REJECTION_REASONS: readonly string[] = [...Object.values(REASONS), 'error'];

const CHECK_OUTCOMES: readonly CheckOutcome[] = ['up', 'down', 'blocked', 'error'];
const SCAN_OUTCOMES: readonly ScanOutcome[] = ['done', 'skipped', 'failed'];

/** Buckets, in seconds unless named otherwise. */
const BUCKETS = {
  /** An ingest: a group commit's fsync, typically a few milliseconds. */
  ingest: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  /** A read request: index lookups, up to exports and statistics over long ranges. */
  query: [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  commit: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  /** Appends per commit. */
  appends: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500],
  /** A check's probe: up to its timeout (at most 60 s). */
  probe: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  /** A check's start after its schedule: Agenda polls every 500 ms. */
  lateness: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  /** A delivery, with its retries and their backoff. */
  delivery: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  scan: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
};

const toNumber = (position: string | null): number => (position === null ? 0 : Number(position));

class PrometheusTelemetry implements Telemetry {
  readonly registry = new Registry();
  private readonly logger: Logger;
  private readonly clock: () => Date;
  private watched: {
    log: EventLog;
    projections: readonly Checkpointed[];
    monitors?: MonitorStates | undefined;
    sinks?: SinkSeriesSource | undefined;
  } | null = null;
  private readonly monitorSeries = new MonitorSeries(this.registry);
  private readonly sinkSeries = new SinkSeries(this.registry);

  private readonly ingestAccepted;
  private readonly ingestRejected;
  private readonly ingestDuration;
  private readonly queryDuration;
  private readonly commitDuration;
  private readonly unscavengedEvents;
  private readonly commitAppends;
  private readonly appendedEvents;
  private readonly writerUp;
  private readonly head;
  private readonly projectionPosition;
  private readonly projectionLag;
  private readonly projectionLagSeconds;
  private readonly checks;
  private readonly checkDuration;
  private readonly checkLateness;
  private readonly notifications;
  private readonly deliveryDuration;
  private readonly scans;
  private readonly scanDuration;
  private readonly refreshFailures;
  private readonly batches;
  private readonly batchEvents;
  private readonly batchesQueued;
  private readonly otlpDropped;

  constructor({ role, version, logger, defaultMetrics = true, clock = () => new Date() }: TelemetryOptions) {
    this.logger = logger;
    this.clock = clock;
    const registers = [this.registry];
    if (defaultMetrics) collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'watchlog_build_info',
      help: 'Always 1: the version of watchlog and the role of this process.',
      labelNames: ['version', 'role'],
      registers,
    }).set({ version, role }, 1);

    this.ingestAccepted = new Counter({
      name: 'watchlog_ingest_accepted_total',
      help: 'Audit events accepted by POST /v1/audit (202: durably in the log).',
      registers,
    });
    this.ingestRejected = new Counter({
      name: 'watchlog_ingest_rejected_total',
      labelNames: ['reason'],
      registers,
      help:
        'POST /v1/audit requests refused, by reason: validation (400), api_key (401), payload_too_large ' +
        '(413), unsupported_media_type (415), too_many_requests (429), log_unavailable (503), error ' +
        '(other).',
    });
    for (const reason of REJECTION_REASONS) this.ingestRejected.inc({ reason }, 0);
    this.ingestDuration = new Histogram({
      name: 'watchlog_ingest_duration_seconds',
      labelNames: ['outcome'],
      buckets: BUCKETS.ingest,
      registers,
      help: 'Time to answer POST /v1/audit, by outcome (accepted or rejected).',
    });
    this.batches = new Counter({
      name: 'watchlog_ingest_batches_total',
      labelNames: ['outcome'],
      registers,
      help:
        'POST /v1/audit/batch requests, by outcome: accepted (202: every accepted event durably in the ' +
        'log), or refused whole, under the reasons of watchlog_ingest_rejected_total.',
    });
    for (const outcome of ['accepted', ...REJECTION_REASONS]) this.batches.inc({ outcome }, 0);
    this.batchEvents = new Counter({
      name: 'watchlog_ingest_batch_events_total',
      labelNames: ['outcome'],
      registers,
      help:
        'Events of the batches whose body was decoded, by outcome: accepted (stored, or a replay of a ' +
        "stored one) or rejected (named in the answer's rejected list).",
    });
    for (const outcome of ['accepted', 'rejected']) this.batchEvents.inc({ outcome }, 0);
    this.otlpDropped = new Counter({
      name: 'watchlog_otlp_spans_dropped_total',
      labelNames: ['reason'],
      registers,
      help:
        'Spans of OTLP exports not recorded as audit events, by reason: not_server (kind not SERVER), ' +
        'not_http (no HTTP method attribute), unsupported_method (per the project setting), no_path, ' +
        "invalid (refused: counted in the answer's partial_success).",
    });
    for (const reason of [...SKIP_REASONS, 'invalid']) this.otlpDropped.inc({ reason }, 0);
    this.batchesQueued = new Gauge({
      name: 'watchlog_ingest_batches_waiting',
      registers,
      help: 'Batches waiting for their turn, WATCHLOG_BATCH_CONCURRENCY being worked on.',
    });
    this.queryDuration = new Histogram({
      name: 'watchlog_query_duration_seconds',
      labelNames: ['route'],
      buckets: BUCKETS.query,
      registers,
      help: 'Time to answer a read request (GET or HEAD under /v1/) up to its headers, by route template.',
    });

    this.commitDuration = new Histogram({
      name: 'watchlog_log_commit_duration_seconds',
      buckets: BUCKETS.commit,
      registers,
      help:
        "Time of one commit of the event log's writer (embedded log: one group-committed transaction " +
        'with its fsync; KurrentDB: one append).',
    });
    this.commitAppends = new Histogram({
      name: 'watchlog_log_commit_appends',
      buckets: BUCKETS.appends,
      registers,
      help: "Appends (requests) that shared one commit of the event log's writer: the group commit's batch size.",
    });
    this.appendedEvents = new Counter({
      name: 'watchlog_log_appended_events_total',
      help: 'Events this process stored in the event log.',
      registers,
    });
    this.unscavengedEvents = new Counter({
      name: 'watchlog_log_unscavenged_events_total',
      registers,
      help:
        "Events this process's reads of the log skipped because their stream's maxCount hides them while " +
        'the store still keeps them (KurrentDB until a scavenge). Growing without end: nothing scavenges.',
    });
    this.writerUp = new Gauge({
      name: 'watchlog_log_writer_up',
      registers,
      help:
        "1 when the event log can take appends (the embedded log's writer thread runs), 0 while it is " +
        'down and restarting.',
    });
    this.head = new Gauge({
      name: 'watchlog_log_head_position',
      help: 'Position of the last event in the log (0 when empty).',
      registers,
    });

    this.projectionPosition = new Gauge({
      name: 'watchlog_projection_position',
      labelNames: ['projection'],
      registers,
      help:
        'Log position of the last event each projection has applied (its checkpoint); ' +
        'projection="notifications" is the notification reactor.',
    });
    this.projectionLag = new Gauge({
      name: 'watchlog_projection_lag_positions',
      labelNames: ['projection'],
      registers,
      help:
        "Log head minus the projection's position: events appended since (embedded log), bytes of log " +
        '(KurrentDB); 0 when caught up.',
    });
    this.projectionLagSeconds = new Gauge({
      name: 'watchlog_projection_lag_seconds',
      labelNames: ['projection'],
      registers,
      help: 'Age of the oldest event the projection has not applied yet (by its recorded time); 0 when caught up.',
    });

    this.checks = new Counter({
      name: 'watchlog_monitor_checks_total',
      labelNames: ['outcome'],
      registers,
      help: 'Monitor checks, by outcome: up, down, blocked (egress policy), error (not run or not recorded).',
    });
    for (const outcome of CHECK_OUTCOMES) this.checks.inc({ outcome }, 0);
    this.checkDuration = new Histogram({
      name: 'watchlog_monitor_check_duration_seconds',
      buckets: BUCKETS.probe,
      registers,
      help: "Time of a monitor check's HTTP probe.",
    });
    this.checkLateness = new Histogram({
      name: 'watchlog_monitor_check_lateness_seconds',
      buckets: BUCKETS.lateness,
      registers,
      help: 'How long after its schedule (previous check plus interval) a monitor check started.',
    });

    this.notifications = new Counter({
      name: 'watchlog_notifications_total',
      labelNames: ['channel_type', 'outcome'],
      registers,
      help:
        'Notification deliveries, by channel type and outcome: sent, failed (after its tries), stale ' +
        "(older than the delivery window, not sent), quiet (inside the channel's quiet period, not sent), " +
        'maintenance (a transition inside a maintenance window, not sent).',
    });
    for (const channel_type of CHANNEL_TYPES)
      for (const outcome of DELIVERY_OUTCOMES) this.notifications.inc({ channel_type, outcome }, 0);
    this.deliveryDuration = new Histogram({
      name: 'watchlog_notification_delivery_duration_seconds',
      labelNames: ['channel_type'],
      buckets: BUCKETS.delivery,
      registers,
      help: 'Time of a notification delivery, its tries and their backoff included.',
    });

    this.scans = new Counter({
      name: 'watchlog_anomaly_scans_total',
      labelNames: ['outcome'],
      registers,
      help: 'Anomaly scans, by outcome: done, skipped (read models behind the log), failed.',
    });
    for (const outcome of SCAN_OUTCOMES) this.scans.inc({ outcome }, 0);
    this.scanDuration = new Histogram({
      name: 'watchlog_anomaly_scan_duration_seconds',
      buckets: BUCKETS.scan,
      registers,
      help: 'Time of one anomaly scan.',
    });

    this.refreshFailures = new Counter({
      name: 'watchlog_metrics_refresh_failures_total',
      registers,
      help:
        'Scrapes for which the log head or a projection checkpoint could not be read (those gauges then ' +
        'keep their previous values).',
    });
  }

  readonly unscavenged = (events: number): void => {
    this.unscavengedEvents.inc(events);
  };

  readonly committed = (stats: CommitStats): void => {
    this.commitDuration.observe(stats.seconds);
    this.commitAppends.observe(stats.appends);
    this.appendedEvents.inc(stats.events);
  };

  ingested(status: number, seconds: number): void {
    const accepted = status === 202;
    if (accepted) this.ingestAccepted.inc();
    else this.ingestRejected.inc({ reason: rejectionReason(status) });
    this.ingestDuration.observe({ outcome: accepted ? 'accepted' : 'rejected' }, seconds);
  }

  queried(route: string, seconds: number): void {
    this.queryDuration.observe({ route }, seconds);
  }

  batchIngested(status: number, events: { accepted: number; rejected: number } | null): void {
    this.batches.inc({ outcome: status === 202 ? 'accepted' : rejectionReason(status) });
    if (events === null) return;
    this.batchEvents.inc({ outcome: 'accepted' }, events.accepted);
    this.batchEvents.inc({ outcome: 'rejected' }, events.rejected);
  }

  otlpSpansDropped(reason: string, spans: number): void {
    this.otlpDropped.inc({ reason }, spans);
  }

  batchesWaiting(count: number): void {
    this.batchesQueued.set(count);
  }

  checked(outcome: CheckOutcome, responseSeconds: number | null, latenessSeconds: number | null): void {
    this.checks.inc({ outcome });
    if (responseSeconds !== null) this.checkDuration.observe(responseSeconds);
    if (latenessSeconds !== null) this.checkLateness.observe(latenessSeconds);
  }

  scanned(outcome: ScanOutcome, seconds: number): void {
    this.scans.inc({ outcome });
    this.scanDuration.observe(seconds);
  }

  delivered(channelType: ChannelType, outcome: DeliveryOutcome, seconds: number): void {
    this.notifications.inc({ channel_type: channelType, outcome });
    if (outcome === 'sent' || outcome === 'failed')
      this.deliveryDuration.observe({ channel_type: channelType }, seconds);
  }

  watch(log: EventLog, projections: readonly Checkpointed[], monitors?: MonitorStates, sinks?: SinkSeriesSource): void {
    this.watched = { log, projections, monitors, sinks };
  }

  async scrape(): Promise<{ contentType: string; body: string }> {
    await this.refresh();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** The gauges read from the stores: one read of the head, one of each checkpoint, and one
   *  event per distinct position behind the head (for its age). */
  private async refresh(): Promise<void> {
    const watched = this.watched;
    if (!watched) return;
    this.writerUp.set(watched.log.health().ok ? 1 : 0);
    try {
      const now = this.clock().getTime();
      const head = await watched.log.headPosition();
      const positions = await Promise.all(
        watched.projections.map(async (p) => ({ name: p.name, position: await p.checkpoint() })),
      );
      const oldestUnapplied = new Map<string | null, Promise<number>>();
      const ageAfter = (position: string | null) => {
        let age = oldestUnapplied.get(position);
        if (age === undefined) {
          age = watched.log.readAll(position, 1).then(([next]) => {
            const recordedAt = next ? Date.parse(next.metadata.recorded_at) : NaN;
            return Number.isFinite(recordedAt) ? Math.max(0, (now - recordedAt) / 1000) : 0;
          });
          oldestUnapplied.set(position, age);
        }
        return age;
      };
      const ages = await Promise.all(
        positions.map(({ position }) => (comparePositions(position, head) < 0 ? ageAfter(position) : 0)),
      );
      this.head.set(toNumber(head));
      positions.forEach(({ name, position }, i) => {
        this.projectionPosition.set({ projection: name }, toNumber(position));
        this.projectionLag.set({ projection: name }, Math.max(0, toNumber(head) - toNumber(position)));
        this.projectionLagSeconds.set({ projection: name }, ages[i]!);
      });
    } catch (err) {
      this.refreshFailures.inc();
      this.logger.warn({ err }, 'metrics: could not read the log head or the projection checkpoints');
    }
    try {
      if (watched.monitors) this.monitorSeries.set(await watched.monitors.list({ all: true }));
      if (watched.sinks) this.sinkSeries.set(await watched.sinks.list());
    } catch (err) {
      this.refreshFailures.inc();
      this.logger.warn({ err }, 'metrics: could not read the monitors or the log sinks');
    }
  }
}

export const createTelemetry = (options: TelemetryOptions): Telemetry => new PrometheusTelemetry(options);
