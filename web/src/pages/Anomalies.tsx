import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type AnomalySettings, ApiError, type Call, call, type Verbatim, verbatim } from '../api.ts';
import { useCanWrite } from '../auth.tsx';
import { Empty, ErrorNote, Loading } from '../components/ui.tsx';
import { formatTime } from '../format.ts';
import { Link, useSearchParams } from '../router.tsx';
import './anomalies.css';

/** The rules, as the server's settings name them. */
type Rule = Exclude<keyof AnomalySettings, 'project_id' | 'updated_at'>;
/** A rule's settings besides `enabled`. */
type FieldOf<R extends Rule> = Exclude<keyof AnomalySettings[R], 'enabled'>;
type RuleForm<R extends Rule> = {
  title: string;
  fires: string;
  fields: Array<{ name: FieldOf<R>; label: string; step?: string }>;
};

/** docs/api.md#anomalies: the five rules, what each field means, in the order the form shows them. */
const RULE_FORMS: { [R in Rule]: RuleForm<R> } = {
  brute_force: {
    title: 'Brute force',
    fires: 'one identifier gets many 401 answers in a short window',
    fields: [
      { name: 'threshold', label: '401 answers' },
      { name: 'window_secs', label: 'Window (seconds, a multiple of 10)', step: '10' },
    ],
  },
  error_rate: {
    title: 'Error rate',
    fires: "a service's 4xx + 5xx share of its events is too high",
    fields: [
      { name: 'threshold_percent', label: 'Error share (%)', step: 'any' },
      { name: 'window_secs', label: 'Window (seconds)', step: '10' },
      { name: 'min_events', label: 'At least this many events' },
    ],
  },
  volume_spike: {
    title: 'Volume spike',
    fires: "a service's events in a minute are far above its recent per-minute mean",
    fields: [
      { name: 'z_threshold', label: 'Standard deviations above the mean', step: 'any' },
      { name: 'baseline_minutes', label: 'Baseline (minutes)' },
      { name: 'min_baseline_minutes', label: 'Baseline needed (minutes)' },
      { name: 'min_rate', label: 'At least this many events a minute' },
    ],
  },
  mass_delete: {
    title: 'Mass delete',
    fires: 'a service gets many DELETE requests in a short window',
    fields: [
      { name: 'threshold', label: 'DELETE requests' },
      { name: 'window_secs', label: 'Window (seconds)', step: '10' },
    ],
  },
  silent_service: {
    title: 'Silent service',
    fires: 'a service that had traffic in the last 24 h has gone quiet',
    fields: [
      { name: 'threshold_minutes', label: 'Silence (minutes)' },
      { name: 'min_events_24h', label: 'Events in 24 h to count as active' },
    ],
  },
};
const RULES = (Object.keys(RULE_FORMS) as Rule[]).map((rule) => ({ rule, ...RULE_FORMS[rule] }));

/** A rule's settings by field name, as the form reads them. */
type RuleSettings = Readonly<Record<string, number | boolean>>;
type Patch = Call<'PUT /v1/projects/:id/anomaly-settings'>['body'];

const describe = (body: Record<string, unknown> | null | undefined): string =>
  body === null || body === undefined
    ? ''
    : Object.entries(body)
        .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
        .join(' · ');

