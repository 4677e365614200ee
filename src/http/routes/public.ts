import type { Context } from 'koa';
import { uptimeAt } from '../../domain/monitor-uptime.ts';
import type { MonitorView } from '../../views/monitors/port.ts';
import type { RouteDeps } from '../deps.ts';
import { HttpError } from '../middleware/errors.ts';
import type { Handlers } from '../operations/operation.ts';
import type { publicOperations } from '../operations/public.ts';
import { STATUS_ASSET_CACHE, STATUS_ASSETS } from '../public/assets.ts';
import { replyWith, textAnswer } from '../public/reply.ts';
import { certificateBadge, responseBadge, statusBadge, uptimeBadge } from '../public/badge.ts';
import type { PublicKind } from '../public/cache.ts';
import { historyOf } from '../public/history-model.ts';
import { renderHistoryPage } from '../public/html.ts';
import type { PublicMonitorState } from '../public/status-model.ts';

/** The public pages and badges: answers from the public cache, with their ETag; 304 when the
 *  caller has it already. Never a monitor's URL, host or error: what is answered is built from
 *  the leak-free PublicStatus (src/http/public/status-model.ts). */

const HISTORY_PAGE_SIZE = 20;

const pageNotFound = () => new HttpError(404, 'not_found', 'status page not found');

const page = async (ctx: Context, deps: RouteDeps, slug: string, kind: PublicKind) => {
  const answer = await deps.publicAnswers.bySlug(slug, kind);
  if (answer === null) throw pageNotFound();
  return replyWith(ctx, answer);
};

const svg = (text: string) => textAnswer(text, 'image/svg+xml');

/** A monitor whose badges are public: on a published page, or marked `public_badges`. */
const badgeMonitor = async (deps: RouteDeps, id: string): Promise<MonitorView> => {
  const monitor = await deps.readModels.monitors.get(id, { all: true });
  const visible =
    monitor !== null &&
    (monitor.public_badges === true || (await deps.readModels.statusPages.publishedShowing(id)) > 0);
  if (!visible) throw new HttpError(404, 'not_found', 'monitor not found');
  return monitor;
};

const publicState = async (deps: RouteDeps, m: MonitorView): Promise<PublicMonitorState> => {
  if ((await deps.readModels.maintenances.openFor(m.project_id, m.id)).length > 0) return 'maintenance';
  if (!m.enabled || m.status === 'PENDING') return 'pending';
  return m.status === 'DOWN' ? 'down' : 'operational';
};

export const publicHandlers: Handlers<typeof publicOperations, RouteDeps> = {
  page: ({ ctx, params }, deps) => page(ctx, deps, params.slug, 'html'),
  summary: ({ ctx, params }, deps) => page(ctx, deps, params.slug, 'json'),
  feed: ({ ctx, params }, deps) => page(ctx, deps, params.slug, 'atom'),
  history: async ({ ctx, params, query }, deps) => {
    const shown = await deps.publicAnswers.page(params.slug);
    if (shown === null) throw pageNotFound();
    const [monitors, incidents] = await Promise.all([
      deps.readModels.monitors.list({ all: true }, shown.project_id),
      deps.readModels.incidents.shownSince(shown.project_id, '1970-01-01T00:00:00.000Z', 10_000),
    ]);
    const history = historyOf({
      page: shown,
      monitors,
      incidents,
      pageNumber: query.page ?? 1,
      limit: HISTORY_PAGE_SIZE,
      now: deps.now(),
      baseUrl: deps.publicUrl ?? null,
    });
    return replyWith(ctx, textAnswer(renderHistoryPage(history), 'text/html; charset=utf-8'));
  },
  asset: ({ ctx, params }) => {
    const asset = STATUS_ASSETS.get(`/status-assets/${params.file}`);
    if (asset === undefined) throw new HttpError(404, 'not_found', 'asset not found');
    const body = Buffer.from(asset.body, 'utf8');
    return replyWith(ctx, { etag: asset.etag, type: asset.type, body, gzip: null }, STATUS_ASSET_CACHE);
  },
  statusBadge: async ({ ctx, params }, deps) => {
    const m = await badgeMonitor(deps, params.monitor_id);
    return replyWith(ctx, svg(statusBadge(await publicState(deps, m))));
  },
  uptimeBadge: async ({ ctx, params, query }, deps) => {
    const m = await badgeMonitor(deps, params.monitor_id);
    const days = query.days ?? 30;
    const now = deps.now();
    const buckets = (
      await deps.readModels.monitors.uptimeDays([m.id], now.getTime() - (days - 1) * 86_400_000, now)
    ).get(m.id);
    const ok = (buckets ?? []).reduce((a, b) => a + b.ok, 0);
    const total = (buckets ?? []).reduce((a, b) => a + b.total, 0);
    return replyWith(ctx, svg(uptimeBadge(total === 0 ? null : ok / total, days)));
  },
  responseBadge: async ({ ctx, params }, deps) => {
    const m = await badgeMonitor(deps, params.monitor_id);
    const now = deps.now();
    const uptime = (await deps.readModels.monitors.uptime([m.id], now)).get(m.id) ?? uptimeAt([], [], now);
    return replyWith(ctx, svg(responseBadge(uptime.avg_response_ms_24h)));
  },
  certificateBadge: async ({ ctx, params }, deps) => {
    const m = await badgeMonitor(deps, params.monitor_id);
    const validTo = m.last_certificate?.valid_to;
    const left = validTo === undefined ? null : Math.floor((Date.parse(validTo) - deps.now().getTime()) / 86_400_000);
    return replyWith(ctx, svg(certificateBadge(left)));
  },
};
