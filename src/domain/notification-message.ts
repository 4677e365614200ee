import type { Notification } from './notification.ts';
import type { PagerDutySeverity } from './channel.ts';

/** What every notification says, whatever carries it (docs/notifications.md): what happened, to
 *  which service and URL, since when, and where in the dashboard to look. Each provider's
 *  payload is built from this one message, so they cannot say different things. Pure. */

export type MessageKind = 'down' | 'up' | 'alert' | 'test';

export interface Message {
  kind: MessageKind;
  /** One line: "orders is DOWN". */
  title: string;
  /** One or two sentences with what happened, where and since when. */
  text: string;
  /** Label and value pairs, in order. */
  facts: ReadonlyArray<readonly [string, string]>;
  /** The dashboard page about it; null without WATCHLOG_PUBLIC_URL. */
  link: string | null;
  /** When it happened (ISO 8601). */
  at: string;
}

/** "2026-11-23 10:00:00 UTC": readable in every client, whatever its locale. */
export const readableTime = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

/** "1 h 2 min 5 s", "45 s". */
export const readableDuration = (seconds: number): string => {
  const parts: string[] = [];
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  if (d > 0) parts.push(`${d} d`);
  if (h > 0) parts.push(`${h} h`);
  if (m > 0) parts.push(`${m} min`);
  if (s > 0 || parts.length === 0) parts.push(`${s} s`);
  return parts.join(' ');
};

/** The dashboard page a notification is about, under the deployment's public URL. */
export const dashboardLink = (publicUrl: string | null, n: Notification): string | null => {
  if (publicUrl === null) return null;
  const base = `${publicUrl.replace(/\/+$/, '')}/p/${n.project_id}`;
  switch (n.type) {
    case 'monitor.down':
    case 'monitor.up':
    case 'monitor.certificate_expiring':
      return `${base}/monitors?open=${n.monitor.id}`;
    case 'anomaly.detected':
      return `${base}/events/${n.id}`;
    case 'channel.test':
      return `${base}/settings?tab=channels`;
  }
};

const detailText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export const messageOf = (n: Notification, publicUrl: string | null): Message => {
  const link = dashboardLink(publicUrl, n);
  switch (n.type) {
    case 'monitor.down': {
      const reason = n.error ?? (n.status_code === null ? 'no answer' : `answered ${n.status_code}`);
      return {
        kind: 'down',
        title: `${n.monitor.name} is DOWN`,
        link,
        at: n.timestamp,
        text: `${n.monitor.name} (${n.monitor.url}) is DOWN since ${readableTime(n.timestamp)}: ${reason}.`,
        facts: [
          ['Service', n.monitor.name],
          ['URL', n.monitor.url],
          ['Down since', readableTime(n.timestamp)],
          ['Status', n.status_code === null ? 'no answer' : String(n.status_code)],
          ...(n.error === null ? [] : [['Error', n.error] as const]),
          ['Response time', `${n.response_ms} ms`],
        ],
      };
    }
    case 'monitor.up': {
      const downFor = n.downtime_seconds === null ? null : readableDuration(n.downtime_seconds);
      const downSince =
        n.downtime_seconds === null
          ? null
          : new Date(Date.parse(n.timestamp) - n.downtime_seconds * 1000).toISOString();
      return {
        kind: 'up',
        title: `${n.monitor.name} is UP`,
        link,
        at: n.timestamp,
        text:
          `${n.monitor.name} (${n.monitor.url}) is UP again since ` +
          `${readableTime(n.timestamp)}${downFor === null ? '' : `, after ${downFor} DOWN`}.`,
        facts: [
          ['Service', n.monitor.name],
          ['URL', n.monitor.url],
          ['Up since', readableTime(n.timestamp)],
          ...(downSince === null ? [] : [['Down since', readableTime(downSince)] as const]),
          ...(downFor === null ? [] : [['Downtime', downFor] as const]),
          ['Status', n.status_code === null ? 'no answer' : String(n.status_code)],
        ],
      };
    }
    case 'monitor.certificate_expiring':
      return {
        kind: 'alert',
        title: `${n.monitor.name}: certificate expires in ${n.days_left} days`,
        link,
        at: n.timestamp,
        text:
          `The certificate of ${n.monitor.name} (${n.monitor.url}) expires ${readableTime(n.expires_at)}, ` +
          `in ${n.days_left} days (warning at ${n.threshold_days}).`,
        facts: [
          ['Service', n.monitor.name],
          ['URL', n.monitor.url],
          ['Expires', readableTime(n.expires_at)],
          ['Days left', String(n.days_left)],
          ['Issuer', n.issuer],
          ['Names', n.names.join(', ')],
        ],
      };
    case 'anomaly.detected':
      return {
        kind: 'alert',
        title: `Anomaly: ${n.rule} on ${n.service_name}`,
        link,
        at: n.timestamp,
        text:
          `${n.rule} on ${n.service_name} ` +
          `(${n.environment})${n.subject === n.service_name ? '' : ` for ${n.subject}`} since ` +
          `${readableTime(n.timestamp)}.`,
        facts: [
          ['Rule', n.rule],
          ['Service', n.service_name],
          ['Environment', n.environment],
          ['Subject', n.subject],
          ['Since', readableTime(n.timestamp)],
          ...Object.entries(n.details).map(([k, v]) => [k, detailText(v)] as const),
        ],
      };
    case 'channel.test': {
      const channel = n.channel.name ?? n.channel.id;
      return {
        kind: 'test',
        title: 'watchlog test notification',
        link,
        at: n.timestamp,
        text: `A test of the channel ${channel}, sent ${readableTime(n.timestamp)}: this channel reaches you.`,
        facts: [
          ['Channel', channel],
          ['Project', n.project_id],
          ['Sent', readableTime(n.timestamp)],
        ],
      };
    }
  }
};

