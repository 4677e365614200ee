import type { ChannelCreateInput, ChannelTarget, SmtpSecurity } from './channel.ts';

/** A channel's target as the log keeps it: made from the input with every default filled in, and
 *  shown in answers without its secrets. */

/** Providers' public endpoints, used when a channel names none. */
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';
export const NTFY_SERVER_URL = 'https://ntfy.sh';

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
