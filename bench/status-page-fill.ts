import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { newEvent, type CommandContext } from '../src/commands/handle.ts';
import { createMonitor } from '../src/commands/monitors.ts';
import { createProject } from '../src/commands/projects.ts';
import { seededRandom } from '../src/cli/demo-traffic.ts';
import { openLog } from '../src/compose/stores.ts';
import { DAY_MS } from '../src/domain/monitor-uptime.ts';
import type { CheckResult } from '../src/domain/monitor.ts';
import { checksStream } from '../src/domain/streams.ts';
import { embeddedLog } from './support.ts';

/** The status page section's page: 40 monitors in 5 groups, as a small SaaS shows its services,
 *  with 90 days of history, and the targets they check on 127.0.0.1. */

export const PAGE_GROUPS: ReadonlyArray<{ name: string; monitors: readonly string[] }> = [
  {
    name: 'Website',
    monitors: ['Storefront', 'Search', 'Product pages', 'Images CDN', 'Blog', 'Documentation', 'Sign-in', 'Account'],
  },
  {
    name: 'API',
    monitors: [
      'Public API',
      'Orders API',
      'Catalog API',
      'Inventory API',
      'Pricing API',
      'Webhooks',
      'GraphQL gateway',
      'Auth API',
      'File uploads',
      'Exports',
    ],
  },
  {
    name: 'Payments',
    monitors: ['Card payments', 'PayPal', 'Invoices', 'Refunds', 'Subscriptions', 'Fraud checks'],
  },
  {
    name: 'Infrastructure',
    monitors: [
      'EU-West region',
      'US-East region',
      'Database primary',
      'Read replicas',
      'Object storage',
      'Message queue',
      'Email delivery',
      'DNS',
    ],
  },
  {
    name: 'Integrations',
    monitors: [
      'Slack app',
      'Zapier',
      'Shopify sync',
      'Salesforce sync',
      'Google Sheets',
      'SSO (SAML)',
      'SCIM',
      'Mobile push',
    ],
  },
];

/** The page's monitors that the freshness measure makes fail: one of each group. */
export const TIMED = PAGE_GROUPS.map((g) => g.monitors[1]!);

export interface PageTargets {
  /** The URL a monitor named `name` checks. */
  urlOf(name: string): string;
  /** The URL of the k-th flapping monitor: failing 20 s, answering 20 s, each at its own phase. */
  flapUrl(k: number): string;
  /** The names whose target answers 503 while they are in it. */
  readonly failing: Set<string>;
  requests(): number;
  close(): Promise<void>;
}

const FLAP_MS = 20_000;

export const startPageTargets = async (): Promise<PageTargets> => {
  const failing = new Set<string>();
  let requests = 0;
  const body = JSON.stringify({ status: 'ok' });
  const server = http.createServer((req, res) => {
    requests += 1;
    const url = new URL(req.url ?? '/', 'http://x');
    const flap = /^\/flap\/(\d+)$/.exec(url.pathname);
    const down = flap
      ? Math.floor((Date.now() + Number(flap[1]) * 7_000) / FLAP_MS) % 2 === 1
      : failing.has(url.searchParams.get('name') ?? '');
    res.writeHead(down ? 503 : 200, { 'content-type': 'application/json' }).end(body);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    urlOf: (name) => `${base}/svc?name=${encodeURIComponent(name)}`,
    flapUrl: (k) => `${base}/flap/${k}`,
    failing,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

export interface PageFill {
  projectId: string;
  /** The page's monitors by name. */
  ids: ReadonlyMap<string, string>;
  /** Checks written into the history. */
  checks: number;
}

/** One check an hour over the last 90 days for each monitor: most days all OK, some with one
 *  failed check, a few worse, so that the bars and figures vary as a real page's do. */
const history = (seed: number, now: number): CheckResult[] => {
  const random = seededRandom(seed);
  const results: CheckResult[] = [];
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  for (let day = today - 89 * DAY_MS; day <= today; day += DAY_MS) {
    const r = random();
    const failures = r < 0.06 ? 1 : r < 0.08 ? 3 : r < 0.085 ? 12 : 0;
    const firstFailure = Math.floor(random() * (24 - failures));
    for (let hour = 0; hour < 24; hour += 1) {
      const at = day + hour * 3_600_000 + Math.floor(random() * 3_000_000);
      if (at > now - 60_000) break;
      const checked_at = new Date(at).toISOString();
      const failed = hour >= firstFailure && hour < firstFailure + failures;
      results.push(
        failed
          ? { checked_at, ok: false, status_code: 503, response_ms: 5 + Math.floor(random() * 50) }
          : { checked_at, ok: true, status_code: 200, response_ms: 20 + Math.floor(random() * 180) },
      );
    }
  }
  return results;
};

/** Writes the page's project and monitors, with their history, into an empty data dir's log
 *  (as `watchlog demo` writes its own: the API stamps a check with the time it is made, and 90
 *  days cannot be sent in the past). The server started on it afterwards projects them. */
export const fillPageHistory = async (dataDir: string, targets: PageTargets, now = Date.now()): Promise<PageFill> => {
  const log = await openLog(embeddedLog(dataDir), false);
  try {
    const ctx = (at: number): CommandContext => ({
      actor: 'system:bench',
      correlationId: randomUUID(),
      now: () => new Date(at),
    });
    const created = now - 90 * DAY_MS;
    const project = await createProject({ log }, 'Acme Cloud', ctx(created));
    const deps = { log, monitorsInProject: async () => 0, monitorsPerProject: 1000 };
    const ids = new Map<string, string>();
    let checks = 0;
    for (const name of PAGE_GROUPS.flatMap((g) => g.monitors)) {
      const { id } = await createMonitor(
        deps,
        { project_id: project.id, name, url: targets.urlOf(name), interval_seconds: 10, timeout_seconds: 5 },
        ctx(created),
      );
      ids.set(name, id);
      const results = history(ids.size, now);
      await log.append(
        checksStream(id),
        results.map((r) =>
          newEvent(
            { type: 'CheckRecorded', data: { monitor_id: id, project_id: project.id, ...r } },
            ctx(Date.parse(r.checked_at)),
          ),
        ),
        'any',
      );
      // A monitor's checks stream keeps its last 200 checks (a replay sees no more): live, the
      // read models applied the older ones as they came; here the server projects them all
      // at its start, so the stream keeps them.
      await log.setStreamMaxCount(checksStream(id), results.length + 100_000);
      checks += results.length;
    }
    // As the server's compaction job would have done with this history long ago: else its first
    // run, a minute after the start, compresses all of it while the section measures.
    await log.compact();
    return { projectId: project.id, ids, checks };
  } finally {
    await log.close();
  }
};
