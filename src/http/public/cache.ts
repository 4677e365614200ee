import { DAY_MS, uptimeDayOf, uptimeHourOf } from '../../domain/monitor-uptime.ts';
import type { ReadModelKey, ReadModels } from '../../views/read-models.ts';
import type { StatusPageView } from '../../views/status-pages/port.ts';
import { renderAtom } from './atom.ts';
import { etagOf, renderStatusPage } from './html.ts';
import { PAST_INCIDENT_DAYS, publicStatusOf, versionOf, type PublicStatus } from './status-model.ts';
import { summaryOf } from './summary.ts';
import { type CachedAnswer, textAnswer } from './reply.ts';

/** The public answers of status pages, built once per change of what they show.
 *
 *  Each page has a version in the status-pages read model: the log position of the last event
 *  that changed something the page shows (its settings, a monitor's state or a failed check, an
 *  incident, a maintenance window). A request reads that one value (a point read) and answers
 *  from memory while it is unchanged. What the clock alone moves (the day bars at midnight, a
 *  window coming into the 7 days of upcoming maintenance) is taken again at each UTC hour. So
 *  the cache changes with the events, not on a timer, and a page read by thousands costs one
 *  indexed read each, or less: the requests the server takes in at once (in the same turn of its
 *  event loop) share one read of a page's version. A read took 10 to 20 µs under load (its pages
 *  cold again by the next request), a tenth of a cached answer's whole cost (docs/benchmarks.md,
 *  "Status page"). Requests taken in together are answered as of that moment, as if they had
 *  come a little earlier; a request sent once an answer to a change has arrived comes in a later
 *  turn, and reads again.
 *
 *  The version moves when the status-pages projection applies an event, which may come before
 *  the monitors, incidents or maintenances read models have applied it: an answer is kept only
 *  once they have reached the version it was built for; until then it is served but built again
 *  at the next request. */

export type PublicKind = 'html' | 'json' | 'atom';
export type { CachedAnswer };

export interface PublicCacheDeps {
  readonly readModels: ReadModels;
  readonly now: () => Date;
  readonly publicUrl: string | null;
  /** Whether these read models have applied the log up to `position` (waits a little). */
  readonly caughtUp: (readModels: readonly ReadModelKey[], position: string) => Promise<boolean>;
  /** The deployment takes e-mail subscriptions: the page has the form. */
  readonly subscriptions: boolean;
}

const TYPES: Record<PublicKind, string> = {
  html: 'text/html; charset=utf-8',
  json: 'application/json; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
};

/** What a page's answers are built from beside the page itself. */
const SOURCES: readonly ReadModelKey[] = ['monitors', 'incidents', 'maintenances'];
/** A page never lists more incidents than this many of its project's (newest first). */
const MAX_INCIDENTS = 200;

const render = (kind: PublicKind, status: PublicStatus, subscribe: boolean): CachedAnswer => {
  if (kind === 'html') {
    // The form is part of what the page shows: turning subscriptions on changes its version.
    const version = subscribe ? `${versionOf(status)}.s` : versionOf(status);
    return textAnswer(renderStatusPage(status, version, { subscribe }), TYPES.html, etagOf(version));
  }
  return textAnswer(kind === 'json' ? JSON.stringify(summaryOf(status)) : renderAtom(status), TYPES[kind]);
};

interface Entry {
  readonly version: string;
  readonly hour: number;
  readonly answer: CachedAnswer;
}

export class PublicAnswers {
  /** By page id and kind. */
  private readonly entries = new Map<string, Entry>();
  /** Answers being built, shared by the requests that arrive meanwhile. */
  private readonly building = new Map<string, Promise<CachedAnswer | null>>();
  /** Which page a slug or domain last named: checked against the page's version at each use. */
  private readonly names = new Map<string, string>();
  /** Versions read in this turn of the event loop, by page id; emptied at its end. */
  private readonly versions = new Map<string, Promise<string | null>>();

  constructor(private readonly deps: PublicCacheDeps) {}

  /** The published page a slug names, as the public sees it; null: 404. */
  async bySlug(slug: string, kind: PublicKind): Promise<CachedAnswer | null> {
    return this.answer(`slug\n${slug}`, () => this.deps.readModels.statusPages.bySlug(slug), kind);
  }

  /** The published page served at a custom domain; null: not one of ours. */
  async byDomain(host: string, kind: PublicKind): Promise<CachedAnswer | null> {
    return this.answer(`domain\n${host}`, () => this.deps.readModels.statusPages.byDomain(host), kind);
  }

  /** The published page a slug names (for the history page and subscriptions), uncached. */
  async page(slug: string): Promise<StatusPageView | null> {
    const page = await this.deps.readModels.statusPages.bySlug(slug);
    return page?.published ? page : null;
  }

  private async answer(
    name: string,
    find: () => Promise<StatusPageView | null>,
    kind: PublicKind,
  ): Promise<CachedAnswer | null> {
    const hour = uptimeHourOf(this.deps.now());
    const known = this.names.get(name);
    if (known !== undefined) {
      const version = await this.version(known);
      const entry = this.entries.get(`${known}\n${kind}`);
      if (version !== null && entry !== undefined && entry.version === version && entry.hour === hour)
        return entry.answer;
    }
    const key = `${name}\n${kind}`;
    const pending = this.building.get(key);
    if (pending !== undefined) return pending;
    const built = this.build(name, find, kind, hour).finally(() => this.building.delete(key));
    this.building.set(key, built);
    return built;
  }

  private async build(
    name: string,
    find: () => Promise<StatusPageView | null>,
    kind: PublicKind,
    hour: number,
  ): Promise<CachedAnswer | null> {
    const page = await find();
    if (page === null || !page.published) {
      this.names.delete(name);
      return null;
    }
    const version = await this.version(page.id);
    if (version === null) return null;
    const settled = await this.deps.caughtUp(SOURCES, version);
    const answer = render(kind, await this.status(page), this.deps.subscriptions);
    this.names.set(name, page.id);
    if (settled) this.entries.set(`${page.id}\n${kind}`, { version, hour, answer });
    else this.entries.delete(`${page.id}\n${kind}`);
    return answer;
  }

  /** A page's version, read once for the requests of this turn of the event loop. */
  private version(pageId: string): Promise<string | null> {
    const known = this.versions.get(pageId);
    if (known !== undefined) return known;
    if (this.versions.size === 0) setImmediate(() => this.versions.clear());
    const read = this.deps.readModels.statusPages.version(pageId);
    this.versions.set(pageId, read);
    return read;
  }

  private async status(page: StatusPageView): Promise<PublicStatus> {
    const { readModels } = this.deps;
    const now = this.deps.now();
    const ids = [...new Set(page.groups.flatMap((g) => g.monitor_ids))];
    const firstDay = uptimeDayOf(now) - (page.show_uptime_days - 1) * DAY_MS;
    const since = new Date(now.getTime() - PAST_INCIDENT_DAYS * DAY_MS).toISOString();
    const [monitors, days, incidents, maintenances] = await Promise.all([
      readModels.monitors.list({ all: true }, page.project_id),
      readModels.monitors.uptimeDays(ids, firstDay, now),
      readModels.incidents.shownSince(page.project_id, since, MAX_INCIDENTS),
      readModels.maintenances.ofProject(page.project_id),
    ]);
    return publicStatusOf({ page, monitors, days, incidents, maintenances, now, baseUrl: this.deps.publicUrl });
  }
}