const clip = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

const EMOJI: Record<MessageKind, string> = { down: '🔴', up: '🟢', alert: '⚠️', test: '🧪' };
const LINK_LABEL = 'Open in watchlog';

/** Slack incoming webhook: Block Kit blocks, with `text` as the notification's fallback. Slack's
 *  mrkdwn reads &, < and > as markup, so they are escaped. */
export const slackPayload = (m: Message) => {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    text: clip(`${EMOJI[m.kind]} ${m.title}: ${m.text}`, 3000),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(`${EMOJI[m.kind]} ${m.title}`, 150), emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: clip(esc(m.text), 3000) } },
      {
        type: 'section',
        fields: m.facts
          .slice(0, 10)
          .map(([label, value]) => ({ type: 'mrkdwn', text: clip(`*${esc(label)}*\n${esc(value)}`, 2000) })),
      },
      ...(m.link === null
        ? []
        : [
            {
              type: 'actions',
              elements: [{ type: 'button', text: { type: 'plain_text', text: LINK_LABEL }, url: m.link }],
            },
          ]),
    ],
  };
};

const DISCORD_COLOR: Record<MessageKind, number> = { down: 0xd92d20, up: 0x12b76a, alert: 0xf79009, test: 0x2e90fa };

/** Discord webhook: one embed. No mentions are parsed: a monitor's name never pings anyone. */
export const discordPayload = (m: Message) => ({
  username: 'watchlog',
  allowed_mentions: { parse: [] as string[] },
  embeds: [
    {
      title: clip(`${EMOJI[m.kind]} ${m.title}`, 256),
      description: clip(m.text, 4096),
      ...(m.link === null ? {} : { url: m.link }),
      color: DISCORD_COLOR[m.kind],
      fields: m.facts
        .slice(0, 25)
        .map(([name, value]) => ({ name: clip(name, 256), value: clip(value, 1024), inline: true })),
      timestamp: m.at,
      footer: { text: 'watchlog' },
    },
  ],
});

const TEAMS_COLOR: Record<MessageKind, string> = { down: 'Attention', up: 'Good', alert: 'Warning', test: 'Accent' };

/** Microsoft Teams workflow webhook ("When a Teams webhook request is received"): a message with
 *  one Adaptive Card. */
export const teamsPayload = (m: Message) => ({
  type: 'message',
  attachments: [
    {
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
        type: 'AdaptiveCard',
        version: '1.4',
        body: [
          {
            type: 'TextBlock',
            text: `${EMOJI[m.kind]} ${m.title}`,
            weight: 'Bolder',
            size: 'Medium',
            color: TEAMS_COLOR[m.kind],
            wrap: true,
          },
          { type: 'TextBlock', text: m.text, wrap: true },
          { type: 'FactSet', facts: m.facts.map(([title, value]) => ({ title, value })) },
        ],
        ...(m.link === null ? {} : { actions: [{ type: 'Action.OpenUrl', title: LINK_LABEL, url: m.link }] }),
      },
    },
  ],
});