const AlertList = ({ projectId }: { projectId: string }) => {
  const [search, setSearch] = useSearchParams();
  const rule = search.get('rule') ?? '';
  const page = Math.max(1, Number(search.get('page') ?? '1') || 1);
  const alerts = useQuery({
    queryKey: ['anomalies', projectId, rule, page],
    queryFn: () =>
      call('GET /v1/audit/anomalies', { query: { project_id: projectId, rule: verbatim(rule), page, limit: 20 } }),
    refetchInterval: 10_000,
  });
  const set = (next: { rule?: string; page?: number }) =>
    setSearch({
      rule: next.rule ?? rule,
      page: next.page !== undefined && next.page > 1 ? String(next.page) : undefined,
    });
  return (
    <section aria-labelledby="alerts-heading">
      <div className="row an-head">
        <h2 id="alerts-heading">Alerts</h2>
        <label>
          Rule{' '}
          <select value={rule} onChange={(e) => set({ rule: e.target.value, page: 1 })}>
            <option value="">Every rule</option>
            {RULES.map((r) => (
              <option key={r.rule} value={r.rule}>
                {r.title}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote error={alerts.error} title="Alerts could not be read" />
      {alerts.isPending && <Loading what="alerts" />}
      {alerts.data && alerts.data.data.length === 0 && (
        <Empty>
          {rule === ''
            ? 'No alert yet. The anomaly scan runs every 30 s (WATCHLOG_ANOMALY_SCAN_SECONDS) over the rules ' +
              'below; an alert appears here, newest first, and notifies the channels that take "alert" events.'
            : 'No alert of this rule.'}
        </Empty>
      )}
      {alerts.data && alerts.data.data.length > 0 && (
        <>
          <div className="table-wrap">
            <table aria-label="Alerts">
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Rule</th>
                  <th>Service</th>
                  <th>State</th>
                  <th>What was seen</th>
                </tr>
              </thead>
              <tbody>
                {alerts.data.data.map((a) => (
                  <tr key={a.id}>
                    <td>
                      <Link to={`/p/${projectId}/events/${a.id}`}>{formatTime(a.timestamp)}</Link>
                    </td>
                    <td>{RULES.find((r) => r.rule === a.path)?.title ?? a.path}</td>
                    <td>{a.service_name}</td>
                    <td>{a.open ? <span className="an-open">Open</span> : <span className="muted">Cleared</span>}</td>
                    <td className="an-body">{describe(a.request_body)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="pager">
            <button type="button" disabled={page <= 1} onClick={() => set({ page: page - 1 })}>
              Previous
            </button>
            <span aria-live="polite">
              Page {page} of {Math.max(1, alerts.data.pagination.totalPage)} · {alerts.data.pagination.totalItems}{' '}
              {alerts.data.pagination.totalItems === 1 ? 'alert' : 'alerts'}
            </span>
            <button
              type="button"
              disabled={page >= alerts.data.pagination.totalPage}
              onClick={() => set({ page: page + 1 })}
            >
              Next
            </button>
          </div>
        </>
      )}
    </section>
  );
};

const SettingsForm = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const client = useQueryClient();
  const key = ['anomaly-settings', projectId];
  const settings = useQuery({
    queryKey: key,
    queryFn: () => call('GET /v1/projects/:id/anomaly-settings', { params: { id: projectId } }),
  });
  const [draft, setDraft] = useState<Record<string, Record<string, string | boolean>>>({});
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (settings.data === undefined) return;
    setDraft(
      Object.fromEntries(
        RULES.map(({ rule }) => [
          rule,
          Object.fromEntries(
            Object.entries(settings.data[rule]).map(([f, v]) => [f, typeof v === 'boolean' ? v : String(v)]),
          ),
        ]),
      ),
    );
  }, [settings.data]);
  const save = useMutation({
    mutationFn: (patch: Patch) =>
      call('PUT /v1/projects/:id/anomaly-settings', { params: { id: projectId }, body: patch }),
    onSuccess: (next) => {
      client.setQueryData(key, next);
      setSaved(true);
    },
  });
  if (settings.error) return <ErrorNote error={settings.error} title="Anomaly settings could not be read" />;
  if (settings.data === undefined || Object.keys(draft).length === 0) return <Loading what="anomaly settings" />;
  const current = settings.data;
  const error = save.error instanceof ApiError ? save.error : null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    // Only what changed: a field the project never set keeps following the deployment's default.
    const patch: Record<string, Record<string, number | boolean | Verbatim>> = {};
    for (const { rule } of RULES) {
      const was: RuleSettings = current[rule];
      for (const [field, value] of Object.entries(draft[rule] ?? {})) {
        // Not a number: sent as typed, so the server's message for that field says what it needs.
        const next =
          typeof value === 'boolean'
            ? value
            : value.trim() === '' || !Number.isFinite(Number(value))
              ? verbatim(value)
              : Number(value);
        if (next !== was[field]) {
          patch[rule] ??= {};
          patch[rule][field] = next;
        }
      }
    }
    save.mutate(patch);
  };
  const reset = (rule: Rule, field: string) => {
    setSaved(false);
    save.mutate({ [rule]: { [field]: null } });
  };

  return (
    <form onSubmit={submit} aria-label="Anomaly settings" className="an-settings" noValidate>
      <h2>Anomaly settings</h2>
      <p className="muted">
        This project&apos;s rules. A value the project has not set follows the deployment&apos;s default; &ldquo;Reset
        to default&rdquo; goes back to it.{' '}
        {current.updated_at ? `Last changed ${formatTime(current.updated_at)}.` : 'All values are the defaults.'}
      </p>
      <div className="an-rules">
        {RULES.map(({ rule, title, fires, fields }) => (
          <fieldset key={rule} disabled={!canWrite || save.isPending}>
            <legend>{title}</legend>
            <p className="muted">Fires when {fires}.</p>
            <label className="an-check">
              <input
                type="checkbox"
                checked={draft[rule]?.enabled === true}
                onChange={(e) => setDraft({ ...draft, [rule]: { ...draft[rule], enabled: e.target.checked } })}
              />{' '}
              Enabled
            </label>
            {fields.map((f) => {
              const id = `an-${rule}-${f.name}`;
              const message = error?.fieldMessage(`${rule}.${f.name}`);
              return (
                <div key={f.name} className={`field${message ? ' invalid' : ''}`}>
                  <label htmlFor={id}>{f.label}</label>
                  <div className="row">
                    <input
                      id={id}
                      type="number"
                      inputMode="decimal"
                      step={f.step ?? '1'}
                      value={String(draft[rule]?.[f.name] ?? '')}
                      aria-invalid={message ? true : undefined}
                      aria-describedby={message ? `${id}-error` : undefined}
                      onChange={(e) => setDraft({ ...draft, [rule]: { ...draft[rule], [f.name]: e.target.value } })}
                    />
                    {canWrite && (
                      <button
                        type="button"
                        onClick={() => reset(rule, f.name)}
                        aria-label={`Reset ${title}: ${f.label} to default`}
                      >
                        Reset to default
                      </button>
                    )}
                  </div>
                  {message && (
                    <small id={`${id}-error`} className="field-error" role="alert">
                      {message}
                    </small>
                  )}
                </div>
              );
            })}
          </fieldset>
        ))}
      </div>
      <ErrorNote error={save.error} title="The settings were not saved" />
      {saved && !save.isPending && (
        <p role="status" className="notice">
          Saved.
        </p>
      )}
      {canWrite ? (
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save settings'}
        </button>
      ) : (
        <p className="muted">Only admins and members change the settings.</p>
      )}
    </form>
  );
};

export const Anomalies = ({ projectId }: { projectId: string }) => (
  <section>
    <h1>Anomalies</h1>
    <AlertList projectId={projectId} />
    <SettingsForm projectId={projectId} />
  </section>
);
