import { randomUUID } from 'node:crypto';
import type { CommandContext } from '../commands/handle.ts';
import { openIncident, postIncidentUpdate } from '../commands/incidents.ts';
import { scheduleMaintenance } from '../commands/maintenances.ts';
import { createStatusPage } from '../commands/status-pages.ts';
import type { EventLog } from '../log/event-log.ts';

/** The demo's public status page: the shop's two monitors, the incident of the one that is down
 *  (with an update), and next Sunday's maintenance, so `/status/shop` has something to show. */

export const DEMO_STATUS_SLUG = 'shop';

export const demoStatusPage = async (log: EventLog, projectId: string, monitorIds: [string, string], now: number) => {
  const at = (minutesAgo: number): CommandContext => ({
    actor: 'system:demo',
    correlationId: randomUUID(),
    now: () => new Date(now - minutesAgo * 60_000),
  });
  const deps = { log };
  const [checkout, catalog] = monitorIds;
  await createStatusPage(
    deps,
    {
      project_id: projectId,
      slug: DEMO_STATUS_SLUG,
      title: 'Shop status',
      description: 'The storefront and the services behind it.',
      groups: [
        { name: 'Checkout', monitor_ids: [checkout] },
        { name: 'Catalog', monitor_ids: [catalog] },
      ],
      published: true,
      auto_incidents: true,
    },
    at(24 * 60),
  );
  const incident = await openIncident(
    deps,
    {
      project_id: projectId,
      title: 'Catalog unavailable',
      status: 'investigating',
      impact: 'major',
      monitor_ids: [catalog],
      message: 'Product pages fail to load. We are looking into it.',
    },
    at(35),
  );
  await postIncidentUpdate(
    deps,
    incident.id,
    { status: 'identified', message: 'A failed database migration; rolling it back.' },
    at(20),
  );
  const sunday = new Date(now);
  sunday.setUTCDate(sunday.getUTCDate() + ((7 - sunday.getUTCDay()) % 7 || 7));
  sunday.setUTCHours(2, 0, 0, 0);
  await scheduleMaintenance(
    deps,
    {
      project_id: projectId,
      title: 'Database upgrade',
      monitor_ids: 'all',
      starts_at: sunday.toISOString(),
      ends_at: new Date(sunday.getTime() + 3_600_000).toISOString(),
    },
    at(60),
  );
};
