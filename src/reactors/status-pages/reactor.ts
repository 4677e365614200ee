import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { scheduleSubscriberDelivery } from '../../commands/deliveries.ts';
import type { CommandContext } from '../../commands/handle.ts';
import { autoIncidentId, openAutoIncident, resolveAutoIncident } from '../../commands/incidents.ts';
import type { EgressPolicy } from '../../checks/egress.ts';
import { deliveryIdOf } from '../../domain/delivery.ts';
import type { DomainEvent } from '../../domain/events.ts';
import { upcoming } from '../../domain/maintenance-schedule.ts';
import type { SubscriberNotice } from '../../domain/subscriber-mail.ts';
import { subscriptionKey } from '../../domain/subscriber.ts';
import { comparePositions, type EventLog, type RecordedEvent } from '../../log/event-log.ts';
import type { ReadModelKey, ReadModels } from '../../views/read-models.ts';
import type { StatusPageView } from '../../views/status-pages/port.ts';
import type { Lease } from '../../views/store/port.ts';
import { batchDecoder, caughtUp } from '../../../projections/projector.ts';
import { DEFAULT_RETRY, type RetryOptions } from '../notifications/attempts.ts';
import { Lanes } from '../notifications/lanes.ts';
import type { Reactor, ReactorStates } from '../port.ts';
import { startAtHeadWhenNew } from '../start-at-head.ts';
import { oncePerAddress, pagesShowing, type Concerns } from './audience.ts';
import { deliverToSubscriber, type SubscriberMailSettings } from './mail.ts';
import type { PageEffectsStateWriter, PendingMail } from './state/port.ts';

export type { SubscriberMailSettings } from './mail.ts';

/** The reactor's name: its lease, and the checkpoint of its own state (no read model has it). */
export const PAGE_EFFECTS = 'status-page-effects';

/** Subscriber mail goes out through this many SMTP connections at most; a subscriber's messages
 *  always take the same one, in the order of the log. */
const MAIL_LANES = 4;

export interface PageEffectsDeps {
  log: EventLog;
  readModels: ReadModels;
  reactorStates: ReactorStates;
  logger: Logger;
  egress: EgressPolicy;
  /** The deployment's JWT secret: the links' key is derived from it. */
  jwtSecret: string;
  /** Subscriber mail; null without WATCHLOG_SMTP_HOST (automatic incidents only). */
  mail: SubscriberMailSettings | null;
  /** Transitions and news older than this when reached open nothing and mail no one. */
  maxAgeMs?: number;
  now?: () => Date;
  retry?: Partial<RetryOptions>;
  timeoutMs?: number;
}

/** Within a batch, the automatic incidents opened and resolved so far (not committed yet). */
type OpenByMonitor = Map<string, string[]>;

interface Effect {
  write(w: PageEffectsStateWriter): void;
  queue: PendingMail[];
}
const NONE: Effect = { write: () => undefined, queue: [] };

const laneOf = (subscriberId: string) =>
  `mail-${createHash('sha256').update(subscriberId).digest().readUInt8(0) % MAIL_LANES}`;

/** What status pages do on their own, following the log in a projector of its own (lease
 *  `status-page-effects`):
 *  - automatic incidents: a monitor confirmed DOWN (outside maintenance) that a page with
 *    `auto_incidents` shows opens an incident (its id from the DOWN's, so a replay finds it); its
 *    UP resolves the automatic incidents open for it;
 *  - subscriber mail: a subscription asked for gets its confirmation; a new incident, an incident
 *    update, a maintenance window scheduled or started is sent to the confirmed subscribers of
 *    the published pages that show it, once per address. Each message is a delivery
 *    (`delivery-{id}`, scheduled, then every try recorded) sent from lanes beside the projector
 *    with the notification reactor's backoff; what is queued is its state, committed with its
 *    checkpoint.
 *  Events older than `maxAgeMs` when reached do nothing but an UP's resolution: a worker back
 *  after a long stop mails no one about last month, and leaves no incident open for ever. */
