import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { boundedString, closed, discriminated, Email, intRange, Uuid } from './codecs.ts';
import { MonitorUrl } from './monitor.ts';
import { withSchema } from './json-schema.ts';
import type { Decider } from './decider.ts';
import { DomainError, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';

/** Notification channels of a project: where monitor transitions (and, opting in, alerts) go,
 *  and how (docs/notifications.md). */

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

/** Providers' public endpoints, used when a channel names none. */
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';
export const NTFY_SERVER_URL = 'https://ntfy.sh';

const common = { project_id: Uuid };
const optional = t.partial({
  name: boundedString(1, 100),
  events: ChannelEvents,
  active: t.boolean,
  project_scope: ProjectScope,
  quiet_minutes: intRange(0, MAX_QUIET_MINUTES),
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
});
export const ChannelUpdateInput = closed(t.exact(Changes), 'field', 'a channel update');
export type ChannelUpdateInput = t.TypeOf<typeof ChannelUpdateInput>;

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
    t.partial({ name: t.union([t.null, t.string]), project_scope: ProjectScope, quiet_minutes: t.number }),
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

export interface ChannelState {
  id: string | null;
  projectId: string;
  scope: ProjectScope;
  deleted: boolean;
  active: boolean;
  degraded: boolean;
  events: ChannelEvents;
  name: string | null;
  quietMinutes: number;
}
export const initialChannel: ChannelState = {
  id: null,
  projectId: '',
  scope: 'project',
  deleted: false,
  active: false,
  degraded: false,
  events: [],
  name: null,
  quietMinutes: 0,
};

export const evolveChannel = (state: ChannelState, e: DomainEvent): ChannelState => {
  switch (e.type) {
    case 'ChannelCreated':
      return {
        ...state,
        id: e.data.channel_id,
        projectId: e.data.project_id,
        active: e.data.active,
        events: e.data.events,
        scope: e.data.project_scope ?? 'project',
        name: e.data.name ?? null,
        quietMinutes: e.data.quiet_minutes ?? 0,
      };
    case 'ChannelUpdated': {
      const { active, events, name, quiet_minutes } = e.data.changes;
      return {
        ...state,
        ...(active === undefined ? {} : { active }),
        ...(events === undefined ? {} : { events }),
        ...(name === undefined ? {} : { name }),
        ...(quiet_minutes === undefined ? {} : { quietMinutes: quiet_minutes }),
      };
    }
    case 'ChannelDeactivated':
      return { ...state, active: false };
    case 'ChannelDegraded':
      return { ...state, degraded: true };
    case 'ChannelRecovered':
      return { ...state, degraded: false };
    case 'ChannelDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
};

const sameEvents = (a: ChannelEvents, b: ChannelEvents) => a.length === b.length && a.every((kind) => b.includes(kind));

export const assertChannelExists = (state: ChannelState): void => {
  if (state.id === null || state.deleted) throw notFound('channel');
};

const SMTP_PORTS: Record<SmtpSecurity, number> = { tls: 465, starttls: 587, none: 25 };

/** The channel's target from the input, with each default filled in. */
export const targetOf = (input: ChannelCreateInput): ChannelTarget => {
  switch (input.type) {
    case 'webhook':
      return { type: 'webhook', url: input.url, ...(input.secret === undefined ? {} : { secret: input.secret }) };
    case 'webpush':
      return { type: 'webpush', subscription: input.subscription };
    case 'slack':
    case 'discord':
    case 'teams':
      return { type: input.type, url: input.url };
    case 'email': {
      const { host, port, security = 'starttls', username, password, reject_unauthorized = true, ca } = input.smtp;
      return {
        type: 'email',
        from: input.from,
        to: input.to,
        smtp: {
          host,
          port: port ?? SMTP_PORTS[security],
          security,
          reject_unauthorized,
          ...(username === undefined ? {} : { username }),
          ...(password === undefined ? {} : { password }),
          ...(ca === undefined ? {} : { ca }),
        },
      };
    }
    case 'pagerduty':
      return {
        type: 'pagerduty',
        url: input.url ?? PAGERDUTY_EVENTS_URL,
        routing_key: input.routing_key,
        severity: input.severity ?? 'critical',
      };
    case 'ntfy':
      return {
        type: 'ntfy',
        url: input.url ?? NTFY_SERVER_URL,
        topic: input.topic,
        ...(input.token === undefined ? {} : { token: input.token }),
      };
  }
};

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

export interface PublicSettings {
  url: string;
  has_secret: boolean;
  settings: Record<string, unknown>;
}

/** What the API shows of a target: where it sends, never a secret. Chat webhooks' URLs carry
 *  their token in the path, so only their origin is shown. */
export const publicSettingsOf = (target: ChannelTarget): PublicSettings => {
  switch (target.type) {
    case 'webhook':
      return { url: target.url, has_secret: target.secret !== undefined, settings: {} };
    case 'webpush':
      return { url: target.subscription.endpoint, has_secret: false, settings: {} };
    case 'slack':
    case 'discord':
    case 'teams':
      return { url: `${new URL(target.url).origin}/…`, has_secret: true, settings: {} };
    case 'email': {
      const { host, port, security, username, reject_unauthorized, ca } = target.smtp;
      return {
        url: `smtp://${host.includes(':') ? `[${host}]` : host}:${port}`,
        has_secret: target.smtp.password !== undefined,
        settings: {
          from: target.from,
          to: target.to,
          smtp: { host, port, security, username: username ?? null, reject_unauthorized, has_ca: ca !== undefined },
        },
      };
    }
    case 'pagerduty':
      return { url: target.url, has_secret: true, settings: { severity: target.severity } };
    case 'ntfy':
      return {
        url: `${target.url.replace(/\/+$/, '')}/${target.topic}`,
        has_secret: target.token !== undefined,
        settings: { topic: target.topic },
      };
  }
};

export type ChannelCommand =
  | {
      type: 'CreateChannel';
      channel_id: string;
      project_id: string;
      target: ChannelTarget;
      events: ChannelEvents;
      active: boolean;
      name: string | null;
      project_scope: ProjectScope;
      quiet_minutes: number;
      at: string;
    }
  | { type: 'UpdateChannel'; changes: ChannelUpdateInput; at: string }
  | { type: 'DeleteChannel'; at: string }
  /** The push service no longer knows the subscription: stop sending to it (once). */
  | { type: 'DeactivateChannel'; reason: string; at: string }
  /** `failures` deliveries in a row failed (once, until a delivery gets through). */
  | { type: 'DegradeChannel'; failures: number; reason: string; at: string }
  | { type: 'RecoverChannel'; at: string };

export const channelDecider: Decider<ChannelState, ChannelCommand> = {
  initialState: initialChannel,
  evolve: evolveChannel,
  decide(command, state) {
    switch (command.type) {
      case 'CreateChannel': {
        if (state.id !== null) throw new DomainError('conflict', 'channel already exists');
        const { channel_id, project_id, target, events, active, name, project_scope, quiet_minutes, at } = command;
        return [
          {
            type: 'ChannelCreated',
            data: {
              channel_id,
              project_id,
              target,
              events,
              active,
              name,
              project_scope,
              quiet_minutes,
              created_at: at,
            },
          },
        ];
      }
      case 'UpdateChannel': {
        assertChannelExists(state);
        const { active, events, name, quiet_minutes } = command.changes;
        const changes = {
          ...(active === undefined || active === state.active ? {} : { active }),
          ...(events === undefined || sameEvents(events, state.events) ? {} : { events }),
          ...(name === undefined || name === state.name ? {} : { name }),
          ...(quiet_minutes === undefined || quiet_minutes === state.quietMinutes ? {} : { quiet_minutes }),
        };
        if (Object.keys(changes).length === 0) return [];
        return [
          {
            type: 'ChannelUpdated',
            data: { channel_id: state.id!, project_id: state.projectId, changes, updated_at: command.at },
          },
        ];
      }
      case 'DeleteChannel':
        assertChannelExists(state);
        return [
          {
            type: 'ChannelDeleted',
            data: { channel_id: state.id!, project_id: state.projectId, deleted_at: command.at },
          },
        ];
      case 'DeactivateChannel':
        if (state.id === null || state.deleted || !state.active) return [];
        return [
          {
            type: 'ChannelDeactivated',
            data: {
              channel_id: state.id,
              project_id: state.projectId,
              reason: command.reason,
              deactivated_at: command.at,
            },
          },
        ];
      case 'DegradeChannel':
        if (state.id === null || state.deleted || state.degraded) return [];
        return [
          {
            type: 'ChannelDegraded',
            data: {
              channel_id: state.id,
              project_id: state.projectId,
              failures: command.failures,
              reason: command.reason,
              degraded_at: command.at,
            },
          },
        ];
      case 'RecoverChannel':
        if (state.id === null || state.deleted || !state.degraded) return [];
        return [
          {
            type: 'ChannelRecovered',
            data: { channel_id: state.id, project_id: state.projectId, recovered_at: command.at },
          },
        ];
    }
  },
};
