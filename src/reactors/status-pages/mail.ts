import type { Logger } from 'pino';
import { cancelDelivery, loadDelivery } from '../../commands/deliveries.ts';
import type { CommandContext, CommandDeps } from '../../commands/handle.ts';
import { loadSubscription } from '../../commands/subscribers.ts';
import type { EgressPolicy } from '../../checks/egress.ts';
import { monitorIdsOf } from '../../domain/status-page.ts';
import {
  subscriberMail,
  type NoticeDetails,
  type NoticeLinks,
  type SubscriberNotice,
} from '../../domain/subscriber-mail.ts';
import { subscriptionToken } from '../../domain/subscriber.ts';
import type { ReadModels } from '../../views/read-models.ts';
import type { StatusPageView } from '../../views/status-pages/port.ts';
import { deliverRound, type RetryOptions } from '../notifications/attempts.ts';
import { sendMail, type SmtpSettings } from '../notifications/email.ts';

/** How status pages' subscribers are mailed (WATCHLOG_SMTP_*), and where their links point. */
export interface SubscriberMailSettings {
  smtp: SmtpSettings;
  from: string;
  /** WATCHLOG_PUBLIC_URL: every link of a message is under it. */
  publicUrl: string;
}

export interface MailSenderDeps extends CommandDeps {
  readModels: ReadModels;
  logger: Logger;
  egress: EgressPolicy;
  mail: SubscriberMailSettings;
  /** The links' key (subscriptionKey). */
  key: Buffer;
  retry: RetryOptions;
  timeoutMs: number;
  holding(): Promise<boolean>;
  ctx(correlationId: string): CommandContext;
}

/** The page's links under the deployment's address (the same paths answer on a custom domain). */
export const subscriberLinks = (
  publicUrl: string,
  slug: string,
  key: Buffer,
  subscriberId: string,
  purpose: 'confirm' | 'notice',
): NoticeLinks => {
  const page = `${publicUrl}/status/${encodeURIComponent(slug)}`;
  const link = (what: 'confirm' | 'unsubscribe') =>
    `${page}/subscription/${what}?id=${subscriberId}&token=${subscriptionToken(key, what, subscriberId)}`;
  return purpose === 'confirm' ? { page, confirm: link('confirm') } : { page, unsubscribe: link('unsubscribe') };
};

/** The page's monitors' names among `ids` ('all' stays all). */
const namesOn = async (
  readModels: ReadModels,
  page: StatusPageView,
  ids: readonly string[] | 'all',
): Promise<string[] | 'all'> => {
  if (ids === 'all') return 'all';
  const shown = new Set(monitorIdsOf(page.groups));
  const monitors = await readModels.monitors.list({ all: true }, page.project_id);
  return monitors.filter((m) => shown.has(m.id) && ids.includes(m.id)).map((m) => m.name);
};

/** What the notice says beyond its title, read now; a string: why it is not sent. */
const detailsOf = async (
  readModels: ReadModels,
  page: StatusPageView,
  n: SubscriberNotice,
): Promise<NoticeDetails | string> => {
  switch (n.type) {
    case 'subscription.confirm':
      return { kind: 'confirm' };
    case 'incident.opened':
    case 'incident.updated': {
      const incident = await readModels.incidents.get(n.incident_id, { all: true });
      const update = incident?.updates.find((u) => u.id === n.update_id);
      if (incident === null || update === undefined) return 'incident deleted';
      const affects = await namesOn(readModels, page, incident.monitor_ids);
      return {
        kind: 'incident',
        status: update.status,
        message: update.message,
        affects: affects === 'all' ? [] : affects,
      };
    }
    case 'maintenance.scheduled':
    case 'maintenance.started': {
      const window = await readModels.maintenances.get(n.maintenance_id, { all: true });
      if (window === null) return 'maintenance window deleted';
      return {
        kind: 'maintenance',
        description: window.description,
        affects: await namesOn(readModels, page, window.monitor_ids),
      };
    }
  }
};

/** Why a subscriber's delivery is not to be sent now, or null: a confirmation goes to a pending
 *  subscription, anything else to a confirmed one, of a page that is still published. */
const refusalOf = (n: SubscriberNotice, status: string | null, page: StatusPageView | null): string | null => {
  if (status === null || status === 'removed') return 'subscriber removed';
  if (page === null) return 'status page deleted';
  if (!page.published) return 'status page not published';
  if (n.type === 'subscription.confirm') return status === 'pending' ? null : `subscription ${status}`;
  return status === 'confirmed' ? null : `subscription ${status}`;
};

/** Sends one subscriber's delivery: its stream and the subscription's are read first, so what
 *  was delivered, or whoever unsubscribed meanwhile, is never sent (again). */
export const deliverToSubscriber = async (deps: MailSenderDeps, id: string, signal: AbortSignal): Promise<void> => {
  const { state } = await loadDelivery(deps, id);
  if (state.status !== 'pending' || state.notice === null || state.subscriberId === null) return;
  const n = state.notice;
  const subscriberId = state.subscriberId;
  const subscription = (await loadSubscription(deps, subscriberId)).state;
  const page = await deps.readModels.statusPages.get(n.page.id, { all: true });
  const details =
    page === null || subscription.email === null
      ? (refusalOf(n, subscription.status, page) ?? 'subscriber removed')
      : (refusalOf(n, subscription.status, page) ?? (await detailsOf(deps.readModels, page, n)));
  if (typeof details === 'string' || page === null || subscription.email === null) {
    await cancelDelivery(deps, id, typeof details === 'string' ? details : 'subscriber removed', deps.ctx(n.id));
    return;
  }
  const confirming = n.type === 'subscription.confirm';
  const links = subscriberLinks(
    deps.mail.publicUrl,
    page.slug,
    deps.key,
    subscriberId,
    confirming ? 'confirm' : 'notice',
  );
  const message = subscriberMail({ ...n, page: { id: page.id, slug: page.slug, title: page.title } }, details, links);
  const headers: Record<string, string> = {
    'Auto-Submitted': 'auto-generated',
    'X-Watchlog-Event': n.type,
    'X-Watchlog-Delivery': id,
    // RFC 8058: a mail client may unsubscribe with one POST of `List-Unsubscribe=One-Click`.
    ...(links.unsubscribe === undefined
      ? {}
      : { 'List-Unsubscribe': `<${links.unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }),
  };
  const log = deps.logger.child({ delivery_id: id, subscriber_id: subscriberId, notice: n.type });
  await deliverRound({
    deps,
    id,
    state,
    retry: deps.retry,
    signal,
    ctx: deps.ctx(n.id),
    holding: deps.holding,
    send: () =>
      sendMail(
        deps.mail.smtp,
        { from: deps.mail.from, to: [subscription.email!], ...message, headers },
        { egress: deps.egress, timeoutMs: deps.timeoutMs },
      ),
    async recorded(answer, attempt, final) {
      if (!final) log.debug({ attempt, status: answer.status, error: answer.error }, 'mail try failed; trying again');
      else if (answer.ok) log.info({ attempt, status: answer.status }, 'subscriber mail delivered');
      else log.warn({ attempt, status: answer.status, error: answer.error }, 'subscriber mail not delivered');
    },
  });
};
