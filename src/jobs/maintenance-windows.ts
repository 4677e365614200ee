import type { Logger } from 'pino';
import { coversMonitor } from '../domain/maintenance.ts';
import { occurrencesBetween, type Occurrence } from '../domain/maintenance-schedule.ts';
import type { MaintenanceView, MaintenancesQueries } from '../views/maintenances/port.ts';

/** How old the list of windows a check consults may be: a window created, changed or deleted
 *  reaches the checks within about this long. */
export const WINDOWS_REFRESH_MS = 1000;

/** How far before and after the time asked about one expansion of a schedule reaches. */
const SPAN_MS = 10 * 60_000;

/** The occurrence open at `at` among these: those that overlap it merged into one, from the
 *  earliest start to the latest end (as the domain's `openAt`). */
export const openIn = (occurrences: readonly Occurrence[], at: number): Occurrence | null => {
  let open: Occurrence | null = null;
  for (const o of occurrences) {
    if (o.start > at || at >= o.end) continue;
    open = open === null ? o : { start: Math.min(open.start, o.start), end: Math.max(open.end, o.end) };
  }
  return open;
};

interface Expanded {
  key: string;
  from: number;
  to: number;
  occurrences: Occurrence[];
}

/** The maintenance windows as one worker sees them, for its checks and its maintenance clock.
 *
 *  A worker checks up to 10,000 monitors every 10 s: a read of the maintenances read model per
 *  check (1,000 a second) would cost more than the checks' own recording, and expanding a
 *  recurring rule costs a millisecond or two. So the windows are listed at most once per
 *  `refreshMs` (one read at a time, whatever the number of checks waiting on it), indexed by
 *  project, and each window's schedule is expanded once for ten minutes around the time asked
 *  about; a check then costs a few comparisons. Whether a check is in maintenance is read from
 *  the schedules at its own time, not from the occurrence the maintenance clock last recorded,
 *  which lags by up to the clock's period: a DOWN a second into a window is inside it. */
export class MaintenanceWindows {
  private list: readonly MaintenanceView[] = [];
  private byProject = new Map<string, MaintenanceView[]>();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<readonly MaintenanceView[]> | null = null;
  private readonly expanded = new Map<string, Expanded>();
  private failing = false;
  private readonly refreshMs: number;

  constructor(
    private readonly queries: Pick<MaintenancesQueries, 'all'>,
    private readonly logger: Logger,
    options: { refreshMs?: number } = {},
  ) {
    this.refreshMs = options.refreshMs ?? WINDOWS_REFRESH_MS;
  }

  /** Lists the windows again now (a read under way is shared). A failed read keeps the last
   *  list: checks go on, judged on what was last known. */
  reload(): Promise<readonly MaintenanceView[]> {
    this.reading ??= this.read().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  private async read(): Promise<readonly MaintenanceView[]> {
    this.readAt = Date.now();
    try {
      const list = await this.queries.all();
      this.list = list;
      this.byProject = new Map();
      for (const w of list) {
        const same = this.byProject.get(w.project_id);
        if (same) same.push(w);
        else this.byProject.set(w.project_id, [w]);
      }
      const ids = new Set(list.map((w) => w.id));
      for (const id of this.expanded.keys()) if (!ids.has(id)) this.expanded.delete(id);
      if (this.failing) this.logger.info('maintenance windows read again');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn({ err }, 'could not read the maintenance windows; using the last ones read');
      this.failing = true;
    }
    return this.list;
  }

  /** The windows, listed again when the last list is older than `refreshMs`. */
  async windows(): Promise<readonly MaintenanceView[]> {
    if (Date.now() - this.readAt >= this.refreshMs) await this.reload();
    return this.list;
  }

  /** The occurrence of `window` open at `at` (epoch ms), or null. */
  openAt(window: Pick<MaintenanceView, 'id' | 'schedule'>, at: number): Occurrence | null {
    const key = JSON.stringify(window.schedule);
    let e = this.expanded.get(window.id);
    if (e === undefined || e.key !== key || at < e.from || at >= e.to) {
      const from = at - SPAN_MS;
      const to = at + SPAN_MS;
      e = { key, from, to, occurrences: this.expand(window, from, to) };
      this.expanded.set(window.id, e);
    }
    return openIn(e.occurrences, at);
  }

  /** A rule the domain accepted expands; should one not, its window is never open here, and the
   *  checks go on. */
  private expand(window: Pick<MaintenanceView, 'id' | 'schedule'>, from: number, to: number): Occurrence[] {
    try {
      return occurrencesBetween(window.schedule, from, to);
    } catch (err) {
      this.logger.error({ err, maintenance_id: window.id }, "could not expand a maintenance window's schedule");
      return [];
    }
  }

  /** Whether a window of the project that covers the monitor is open at `at`. */
  async covers(projectId: string, monitorId: string, at: Date): Promise<boolean> {
    await this.windows();
    const time = at.getTime();
    return (this.byProject.get(projectId) ?? []).some(
      (w) => coversMonitor(w.monitor_ids, monitorId) && this.openAt(w, time) !== null,
    );
  }
}
