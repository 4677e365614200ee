import { Fragment, useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { MONITORS_PER_PROJECT, call, type Monitor } from '../api.ts';
import { useCanWrite } from '../auth.tsx';
import { Empty, ErrorNote, Health, Loading } from '../components/ui.tsx';
import { ago, formatMs, formatPercent, formatTime } from '../format.ts';
import { LIVE_MS } from '../hooks.ts';
import { useSearchParams } from '../router.tsx';
import { ConfirmDelete } from './monitors/ConfirmDelete.tsx';
import { MonitorForm } from './monitors/MonitorForm.tsx';
import { MonitorHistory, checkResult } from './monitors/MonitorHistory.tsx';
import './monitors/monitors.css';

/** Re-renders every few seconds, so "12 s ago" moves on even when the data did not change. */
const useNow = (everyMs: number): number => {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
};

const lastResult = (m: Monitor): string => {
  if (m.last_checked_at === null) return m.enabled ? 'No check yet' : 'Never checked';
  const latency = m.last_response_ms === null ? '' : ` in ${formatMs(m.last_response_ms)}`;
  if (m.last_error !== null) return `${m.last_error}${latency}`;
  return `${m.last_status_code ?? '—'}${latency}`;
};

/** Test now, pause/resume, edit and delete of one monitor, with their outcome said in the row. */
const RowActions = ({ monitor, onEdit, onDelete }: { monitor: Monitor; onEdit: () => void; onDelete: () => void }) => {
  const queryClient = useQueryClient();
  const test = useMutation({ mutationFn: () => call('POST /v1/monitors/:id/test', { params: { id: monitor.id } }) });
  const toggle = useMutation({
    mutationFn: () => call('PUT /v1/monitors/:id', { params: { id: monitor.id }, body: { enabled: !monitor.enabled } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['monitors'] }),
  });
  return (
    <div className="monitor-actions">
      <div className="row">
        <button
          type="button"
          onClick={() => test.mutate()}
          disabled={test.isPending}
          aria-label={`Test ${monitor.name} now`}
        >
          {test.isPending ? 'Testing…' : 'Test now'}
        </button>
        <button type="button" onClick={onEdit} aria-label={`Edit ${monitor.name}`}>
          Edit
        </button>
        <button
          type="button"
          onClick={() => toggle.mutate()}
          disabled={toggle.isPending}
          aria-label={`${monitor.enabled ? 'Pause' : 'Resume'} ${monitor.name}`}
        >
          {monitor.enabled ? 'Pause' : 'Resume'}
        </button>
        <button type="button" className="danger" onClick={onDelete} aria-label={`Delete ${monitor.name}`}>
          Delete
        </button>
      </div>
      <div role="status" aria-live="polite" className="test-result">
        {test.data !== undefined && (
          <span className={test.data.ok ? 'check-ok' : 'check-failed'}>
            Test at {new Date(test.data.checked_at).toLocaleTimeString()}: {checkResult(test.data)} in{' '}
            {formatMs(test.data.response_ms)}
            {test.data.ok ? '' : ' (not recorded: the state changes only with scheduled checks)'}
          </span>
        )}
      </div>
      <ErrorNote error={test.error} title="The test did not run" />
      <ErrorNote error={toggle.error} title={monitor.enabled ? 'Not paused' : 'Not resumed'} />
    </div>
  );
};

/** The project's monitors, live: state, last check, uptime; add, edit, pause, test and delete
 *  them; each row opens the chart and table of its last 50 checks (`?open=<id>` opens one). */
export const Monitors = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const now = useNow(LIVE_MS);
  const [search, setSearch] = useSearchParams();
  const open = search.get('open');
  const [form, setForm] = useState<{ editing: Monitor | null } | null>(null);
  const [deleting, setDeleting] = useState<Monitor | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const monitors = useQuery({
    queryKey: ['monitors', 'project', projectId],
    queryFn: () => call('GET /v1/monitors', { query: { project_id: projectId } }),
    refetchInterval: LIVE_MS,
  });

  // Opened from the DOWN banner: bring the monitor's row into view once it is there.
  const openShown = open !== null && monitors.data?.some((m) => m.id === open) === true;
  useEffect(() => {
    if (openShown) document.getElementById(`monitor-${open}`)?.scrollIntoView({ block: 'start' });
  }, [open, openShown]);

  const toggleOpen = (id: string) => setSearch({ open: open === id ? undefined : id }, { replace: true });
  const list = monitors.data ?? [];
  const full = list.length >= MONITORS_PER_PROJECT;

  const formPanel = form !== null && (
    <MonitorForm
      key={form.editing?.id ?? 'new'}
      projectId={projectId}
      editing={form.editing}
      onDone={(saved) => {
        setForm(null);
        if (saved !== null)
          setNotice(
            form.editing === null
              ? `Monitor ${saved.name} added: its first check runs now.`
              : `Monitor ${saved.name} saved.`,
          );
      }}
    />
  );

  return (
    <section>
      <div className="monitors-head">
        <h1>Monitors</h1>
        {canWrite && form === null && list.length > 0 && (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setNotice(null);
              setForm({ editing: null });
            }}
          >
            Add monitor
          </button>
        )}
      </div>
      <p className="muted">
        Each monitor calls a URL on its interval and is UP while the answer has the expected status. Uptime counts the
        checks of the last 24 hours and 7 days (whole hours plus the current one). While a monitor is DOWN, a banner
        says so on every screen.
      </p>
      {canWrite && full && (
        <p className="notice">
          This project has {MONITORS_PER_PROJECT} monitors, the most a project may have: delete one to add another.
        </p>
      )}
      {notice !== null && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {formPanel}
      {monitors.isPending && <Loading what="monitors" />}
      {monitors.isError && <ErrorNote error={monitors.error} title="The monitors could not be read" />}
      {monitors.isSuccess && list.length === 0 && form === null && (
        <Empty>
          <p>
            <strong>No monitor in this project yet.</strong>
          </p>
          <p>
            A monitor checks that a service answers: every interval it sends a GET to a URL and expects a status (200 by
            default). When the answer changes from healthy to failing, the service goes DOWN, a{' '}
            <code>system.healthcheck.down</code> audit event is recorded and the notification channels are told.
          </p>
          <p>
            Name the monitor exactly like the <code>service_name</code> of the service's events: the Overview's service
            table then shows its state next to that service.
          </p>
          {canWrite ? (
            <button type="button" className="primary" onClick={() => setForm({ editing: null })}>
              Add monitor
            </button>
          ) : (
            <p className="muted">Ask an admin or a member of this project to add one.</p>
          )}
        </Empty>
      )}
      {list.length > 0 && (
        <div className="table-wrap">
          <table aria-label="Monitors" className="monitors-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">URL</th>
                <th scope="col">State</th>
                <th scope="col">Since</th>
                <th scope="col">Last check</th>
                <th scope="col">Last result</th>
                <th scope="col" className="num">
                  Uptime 24 h
                </th>
                <th scope="col" className="num">
                  Uptime 7 d
                </th>
                <th scope="col">Enabled</th>
                {canWrite && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((m) => {
                const expanded = open === m.id;
                return (
                  <Fragment key={m.id}>
                    <tr
                      id={`monitor-${m.id}`}
                      className={m.status === 'DOWN' && m.enabled ? 'monitor-down' : undefined}
                    >
                      <th scope="row" className="monitor-name">
                        <button
                          type="button"
                          className="expander"
                          aria-expanded={expanded}
                          aria-controls={`history-${m.id}`}
                          onClick={() => toggleOpen(m.id)}
                          aria-label={`History of ${m.name}`}
                        >
                          <span aria-hidden="true">{expanded ? '▾' : '▸'}</span>
                        </button>{' '}
                        {m.name}
                      </th>
                      <td className="url">
                        <a href={m.url} target="_blank" rel="noreferrer noopener">
                          {m.url}
                        </a>
                      </td>
                      <td>
                        <Health status={m.status} />
                        {!m.enabled && <span className="muted"> (paused)</span>}
                      </td>
                      <td title={formatTime(m.status_since)}>
                        {m.status_since === null ? '—' : ago(m.status_since, now)}
                      </td>
                      <td title={formatTime(m.last_checked_at)}>{ago(m.last_checked_at, now)}</td>
                      <td
                        className={
                          'last-result' +
                          (m.last_checked_at === null ? ' muted' : m.last_error !== null ? ' check-failed' : '')
                        }
                      >
                        {lastResult(m)}
                      </td>
                      <td className="num">{formatPercent(m.uptime_24h)}</td>
                      <td className="num">{formatPercent(m.uptime_7d)}</td>
                      <td>{m.enabled ? `Yes, every ${m.interval_seconds} s` : 'No, paused'}</td>
                      {canWrite && (
                        <td>
                          <RowActions
                            monitor={m}
                            onEdit={() => {
                              setNotice(null);
                              setForm({ editing: m });
                              window.scrollTo(0, 0);
                            }}
                            onDelete={() => setDeleting(m)}
                          />
                        </td>
                      )}
                    </tr>
                    {expanded && (
                      <tr className="monitor-expanded">
                        <td colSpan={canWrite ? 10 : 9} id={`history-${m.id}`}>
                          <MonitorHistory monitor={m} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {monitors.isSuccess && open !== null && !list.some((m) => m.id === open) && (
        <p className="muted">The monitor linked here is not in this project any more (it may have been deleted).</p>
      )}
      {deleting !== null && (
        <ConfirmDelete
          monitor={deleting}
          onClose={(deleted) => {
            if (deleted) {
              setNotice(`Monitor ${deleting.name} deleted.`);
              if (open === deleting.id) toggleOpen(deleting.id);
            }
            setDeleting(null);
          }}
        />
      )}
    </section>
  );
};