const html = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** An e-mail: subject, plain text and HTML alternatives saying the same. */
export const emailContent = (m: Message) => {
  const text = [
    m.text,
    '',
    ...m.facts.map(([label, value]) => `${label}: ${value}`),
    ...(m.link === null ? [] : ['', `${LINK_LABEL}: ${m.link}`]),
    '',
    '-- ',
    'watchlog',
  ].join('\n');
  const rows = m.facts
    .map(
      ([label, value]) =>
        `<tr><th align="left" style="padding:2px 12px 2px 0">${html(label)}</th><td>${html(value)}</td></tr>`,
    )
    .join('');
  return {
    subject: `[watchlog] ${m.title}`,
    text,
    html:
      `<!doctype html><html><body style="font-family:sans-serif">` +
      `<h2>${html(`${EMOJI[m.kind]} ${m.title}`)}</h2><p>${html(m.text)}</p><table>${rows}</table>` +
      `${m.link === null ? '' : `<p><a href="${html(m.link)}">${LINK_LABEL}</a></p>`}<p ` +
      `style="color:#667085">watchlog</p></body></html>`,
  };
};

/** PagerDuty's dedup key: a monitor's DOWN and the UP that follows share one, so the UP
 *  resolves the incident the DOWN opened; each alert and each test has its own. */
export const pagerDutyDedupKey = (n: Notification): string => {
  switch (n.type) {
    case 'monitor.down':
    case 'monitor.up':
      return `watchlog-monitor-${n.monitor.id}`;
    case 'monitor.certificate_expiring':
      return `watchlog-certificate-${n.id}`;
    case 'anomaly.detected':
      return `watchlog-alert-${n.id}`;
    case 'channel.test':
      return `watchlog-test-${n.channel.id}`;
  }
};

/** PagerDuty Events API v2: a DOWN or an alert triggers, an UP resolves (same dedup key). A test
 *  triggers at `info` and resolves at once, so that it leaves no incident open. */
export const pagerDutyEvents = (n: Notification, m: Message, routingKey: string, severity: PagerDutySeverity) => {
  const dedup_key = pagerDutyDedupKey(n);
  const resolve = { routing_key: routingKey, event_action: 'resolve' as const, dedup_key };
  if (n.type === 'monitor.up') return [resolve];
  const trigger = {
    routing_key: routingKey,
    event_action: 'trigger' as const,
    dedup_key,
    payload: {
      summary: clip(`${m.title}: ${m.text}`, 1024),
      source: 'monitor' in n ? n.monitor.url : n.type === 'anomaly.detected' ? n.service_name : 'watchlog',
      severity: n.type === 'channel.test' ? ('info' as const) : severity,
      timestamp: m.at,
      component: 'monitor' in n ? n.monitor.name : n.type === 'anomaly.detected' ? n.service_name : 'watchlog',
      group: n.project_id,
      class: n.type,
      custom_details: Object.fromEntries(m.facts),
    },
    client: 'watchlog',
    ...(m.link === null ? {} : { client_url: m.link, links: [{ href: m.link, text: LINK_LABEL }] }),
  };
  return n.type === 'channel.test' ? [trigger, resolve] : [trigger];
};

const NTFY: Record<MessageKind, { priority: number; tags: string[] }> = {
  down: { priority: 5, tags: ['rotating_light'] },
  up: { priority: 3, tags: ['white_check_mark'] },
  alert: { priority: 4, tags: ['warning'] },
  test: { priority: 3, tags: ['test_tube'] },
};

/** ntfy's JSON publishing (a POST to the server's root): the topic is in the body. */
export const ntfyPayload = (m: Message, topic: string) => ({
  topic,
  title: m.title,
  message: [m.text, ...m.facts.map(([label, value]) => `${label}: ${value}`)].join('\n'),
  priority: NTFY[m.kind].priority,
  tags: NTFY[m.kind].tags,
  ...(m.link === null ? {} : { click: m.link, actions: [{ action: 'view', label: LINK_LABEL, url: m.link }] }),
});
