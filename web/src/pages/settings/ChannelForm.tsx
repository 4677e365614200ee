import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ApiError, call, type Channel, type ChannelCreate } from '../../api.ts';
import { useSession } from '../../auth.tsx';
import { ErrorNote, Field } from '../../components/ui.tsx';

/** What a channel may be told of. */
export type ChannelEvent = Channel['events'][number];
const SAYS: Record<ChannelEvent, string> = { healthcheck: 'monitor DOWN and UP', alert: 'anomaly alerts' };
export const EVENTS = (Object.keys(SAYS) as ChannelEvent[]).map((name) => ({ name, says: SAYS[name] }));

export const TYPE_NAMES: Record<Channel['type'], string> = {
  webhook: 'Webhook',
  webpush: 'Web Push',
  slack: 'Slack',
  discord: 'Discord',
  teams: 'Microsoft Teams',
  email: 'E-mail',
  pagerduty: 'PagerDuty',
  ntfy: 'ntfy',
};

type FormType = Exclude<Channel['type'], 'webpush'>;
const FORM_TYPES: FormType[] = ['webhook', 'slack', 'discord', 'teams', 'email', 'pagerduty', 'ntfy'];

type Security = NonNullable<Extract<ChannelCreate, { type: 'email' }>['smtp']['security']>;
const SECURITIES: Record<Security, string> = {
  starttls: 'STARTTLS, required (port 587)',
  tls: 'TLS from the start (port 465)',
  none: 'None: clear text (port 25)',
};
type Severity = NonNullable<Extract<ChannelCreate, { type: 'pagerduty' }>['severity']>;
const SEVERITIES: Record<Severity, string> = { critical: 'critical', error: 'error', warning: 'warning', info: 'info' };

/** A select's value as one of its options (the first when none is chosen yet). */
const chosenOf = <T extends string>(options: Record<T, string>, value: string | undefined): T =>
  value !== undefined && Object.hasOwn(options, value) ? (value as T) : (Object.keys(options)[0] as T);

export const EventChoice = ({
  chosen,
  onChange,
  idPrefix,
}: {
  chosen: ChannelEvent[];
  onChange: (e: ChannelEvent[]) => void;
  idPrefix: string;
}) => (
  <fieldset className="st-events">
    <legend>Notify on</legend>
    {EVENTS.map((e) => (
      <label key={e.name} htmlFor={`${idPrefix}-${e.name}`}>
        <input
          id={`${idPrefix}-${e.name}`}
          type="checkbox"
          checked={chosen.includes(e.name)}
          onChange={(ev) => onChange(ev.target.checked ? [...chosen, e.name] : chosen.filter((x) => x !== e.name))}
        />{' '}
        {e.says}
      </label>
    ))}
  </fieldset>
);

/** The form's values, by field name; what is sent is built from them per type. */
type Values = Record<string, string>;

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
const optional = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());
const integer = (value: string | undefined) => (optional(value) === undefined ? undefined : Number(value));

/** The body of `POST /v1/channels` for the chosen type: empty optional fields are left out, so
 *  the server's defaults apply. */
const bodyOf = (type: FormType, v: Values, common: Common): ChannelCreate => {
  const defined = <T extends object>(o: T): T =>
    Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined)) as T;
  switch (type) {
    case 'webhook':
      return defined({ ...common, type, url: v.url ?? '', secret: optional(v.secret) });
    case 'slack':
    case 'discord':
    case 'teams':
      return { ...common, type, url: v.url ?? '' };
    case 'email':
      return {
        ...common,
        type,
        from: v.from ?? '',
        to: lines(v.to ?? ''),
        smtp: defined({
          host: v.host ?? '',
          port: integer(v.port),
          security: chosenOf(SECURITIES, v.security),
          username: optional(v.username),
          password: optional(v.password),
          reject_unauthorized: v.any_certificate === 'yes' ? false : undefined,
          ca: optional(v.ca),
        }),
      };
    case 'pagerduty':
      return defined({
        ...common,
        type,
        routing_key: v.routing_key ?? '',
        severity: chosenOf(SEVERITIES, v.severity),
        url: optional(v.url),
      });
    case 'ntfy':
      return defined({ ...common, type, topic: v.topic ?? '', url: optional(v.url), token: optional(v.token) });
  }
};

