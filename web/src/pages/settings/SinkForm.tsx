import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { call, type Operations } from '../../api.ts';
import { ErrorNote, Field, messagesAt } from '../../components/ui.tsx';
import { FilterFields, useFilter, words } from './SinkFilter.tsx';

export type SinkCreate = Operations['POST /v1/projects/:id/sinks']['body'];
export type SinkType = SinkCreate['type'];

export const SINK_TYPE_NAMES: Record<SinkType, string> = {
  http: 'HTTP (signed NDJSON)',
  splunk_hec: 'Splunk HEC',
  elastic: 'Elasticsearch / OpenSearch',
  datadog: 'Datadog',
  syslog: 'Syslog (RFC 5424)',
  otlp_logs: 'OpenTelemetry logs (OTLP/HTTP)',
};

/** How a field is typed and sent: text as it is (left out when empty and optional), a number, a
 *  checkbox, a comma-separated list, or `Name: value` lines (headers). */
interface Spec {
  name: string;
  label: string;
  kind?: 'url' | 'password' | 'number' | 'checkbox' | 'pem' | 'list' | 'headers';
  optional?: boolean;
  hint?: string;
  /** A checkbox's state before it is touched. */
  checked?: boolean;
}

const FIELDS: Record<SinkType, Spec[]> = {
  http: [
    { name: 'url', label: 'URL', kind: 'url', hint: 'Each batch is POSTed here as NDJSON' },
    {
      name: 'secret',
      label: 'Secret',
      kind: 'password',
      optional: true,
      hint: '8–256 characters: each body is then signed (X-Watchlog-Signature, HMAC-SHA256)',
    },
  ],
  splunk_hec: [
    { name: 'url', label: 'URL', kind: 'url', hint: 'e.g. https://splunk:8088/services/collector/event' },
    { name: 'token', label: 'HEC token', kind: 'password' },
    { name: 'index', label: 'Index', optional: true },
    { name: 'source', label: 'Source', optional: true, hint: 'watchlog when empty' },
    { name: 'sourcetype', label: 'Source type', optional: true, hint: 'watchlog:audit when empty' },
  ],
  elastic: [
    { name: 'url', label: 'URL', kind: 'url', hint: 'The cluster, e.g. https://es.example.com:9200' },
    { name: 'index', label: 'Index or data stream' },
    { name: 'api_key', label: 'API key', kind: 'password', optional: true },
    { name: 'username', label: 'Username', optional: true, hint: 'Basic authentication instead of a key' },
    { name: 'password', label: 'Password', kind: 'password', optional: true },
  ],
  datadog: [
    { name: 'api_key', label: 'API key', kind: 'password' },
    {
      name: 'url',
      label: 'Intake URL',
      kind: 'url',
      optional: true,
      hint: 'For another Datadog site; the US1 intake when empty',
    },
    { name: 'service', label: 'Service', optional: true, hint: "Each record's service_name when empty" },
    { name: 'tags', label: 'Tags', kind: 'list', optional: true, hint: 'Separated by commas, e.g. env:prod' },
  ],
  syslog: [
    { name: 'host', label: 'Host' },
    { name: 'port', label: 'Port', kind: 'number', optional: true, hint: '6514 with TLS, else 601, when empty' },
    { name: 'tls', label: 'TLS (RFC 5425)', kind: 'checkbox', checked: false },
    { name: 'reject_unauthorized', label: "Verify the server's certificate", kind: 'checkbox', checked: true },
    { name: 'ca', label: 'CA certificate', kind: 'pem', optional: true, hint: 'PEM, for a private CA' },
    { name: 'app_name', label: 'APP-NAME', optional: true, hint: 'watchlog when empty' },
  ],
  otlp_logs: [
    { name: 'url', label: 'URL', kind: 'url', hint: 'e.g. https://collector:4318/v1/logs' },
    { name: 'headers', label: 'Headers', kind: 'headers', optional: true, hint: 'One "Name: value" a line' },
  ],
};