export const pageEffectsReactor = (deps: PageEffectsDeps): Reactor => {
  const store = deps.reactorStates.stores.pageEffects;
  const reactorState = deps.reactorStates.pageEffects;
  const now = deps.now ?? (() => new Date());
  const maxAgeMs = deps.maxAgeMs ?? 3_600_000;
  const key = subscriptionKey(deps.jwtSecret);
  const ctx = (correlationId: string): CommandContext => ({ actor: 'system:status-pages', correlationId, now });
  let lease: Lease | null = null;

  const holding = async (): Promise<boolean> => {
    const held = lease === null ? null : await deps.reactorStates.leases.holderOf(PAGE_EFFECTS);
    return held !== null && held.holder === lease?.holder && held.expiresAt > Date.now();
  };

  const mail = deps.mail;
  const lanes =
    mail === null
      ? null
      : new Lanes(
          (id, signal) =>
            deliverToSubscriber(
              {
                log: deps.log,
                readModels: deps.readModels,
                logger: deps.logger,
                egress: deps.egress,
                mail,
                key,
                retry: { ...DEFAULT_RETRY, ...deps.retry },
                timeoutMs: deps.timeoutMs ?? 10_000,
                holding,
                ctx,
              },
              id,
              signal,
            ),
          (err, id) => deps.logger.error({ err, delivery_id: id }, 'subscriber mail could not be sent or recorded'),
        );

  /** Read models are projections too: let them reach this event before asking them. */
  const reach = async (keys: readonly ReadModelKey[], position: string): Promise<void> => {
    for (const k of keys) {
      if (!(await caughtUp(deps.readModels.stores[k], position, 30_000)))
        throw new Error(`${k} read model has not reached position ${position}`);
    }
  };

  const stale = (at: string) => now().getTime() - Date.parse(at) > maxAgeMs;

  const openFor = async (monitorId: string, batch: OpenByMonitor): Promise<string[]> =>
    batch.get(monitorId) ?? (await reactorState.autoOpen(monitorId));

  const wentDown = async (
    recorded: RecordedEvent,
    e: Extract<DomainEvent, { type: 'MonitorWentDown' }>['data'],
    batch: OpenByMonitor,
  ): Promise<Effect> => {
    if (e.in_maintenance === true || stale(e.went_down_at)) return NONE;
    await reach(['statusPages'], recorded.position);
    const pages = await deps.readModels.statusPages.autoIncidentPages(e.monitor_id);
    if (!pages.some((p) => p.project_id === e.project_id)) return NONE;
    await openAutoIncident(
      deps,
      {
        project_id: e.project_id,
        monitor_id: e.monitor_id,
        monitor_name: e.name,
        down_event_id: recorded.id,
        at: e.went_down_at,
      },
      ctx(recorded.id),
    );
    const incident = autoIncidentId(recorded.id);
    batch.set(e.monitor_id, [...new Set([...(await openFor(e.monitor_id, batch)), incident])]);
    return { write: (w) => w.autoOpened(e.monitor_id, incident), queue: [] };
  };

  const cameUp = async (
    recorded: RecordedEvent,
    e: Extract<DomainEvent, { type: 'MonitorCameUp' }>['data'],
    batch: OpenByMonitor,
  ): Promise<Effect> => {
    await reach(['incidents'], recorded.position);
    const shown = (await deps.readModels.incidents.openAuto(e.monitor_id)).map((i) => i.id);
    const open = [...new Set([...(await openFor(e.monitor_id, batch)), ...shown])];
    if (open.length === 0) return NONE;
    for (const id of open) await resolveAutoIncident(deps, id, e.name, e.came_up_at, ctx(recorded.id));
    batch.set(e.monitor_id, []);
    return { write: (w) => w.autoResolved(e.monitor_id), queue: [] };
  };

  /** Schedules `notice` (made per page) to the confirmed subscribers of the pages showing it. */
  const mailShowing = async (
    recorded: RecordedEvent,
    projectId: string,
    concerns: Concerns,
    at: string,
    notice: (page: StatusPageView) => SubscriberNotice,
  ): Promise<Effect> => {
    if (stale(at)) return NONE;
    await reach(['statusPages', 'subscribers'], recorded.position);
    const pages = pagesShowing(await deps.readModels.statusPages.list({ all: true }, projectId), projectId, concerns);
    const byId = new Map(pages.map((p) => [p.id, p]));
    const recipients = oncePerAddress(await deps.readModels.subscribers.confirmed(pages.map((p) => p.id)));
    const queue: PendingMail[] = [];
    for (const r of recipients) {
      const delivery = { delivery_id: deliveryIdOf(recorded.id, r.id), subscriber_id: r.id };
      await scheduleSubscriberDelivery(
        deps,
        {
          ...delivery,
          page_id: r.page_id,
          project_id: projectId,
          event_id: recorded.id,
          notice: notice(byId.get(r.page_id)!),
        },
        ctx(recorded.id),
      );
      queue.push(delivery);
    }
    return {
      write: (w) => {
        for (const d of queue) w.queued(d, recorded.position);
      },
      queue,
    };
  };

  const pageRef = (p: StatusPageView) => ({ id: p.id, slug: p.slug, title: p.title });

  const effectOf = async (recorded: RecordedEvent, event: DomainEvent, batch: OpenByMonitor): Promise<Effect> => {
    const common = (projectId: string, page: StatusPageView, timestamp: string) => ({
      id: recorded.id,
      project_id: projectId,
      page: pageRef(page),
      timestamp,
    });
    switch (event.type) {
      case 'MonitorWentDown':
        return wentDown(recorded, event.data, batch);
      case 'MonitorCameUp':
        return cameUp(recorded, event.data, batch);
      case 'DeliveryAttempted':
        return 'subscriber_id' in event.data && event.data.final
          ? { write: (w) => w.settled(event.data.delivery_id), queue: [] }
          : NONE;
      case 'DeliveryCancelled':
        return 'subscriber_id' in event.data ? { write: (w) => w.settled(event.data.delivery_id), queue: [] } : NONE;
      default:
        break;
    }
    if (mail === null) return NONE;
    switch (event.type) {
      case 'SubscriberRequested': {
        const d = event.data;
        if (stale(d.requested_at)) return NONE;
        await reach(['statusPages'], recorded.position);
        const page = await deps.readModels.statusPages.get(d.page_id, { all: true });
        if (page === null) return NONE;
        const delivery = { delivery_id: deliveryIdOf(recorded.id, d.subscriber_id), subscriber_id: d.subscriber_id };
        const notice: SubscriberNotice = {
          ...common(d.project_id, page, d.requested_at),
          type: 'subscription.confirm',
        };
        await scheduleSubscriberDelivery(
          deps,
          { ...delivery, page_id: page.id, project_id: d.project_id, event_id: recorded.id, notice },
          ctx(recorded.id),
        );
        return { write: (w) => w.queued(delivery, recorded.position), queue: [delivery] };
      }
      case 'IncidentOpened': {
        const d = event.data;
        return mailShowing(recorded, d.project_id, d.monitor_ids, d.opened_at, (page) => ({
          ...common(d.project_id, page, d.opened_at),
          type: 'incident.opened',
          incident_id: d.incident_id,
          update_id: d.update_id,
          title: d.title,
        }));
      }
      case 'IncidentUpdatePosted': {
        const d = event.data;
        if (stale(d.posted_at)) return NONE;
        await reach(['incidents'], recorded.position);
        const incident = await deps.readModels.incidents.get(d.incident_id, { all: true });
        if (incident === null) return NONE;
        return mailShowing(recorded, d.project_id, incident.monitor_ids, d.posted_at, (page) => ({
          ...common(d.project_id, page, d.posted_at),
          type: 'incident.updated',
          incident_id: d.incident_id,
          update_id: d.update_id,
          title: incident.title,
        }));
      }
      case 'MaintenanceScheduled': {
        const d = event.data;
        const next = nextWindow(d.schedule, now().getTime());
        if (next === null) return NONE;
        return mailShowing(recorded, d.project_id, d.monitor_ids, d.created_at, (page) => ({
          ...common(d.project_id, page, d.created_at),
          type: 'maintenance.scheduled',
          maintenance_id: d.maintenance_id,
          title: d.title,
          ...next,
        }));
      }
      case 'MaintenanceStarted': {
        const d = event.data;
        return mailShowing(recorded, d.project_id, d.monitor_ids, d.at, (page) => ({
          ...common(d.project_id, page, d.at),
          type: 'maintenance.started',
          maintenance_id: d.maintenance_id,
          title: d.title,
          starts_at: d.occurrence_start,
          ends_at: d.occurrence_end,
        }));
      }
      default:
        return NONE;
    }
  };

  const HANDLED = new Set<string>([
    'MonitorWentDown',
    'MonitorCameUp',
    'DeliveryAttempted',
    'DeliveryCancelled',
    'SubscriberRequested',
    'IncidentOpened',
    'IncidentUpdatePosted',
    'MaintenanceScheduled',
    'MaintenanceStarted',
  ]);

  return {
    name: PAGE_EFFECTS,
    checkpoint: () => store.checkpoint(),
    async migrate(held) {
      await store.migrate(held);
      lease = held;
      await startAtHeadWhenNew(store, deps.log, held);
      if (lanes !== null)
        for (const p of await reactorState.pending()) lanes.enqueue(laneOf(p.subscriber_id), p.delivery_id);
    },
    async process(batch, held, decode = batchDecoder()) {
      if (held) lease = held;
      const done = await store.checkpoint();
      const effects = new Map<RecordedEvent, Effect>();
      const open: OpenByMonitor = new Map();
      for (const recorded of batch) {
        if (!HANDLED.has(recorded.type) || comparePositions(recorded.position, done) <= 0) continue;
        effects.set(recorded, await effectOf(recorded, decode(recorded), open));
      }
      await store.commit(batch, (recorded, writer) => effects.get(recorded)?.write(writer), held);
      if (lanes === null) return;
      for (const effect of effects.values())
        for (const d of effect.queue) lanes.enqueue(laneOf(d.subscriber_id), d.delivery_id);
    },
    stop: async () => {
      await lanes?.stop();
    },
  };
};

/** A window's next occurrence, within the 31 days a one-off may last or a month of a rule. */
const nextWindow = (
  schedule: Extract<DomainEvent, { type: 'MaintenanceScheduled' }>['data']['schedule'],
  at: number,
): { starts_at: string; ends_at: string } | null => {
  try {
    const open =
      schedule.kind === 'once'
        ? Date.parse(schedule.ends_at) > at
          ? { start: Date.parse(schedule.starts_at), end: Date.parse(schedule.ends_at) }
          : null
        : (upcoming(schedule, at, 31 * 86_400_000, 1)[0] ?? null);
    return open === null
      ? null
      : { starts_at: new Date(open.start).toISOString(), ends_at: new Date(open.end).toISOString() };
  } catch {
    return null;
  }
};
