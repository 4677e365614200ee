import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { boundedString, closed, discriminated, Email, intRange, ManagedBy, Uuid } from './codecs.ts';
import { MonitorUrl } from './monitor.ts';
import { withSchema } from './json-schema.ts';

/** Notification channels of a project: where monitor transitions (and, opting in, alerts) go,
 *  and how (docs/notifications.md). Here: what the API accepts for each channel type, and what
 *  the log keeps; a target's defaults and what answers show of it are in channel-target.ts, a
 *  channel's state and decider in channel-decider.ts. */

export const CHANNEL_TYPES = ['webhook', 'webpush', 'slack', 'discord', 'teams', 'email', 'pagerduty', 'ntfy'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const ChannelEvents = t.array(t.keyof({ healthcheck: null, alert: null }));
export type ChannelEvents = t.TypeOf<typeof ChannelEvents>;

/** `project`: the events of the channel's own project; `all`: of every project (admins only). */
export const ProjectScope = t.keyof({ project: null, all: null });
export type ProjectScope = t.TypeOf<typeof ProjectScope>;

/** A day: a longer silence about a monitor that keeps failing would hide it. */
export const MAX_QUIET_MINUTES = 1440;

/** As the browser's `PushSubscription.toJSON()` gives it (its other keys, such as
 *  `expirationTime`, are let through: browsers send them). */
export const PushSubscriptionInput = t.type({
  endpoint: MonitorUrl,
  keys: t.type({ p256dh: boundedString(1, 200), auth: boundedString(1, 200) }),
});

export const SmtpSecurity = t.keyof({ starttls: null, tls: null, none: null });
export type SmtpSecurity = t.TypeOf<typeof SmtpSecurity>;

/** Where an e-mail channel's SMTP server is and how to speak to it. `starttls` (the default)
 *  refuses a server that does not offer STARTTLS; `tls` is TLS from the first byte (port 465);
 *  `none` sends in clear text. `ca` (PEM) is trusted besides the system's roots, for a server
 *  with a private certificate; `reject_unauthorized: false` accepts any certificate. */
export const SmtpInput = closed(
  t.exact(
    t.intersection([
      t.type({ host: boundedString(1, 253) }),
      t.partial({
        port: intRange(1, 65_535),
        security: SmtpSecurity,
        username: boundedString(1, 256),
        password: boundedString(1, 256),
        reject_unauthorized: t.boolean,
        ca: boundedString(1, 20_000),
      }),
    ]),
  ),
  'field',
  'SMTP settings',
);

export const PagerDutySeverity = t.keyof({ critical: null, error: null, warning: null, info: null });
export type PagerDutySeverity = t.TypeOf<typeof PagerDutySeverity>;

const NtfyTopic = withSchema(
  new t.Type<string, string, unknown>(
    'a topic of 1 to 64 letters, digits, _ or -',
    (u): u is string => typeof u === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(u),
    (u, c) => (typeof u === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
);

export const MAX_RECIPIENTS = 20;

const Recipients = withSchema(
  new t.Type<string[], string[], unknown>(
    `a list of 1 to ${MAX_RECIPIENTS} e-mail addresses`,
    (u): u is string[] => t.array(Email).is(u) && u.length >= 1 && u.length <= MAX_RECIPIENTS,
    (u, c) => {
      const each = t.array(Email).validate(u, c);
      if (isLeft(each)) return each;
      return each.right.length >= 1 && each.right.length <= MAX_RECIPIENTS ? each : t.failure(u, c);
    },
    t.identity,
  ),
  { minItems: 1, maxItems: MAX_RECIPIENTS },
  t.array(Email),
);

const common = { project_id: Uuid };
const optional = t.partial({
  name: boundedString(1, 100),
  events: ChannelEvents,
  active: t.boolean,
  project_scope: ProjectScope,
  quiet_minutes: intRange(0, MAX_QUIET_MINUTES),
  managed_by: ManagedBy,
});
const variant = <L extends string, P extends t.Props, O extends t.Props>(type: L, required: P, extra: O) =>
  closed(
    t.exact(t.intersection([t.type({ ...common, type: t.literal(type), ...required }), t.partial(extra), optional])),
  );

/** One input shape per channel type, chosen by `type`; unknown fields are refused. */
export const ChannelCreateInput = discriminated(
  'type',
  {
    webhook: variant('webhook', { url: MonitorUrl }, { secret: boundedString(8, 256) }),
    webpush: variant('webpush', { subscription: PushSubscriptionInput }, {}),
    slack: variant('slack', { url: MonitorUrl }, {}),
    discord: variant('discord', { url: MonitorUrl }, {}),
    teams: variant('teams', { url: MonitorUrl }, {}),
    email: variant('email', { smtp: SmtpInput, from: Email, to: Recipients }, {}),
    pagerduty: variant(
      'pagerduty',
      { routing_key: boundedString(1, 64) },
      { url: MonitorUrl, severity: PagerDutySeverity },
    ),
    ntfy: variant('ntfy', { topic: NtfyTopic }, { url: MonitorUrl, token: boundedString(1, 256) }),
  },
  'a channel',
);
export type ChannelCreateInput = t.TypeOf<typeof ChannelCreateInput>;

const Changes = t.partial({
  active: t.boolean,
  events: ChannelEvents,
  name: t.union([t.null, boundedString(1, 100)]),
  quiet_minutes: intRange(0, MAX_QUIET_MINUTES),
  managed_by: ManagedBy,
});
export const ChannelUpdateInput = closed(t.exact(Changes), 'field', 'a channel update');
export type ChannelUpdateInput = t.TypeOf<typeof ChannelUpdateInput>;

/** Where a target connects, by field (for the egress policy's check when it is saved): URLs, or
 *  the SMTP server as an http URL of its host, which the policy reads the same way. */
export const destinationsOf = (input: ChannelCreateInput): Array<{ path: string; url: string }> => {
  switch (input.type) {
    case 'webpush':
      return [{ path: 'subscription.endpoint', url: input.subscription.endpoint }];
    case 'email':
      return [
        {
          path: 'smtp.host',
          url: `http://${input.smtp.host.includes(':') ? `[${input.smtp.host}]` : input.smtp.host}/`,
        },
      ];
    case 'pagerduty':
    case 'ntfy':
      return input.url === undefined ? [] : [{ path: 'url', url: input.url }];
    default:
      return [{ path: 'url', url: input.url }];
  }
};

/** What deliveries need, secrets included: kept in the log and the read store, never in an API
 *  answer. Defaults are filled in when the channel is created, so a later change of a default
 *  does not change where an existing channel sends. */
const Target = t.union([
  t.intersection([t.type({ type: t.literal('webhook'), url: t.string }), t.partial({ secret: t.string })]),
  t.type({
    type: t.literal('webpush'),
    subscription: t.type({ endpoint: t.string, keys: t.type({ p256dh: t.string, auth: t.string }) }),
  }),
  t.type({ type: t.literal('slack'), url: t.string }),
  t.type({ type: t.literal('discord'), url: t.string }),
  t.type({ type: t.literal('teams'), url: t.string }),
  t.type({
    type: t.literal('email'),
    from: t.string,
    to: t.array(t.string),
    smtp: t.intersection([
      t.type({ host: t.string, port: t.number, security: SmtpSecurity, reject_unauthorized: t.boolean }),
      t.partial({ username: t.string, password: t.string, ca: t.string }),
    ]),
  }),
  t.type({ type: t.literal('pagerduty'), url: t.string, routing_key: t.string, severity: PagerDutySeverity }),
  t.intersection([t.type({ type: t.literal('ntfy'), url: t.string, topic: t.string }), t.partial({ token: t.string })]),
]);
export type ChannelTarget = t.TypeOf<typeof Target>;
export type TargetOf<K extends ChannelType> = Extract<ChannelTarget, { type: K }>;

export const channelEvents = {
  ChannelCreated: t.intersection([
    t.type({
      channel_id: t.string,
      project_id: t.string,
      target: Target,
      events: ChannelEvents,
      active: t.boolean,
      created_at: t.string,
    }),
    // Absent on channels created before they had names, scopes and quiet periods.
    t.partial({
      name: t.union([t.null, t.string]),
      project_scope: ProjectScope,
      quiet_minutes: t.number,
      managed_by: t.string,
    }),
  ]),
  ChannelUpdated: t.type({
    channel_id: t.string,
    project_id: t.string,
    changes: t.exact(Changes),
    updated_at: t.string,
  }),
  ChannelDeleted: t.type({ channel_id: t.string, project_id: t.string, deleted_at: t.string }),
  /** The push service said the subscription is gone (404/410): nothing will ever reach it again. */
  ChannelDeactivated: t.type({
    channel_id: t.string,
    project_id: t.string,
    reason: t.string,
    deactivated_at: t.string,
  }),
  /** Deliveries kept failing: the channel still gets them, and people are told it may not work. */
  ChannelDegraded: t.type({
    channel_id: t.string,
    project_id: t.string,
    failures: t.number,
    reason: t.string,
    degraded_at: t.string,
  }),
  /** A delivery got through again. */
  ChannelRecovered: t.type({ channel_id: t.string, project_id: t.string, recovered_at: t.string }),
} as const;
