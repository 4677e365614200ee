import { stringify } from 'yaml';
import { DEFAULT_ANOMALY_SETTINGS } from '../../domain/anomaly-settings.ts';
import { OPTION_DEFAULTS, OPTION_KEYS } from '../../domain/monitor-options.ts';
import { same } from './compare.ts';
import { maintenanceAsFile, pageAsFile } from './plan.ts';
import type { ChannelAnswer, MonitorAnswer, ProjectState } from './state.ts';

/** The file `plan` shows no change for: what the API holds of some projects, defaults left out,
 *  and each secret (which answers mask or never give) as a `${NAME}` to set in the environment. */

const SPEC_DEFAULTS: Record<string, unknown> = {
  interval_seconds: 60,
  timeout_seconds: 10,
  expected_status: 200,
  enabled: true,
};
const OPTION_DEFAULT: Record<string, unknown> = { ...OPTION_DEFAULTS, cert_expiry_warn_days: [14, 7, 1] };

/** `${SHOP_CHECKOUT_API_AUTH}`: the variable a secret is read from. */
const variable = (...parts: string[]) =>
  `\${${parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')}}`;

const monitorAsFile = (project: string, m: MonitorAnswer): Record<string, unknown> => {
  const out: Record<string, unknown> = { name: m.name };
  if (m.type !== 'http') out.type = m.type;
  if (m.type === 'http' || m.type === 'tcp') out.url = m.url;
  for (const [field, fallback] of Object.entries(SPEC_DEFAULTS)) if (!same(m[field], fallback)) out[field] = m[field];
  for (const field of OPTION_KEYS) {
    const value = m[field];
    if (field === 'type' || field === 'managed_by' || value === undefined || value === null) continue;
    if (field in OPTION_DEFAULT && same(value, OPTION_DEFAULT[field])) continue;
    if (field === 'headers')
      out.headers = Object.fromEntries(Object.keys(value as object).map((h) => [h, variable(project, m.name, h)]));
    else if (field === 'auth') {
      const auth = value as { type: string; username?: string };
      out.auth =
        auth.type === 'basic'
          ? { type: 'basic', username: auth.username, password: variable(project, m.name, 'password') }
          : { type: 'bearer', token: variable(project, m.name, 'token') };
    } else out[field] = value;
  }
  return out;
};

/** A channel's destination is never answered in full: it is written as a variable. */
const channelAsFile = (project: string, c: ChannelAnswer): Record<string, unknown> | null => {
  const name = c.name ?? c.id;
  const settings = (c.settings ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { name, type: c.type };
  const secret = (field: string) => variable(project, name, field);
  switch (c.type) {
    case 'webpush':
      return null; // a browser's subscription, made by that browser
    case 'webhook':
      out.url = secret('url');
      if (c.has_secret) out.secret = secret('secret');
      break;
    case 'email': {
      const { has_ca: _ca, username, ...smtp } = settings.smtp as Record<string, unknown>;
      out.smtp = {
        ...smtp,
        ...(username == null ? {} : { username, password: secret('smtp_password') }),
      };
      out.from = settings.from;
      out.to = settings.to;
      break;
    }
    case 'pagerduty':
      out.routing_key = secret('routing_key');
      if (settings.severity !== undefined) out.severity = settings.severity;
      break;
    case 'ntfy':
      out.topic = typeof settings.topic === 'string' ? settings.topic : secret('topic');
      out.url = c.url;
      if (c.has_secret) out.token = secret('token');
      break;
    default:
      out.url = secret('url');
  }
  if (!same(c.events, ['healthcheck'])) out.events = c.events;
  if (c.active === false) out.active = false;
  if (c.project_scope !== 'project') out.project_scope = c.project_scope;
  if (c.quiet_minutes !== 0) out.quiet_minutes = c.quiet_minutes;
  return out;
};

const anomalyAsFile = (anomaly: ProjectState['anomaly']) => {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [rule, values] of Object.entries(anomaly))
    for (const [field, value] of Object.entries(values ?? {}))
      if (!same(value, (DEFAULT_ANOMALY_SETTINGS as Record<string, Record<string, unknown>>)[rule]?.[field])) {
        out[rule] ??= {};
        out[rule][field] = value;
      }
  return out;
};

export const projectAsFile = (state: ProjectState): { file: Record<string, unknown>; skipped: string[] } => {
  const skipped: string[] = [];
  const channels = state.channels.flatMap((c) => {
    const out = channelAsFile(state.name, c);
    if (out === null) skipped.push(`channel "${c.name ?? c.id}" in ${state.name} (a browser's Web Push subscription)`);
    return out === null ? [] : [out];
  });
  const pages = state.pages.map((page) => {
    const all = pageAsFile({ current: state }, page);
    return Object.fromEntries(
      Object.entries(all).filter(([k, v]) => !(k === 'description' || k === 'custom_domain') || v !== null),
    );
  });
  const anomaly = anomalyAsFile(state.anomaly);
  const file: Record<string, unknown> = {
    name: state.name,
    ...(state.monitors.length > 0 ? { monitors: state.monitors.map((m) => monitorAsFile(state.name, m)) } : {}),
    ...(channels.length > 0 ? { channels } : {}),
    ...(pages.length > 0 ? { status_pages: pages } : {}),
    ...(state.maintenances.length > 0
      ? { maintenance: state.maintenances.map((m) => maintenanceAsFile({ current: state }, m)) }
      : {}),
    ...(state.masking.keys.length + state.masking.patterns.length > 0 ? { masking: state.masking } : {}),
    ...(state.retention_days === null ? {} : { retention_days: state.retention_days }),
    ...(Object.keys(anomaly).length > 0 ? { anomaly_settings: anomaly } : {}),
  };
  return { file, skipped };
};

export const exportYaml = (projects: Array<Record<string, unknown>>, schemaUrl: string): string =>
  `# yaml-language-server: $schema=${schemaUrl}\n${stringify({ projects }, { lineWidth: 0 })}`;
