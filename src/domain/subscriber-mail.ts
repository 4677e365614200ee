import * as t from 'io-ts';
import type { IncidentStatus } from './incident.ts';

/** What a status page's subscriber is sent (docs/status-pages.md#subscribers): the notice a
 *  delivery carries, and the message made of it. A notice names what it is about and carries its
 *  title only: the text (an update's message, a window's description) is read when it is sent,
 *  so a page with thousands of subscribers does not copy it into the log once for each. */

const PageRef = t.type({ id: t.string, slug: t.string, title: t.string });
export type PageRef = t.TypeOf<typeof PageRef>;

/** `id`: the event it tells of (the request's, for a confirmation). */
const common = { id: t.string, project_id: t.string, page: PageRef, timestamp: t.string };

export const SubscriberNotice = t.union([
  t.type({ ...common, type: t.literal('subscription.confirm') }),
  t.type({
    ...common,
    type: t.keyof({ 'incident.opened': null, 'incident.updated': null }),
    incident_id: t.string,
    update_id: t.string,
    title: t.string,
  }),
  t.type({
    ...common,
    type: t.keyof({ 'maintenance.scheduled': null, 'maintenance.started': null }),
    maintenance_id: t.string,
    title: t.string,
    starts_at: t.string,
    ends_at: t.string,
  }),
]);
export type SubscriberNotice = t.TypeOf<typeof SubscriberNotice>;
export type NoticeType = SubscriberNotice['type'];

/** What is read when the notice is sent. */
export type NoticeDetails =
  | { kind: 'confirm' }
  | { kind: 'incident'; status: IncidentStatus; message: string; affects: readonly string[] }
  | { kind: 'maintenance'; description: string | null; affects: readonly string[] | 'all' };

export interface NoticeLinks {
  page: string;
  /** A confirmation's link. */
  confirm?: string;
  /** Every other notice's. */
  unsubscribe?: string;
}

export interface SubscriberMail {
  subject: string;
  text: string;
  html: string;
}

const STATUS_TEXT: Record<t.TypeOf<typeof IncidentStatus>, string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** `2026-11-23 10:00 UTC`: a reader's mail client shows no time zone of ours. */
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** The one-line subject, without the page title's line breaks. */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

const summaryOf = (n: SubscriberNotice): string => {
  switch (n.type) {
    case 'subscription.confirm':
      return `Confirm your subscription to ${n.page.title}`;
    case 'incident.opened':
      return `New incident: ${n.title}`;
    case 'incident.updated':
      return `Incident update: ${n.title}`;
    case 'maintenance.scheduled':
      return `Maintenance scheduled: ${n.title}`;
    case 'maintenance.started':
      return `Maintenance under way: ${n.title}`;
  }
};

/** The paragraphs of the message, and a line of what it affects. */
const bodyOf = (n: SubscriberNotice, d: NoticeDetails): string[] => {
  if (d.kind === 'confirm')
    return [
      `Someone, probably you, asked to receive e-mail about ${n.page.title}: new incidents, their updates, and ` +
        'maintenance.',
      'Confirm with the link below. If it was not you, ignore this message: nothing will be sent again.',
    ];
  if (d.kind === 'incident')
    return [
      `${STATUS_TEXT[d.status]} (${when(n.timestamp)}): ${d.message}`,
      ...(d.affects.length === 0 ? [] : [`Affects: ${d.affects.join(', ')}`]),
    ];
  const window = n.type === 'maintenance.scheduled' || n.type === 'maintenance.started' ? n : null;
  return [
    ...(window === null ? [] : [`From ${when(window.starts_at)} to ${when(window.ends_at)}.`]),
    ...(d.description === null || d.description === '' ? [] : [d.description]),
    `Affects: ${d.affects === 'all' || d.affects.length === 0 ? 'all services' : d.affects.join(', ')}`,
  ];
};

/** The message: plain text and HTML saying the same, the page's link, and the confirmation's or
 *  the unsubscribe link. Every text the team wrote is escaped in the HTML part. */
export const subscriberMail = (n: SubscriberNotice, d: NoticeDetails, links: NoticeLinks): SubscriberMail => {
  const subject = oneLine(`[${n.page.title}] ${summaryOf(n)}`);
  const paragraphs = bodyOf(n, d);
  const action =
    links.confirm !== undefined
      ? { label: 'Confirm your subscription', url: links.confirm }
      : { label: 'View the status page', url: links.page };
  const footer =
    links.unsubscribe === undefined
      ? []
      : [`You receive this because you subscribed to ${n.page.title}. Unsubscribe: ${links.unsubscribe}`];
  const text = [summaryOf(n), '', ...paragraphs.flatMap((p) => [p, '']), `${action.label}: ${action.url}`]
    .concat(footer.length === 0 ? [] : ['', '-- ', ...footer])
    .join('\n');
  const html =
    '<!doctype html><html><body style="font-family:sans-serif">' +
    `<h2>${escapeHtml(summaryOf(n))}</h2>` +
    paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') +
    `<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>` +
    (links.unsubscribe === undefined
      ? ''
      : `<p style="color:#667085">You receive this because you subscribed to ${escapeHtml(n.page.title)}. ` +
        `<a href="${escapeHtml(links.unsubscribe)}">Unsubscribe</a></p>`) +
    '</body></html>';
  return { subject, text, html };
};