/** What every type takes: the project, the events, and the name, quiet period and scope when given. */
type Common = Pick<ChannelCreate, 'project_id' | 'events' | 'name' | 'quiet_minutes' | 'project_scope'>;

interface Props {
  projectId: string;
  onCreated: () => Promise<void> | void;
}

/** A new channel of any type but Web Push (which "Notify this browser" makes): the type's fields,
 *  each with the server's message for it next to it. */
export const ChannelForm = ({ projectId, onCreated }: Props) => {
  const isAdmin = useSession().user?.role === 'admin';
  const [type, setType] = useState<FormType>('webhook');
  const [values, setValues] = useState<Values>({});
  const [name, setName] = useState('');
  const [events, setEvents] = useState<ChannelEvent[]>(['healthcheck']);
  const [quiet, setQuiet] = useState('');
  const [everyProject, setEveryProject] = useState(false);

  const create = useMutation({
    mutationFn: () =>
      call('POST /v1/channels', {
        body: bodyOf(type, values, {
          project_id: projectId,
          events,
          ...(name.trim() === '' ? {} : { name: name.trim() }),
          ...(quiet.trim() === '' ? {} : { quiet_minutes: Number(quiet) }),
          ...(everyProject ? { project_scope: 'all' as const } : {}),
        }),
      }),
    onSuccess: async () => {
      setValues({});
      setName('');
      setQuiet('');
      await onCreated();
    },
  });
  const error = create.error instanceof ApiError ? create.error : null;
  /** The message for a field path; for a list's line (`to.1`), said with its line. */
  const fieldError = (path: string) =>
    error?.fieldMessage(path) ??
    error?.details
      .filter((d) => d.path.startsWith(`${path}.`))
      .map((d) => `line ${Number(d.path.slice(path.length + 1)) + 1}: ${d.message}`)
      .join('; ') ??
    undefined;
  const set = (field: string) => (e: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [field]: e.target.value }));
  const input = (
    id: string,
    field: string,
    label: string,
    {
      hint,
      kind = 'text',
      path = field,
      placeholder,
    }: { hint?: string; kind?: string; path?: string; placeholder?: string } = {},
  ): ReactNode => (
    <Field id={id} label={label} error={fieldError(path) || undefined} {...(hint === undefined ? {} : { hint })}>
      <input
        id={id}
        type={kind}
        value={values[field] ?? ''}
        onChange={set(field)}
        {...(placeholder === undefined ? {} : { placeholder })}
        {...(kind === 'password' ? { autoComplete: 'off' } : {})}
      />
    </Field>
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };

  return (
    <form onSubmit={submit} aria-label="New channel" className="panel stack" noValidate>
      <h3>New channel</h3>
      <Field id="ch-type" label="Type">
        <select
          id="ch-type"
          value={type}
          onChange={(e) => {
            setType(e.target.value as FormType);
            create.reset();
          }}
        >
          {FORM_TYPES.map((t) => (
            <option key={t} value={t}>
              {TYPE_NAMES[t]}
            </option>
          ))}
        </select>
      </Field>
      <Field id="ch-name" label="Name (optional)" error={fieldError('name') || undefined}>
        <input id="ch-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Ops on call" />
      </Field>

      {type === 'webhook' && (
        <>
          {input('ch-url', 'url', 'URL', {
            hint: 'watchlog POSTs JSON here',
            kind: 'url',
            placeholder: 'https://hooks.example.com/watchlog',
          })}
          {input('ch-secret', 'secret', 'Secret (optional)', {
            hint: '8–256 characters; each body is then signed (X-Watchlog-Signature, HMAC-SHA256)',
            kind: 'password',
          })}
        </>
      )}
      {type === 'slack' &&
        input('ch-url', 'url', 'Webhook URL', {
          hint: "Slack: an app's Incoming Webhook URL",
          kind: 'url',
          placeholder: 'https://hooks.slack.com/services/…',
        })}
      {type === 'discord' &&
        input('ch-url', 'url', 'Webhook URL', {
          hint: 'Discord: channel settings → Integrations → Webhooks',
          kind: 'url',
          placeholder: 'https://discord.com/api/webhooks/…',
        })}
      {type === 'teams' &&
        input('ch-url', 'url', 'Webhook URL', {
          hint: 'Teams: the URL of a Workflows "When a Teams webhook request is received" flow',
          kind: 'url',
        })}
      {type === 'email' && (
        <>
          {input('ch-host', 'host', 'SMTP host', { path: 'smtp.host', placeholder: 'smtp.example.com' })}
          <Field id="ch-security" label="Security" error={fieldError('smtp.security') || undefined}>
            <select id="ch-security" value={values.security ?? 'starttls'} onChange={set('security')}>
              {(Object.keys(SECURITIES) as Security[]).map((s) => (
                <option key={s} value={s}>
                  {SECURITIES[s]}
                </option>
              ))}
            </select>
          </Field>
          {input('ch-port', 'port', 'Port (optional)', {
            path: 'smtp.port',
            kind: 'number',
            hint: "empty: the security's usual port",
          })}
          {input('ch-username', 'username', 'Username (optional)', { path: 'smtp.username' })}
          {input('ch-password', 'password', 'Password (optional)', { path: 'smtp.password', kind: 'password' })}
          <Field
            id="ch-ca"
            label="CA certificate (optional)"
            hint="PEM, for a server with a private certificate"
            error={fieldError('smtp.ca') || undefined}
          >
            <textarea
              id="ch-ca"
              rows={3}
              value={values.ca ?? ''}
              onChange={set('ca')}
              placeholder="-----BEGIN CERTIFICATE-----"
            />
          </Field>
          <label htmlFor="ch-any-cert">
            <input
              id="ch-any-cert"
              type="checkbox"
              checked={values.any_certificate === 'yes'}
              onChange={(e) => setValues((v) => ({ ...v, any_certificate: e.target.checked ? 'yes' : '' }))}
            />{' '}
            Accept any certificate (not verified)
          </label>
          {input('ch-from', 'from', 'From', { kind: 'email', placeholder: 'watchlog@example.com' })}
          <Field id="ch-to" label="To (one address per line)" error={fieldError('to') || undefined}>
            <textarea id="ch-to" rows={2} value={values.to ?? ''} onChange={set('to')} placeholder="ops@example.com" />
          </Field>
        </>
      )}
      {type === 'pagerduty' && (
        <>
          {input('ch-routing-key', 'routing_key', 'Routing key', {
            hint: 'the integration key of an Events API v2 integration',
            kind: 'password',
          })}
          <Field id="ch-severity" label="Severity" error={fieldError('severity') || undefined}>
            <select id="ch-severity" value={values.severity ?? 'critical'} onChange={set('severity')}>
              {(Object.keys(SEVERITIES) as Severity[]).map((s) => (
                <option key={s} value={s}>
                  {SEVERITIES[s]}
                </option>
              ))}
            </select>
          </Field>
          {input('ch-url', 'url', 'Events API URL (optional)', {
            kind: 'url',
            hint: 'empty: https://events.pagerduty.com/v2/enqueue',
          })}
        </>
      )}
      {type === 'ntfy' && (
        <>
          {input('ch-topic', 'topic', 'Topic', { placeholder: 'ops-alerts' })}
          {input('ch-url', 'url', 'Server URL (optional)', { kind: 'url', hint: 'empty: https://ntfy.sh' })}
          {input('ch-token', 'token', 'Access token (optional)', { kind: 'password' })}
        </>
      )}

      <EventChoice chosen={events} onChange={setEvents} idPrefix="ch-event" />
      {fieldError('events') && (
        <small className="field-error" role="alert">
          {fieldError('events')}
        </small>
      )}
      <Field
        id="ch-quiet"
        label="Quiet period, minutes (optional)"
        hint="after a DOWN, no other DOWN of the same monitor for this long; recoveries always go out"
        error={fieldError('quiet_minutes') || undefined}
      >
        <input
          id="ch-quiet"
          type="number"
          min={0}
          max={1440}
          value={quiet}
          onChange={(e) => setQuiet(e.target.value)}
        />
      </Field>
      {isAdmin && (
        <label htmlFor="ch-all-projects">
          <input
            id="ch-all-projects"
            type="checkbox"
            checked={everyProject}
            onChange={(e) => setEveryProject(e.target.checked)}
          />{' '}
          For every project (only admins see it)
        </label>
      )}
      <ErrorNote error={create.error} title="The channel was not added" />
      <div>
        <button type="submit" disabled={create.isPending}>
          Add channel
        </button>
      </div>
    </form>
  );
};