/** The type's settings as the API takes them; an empty optional field is left out. */
const settingsOf = (type: SinkType, values: Record<string, string>, checks: Record<string, boolean>) => {
  const out: Record<string, unknown> = {};
  for (const spec of FIELDS[type]) {
    if (spec.kind === 'checkbox') {
      out[spec.name] = checks[spec.name] ?? spec.checked ?? false;
      continue;
    }
    const raw = (values[spec.name] ?? '').trim();
    if (raw === '' && spec.optional) continue;
    if (spec.kind === 'number') out[spec.name] = Number(raw);
    else if (spec.kind === 'list') out[spec.name] = words(raw);
    else if (spec.kind === 'headers')
      out[spec.name] = Object.fromEntries(
        raw
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => {
            const colon = line.indexOf(':');
            return colon < 0 ? [line.trim(), ''] : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
          }),
      );
    else out[spec.name] = raw;
  }
  return out;
};

/** A new log sink of any type: the type's settings, what it forwards, and whether it starts. */
export const SinkForm = ({ projectId, onCreated }: { projectId: string; onCreated: () => Promise<void> }) => {
  const [type, setType] = useState<SinkType>('http');
  const [name, setName] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [checks, setChecks] = useState<Record<string, boolean>>({});
  const filter = useFilter();
  const [paused, setPaused] = useState(false);
  const create = useMutation({
    mutationFn: () => {
      const chosen = filter.value();
      const body = {
        type,
        ...settingsOf(type, values, checks),
        ...(name.trim() === '' ? {} : { name: name.trim() }),
        ...(paused ? { active: false } : {}),
        ...(Object.keys(chosen).length > 0 ? { filter: chosen } : {}),
      } as SinkCreate;
      return call('POST /v1/projects/:id/sinks', { params: { id: projectId }, body });
    },
    onSuccess: async () => {
      setValues({});
      setChecks({});
      setName('');
      filter.reset();
      setPaused(false);
      await onCreated();
    },
  });
  const at = (path: string) => messagesAt(create.error, path);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };

  return (
    <form onSubmit={submit} aria-label="New log sink" className="panel stack sink-form" noValidate>
      <h3>New log sink</h3>
      <Field id="sink-type" label="Type">
        <select
          id="sink-type"
          value={type}
          onChange={(e) => {
            setType(e.target.value as SinkType);
            create.reset();
          }}
        >
          {(Object.keys(SINK_TYPE_NAMES) as SinkType[]).map((t) => (
            <option key={t} value={t}>
              {SINK_TYPE_NAMES[t]}
            </option>
          ))}
        </select>
      </Field>
      <Field id="sink-name" label="Name (optional)" error={at('name')}>
        <input id="sink-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Compliance SIEM" />
      </Field>
      {FIELDS[type].map((spec) => {
        const id = `sink-${spec.name}`;
        const label = `${spec.label}${spec.optional ? ' (optional)' : ''}`;
        if (spec.kind === 'checkbox')
          return (
            <label key={id} htmlFor={id}>
              <input
                id={id}
                type="checkbox"
                checked={checks[spec.name] ?? spec.checked ?? false}
                onChange={(e) => setChecks((c) => ({ ...c, [spec.name]: e.target.checked }))}
              />{' '}
              {spec.label}
            </label>
          );
        const set = (e: { target: { value: string } }) => setValues((v) => ({ ...v, [spec.name]: e.target.value }));
        return (
          <Field key={id} id={id} label={label} error={at(spec.name)} {...(spec.hint ? { hint: spec.hint } : {})}>
            {spec.kind === 'pem' || spec.kind === 'headers' ? (
              <textarea id={id} rows={3} value={values[spec.name] ?? ''} onChange={set} />
            ) : (
              <input
                id={id}
                type={spec.kind === 'list' ? 'text' : (spec.kind ?? 'text')}
                value={values[spec.name] ?? ''}
                onChange={set}
                {...(spec.kind === 'password' ? { autoComplete: 'off' } : {})}
              />
            )}
          </Field>
        );
      })}
      <FilterFields idPrefix="sink" filter={filter} error={at('filter')} />
      <label htmlFor="sink-paused">
        <input id="sink-paused" type="checkbox" checked={paused} onChange={(e) => setPaused(e.target.checked)} /> Start
        paused (once resumed, it forwards everything logged since it was added)
      </label>
      <ErrorNote error={create.error} />
      <button type="submit" disabled={create.isPending}>
        Add the sink
      </button>
    </form>
  );
};
