import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, type Check, type Monitor } from '../../api.ts';
import { ErrorNote, Health, MaintenanceBadge } from '../../components/ui.tsx';
import { ago, formatMs, formatPercent, formatTime } from '../../format.ts';
import { CheckStrip } from './CheckStrip.tsx';
import { MonitorHistory } from './MonitorHistory.tsx';
import { daysLeft, daysLeftText, TestResult } from './TestResult.tsx';

const KIND_NAMES: Record<Monitor['type'], string> = { http: 'HTTP', tcp: 'TCP', dns: 'DNS', heartbeat: 'Heartbeat' };

const lastResult = (m: Monitor): string => {
  if (m.last_checked_at === null) return m.enabled ? 'No check yet' : 'Never checked';
  const latency = m.last_response_ms === null || m.type === 'heartbeat' ? '' : ` in ${formatMs(m.last_response_ms)}`;
  if (m.last_error !== null) return `${m.last_error}${latency}`;
  if (m.type === 'heartbeat') return 'Beat received';
  return `${m.last_status_code ?? 'OK'}${latency}`;
};

const resultClass = (m: Monitor) =>
  m.last_checked_at === null ? ' muted' : m.last_error !== null ? ' check-failed' : '';

/** What the monitor watches, in one line (the whole of it in the title when it is cut). */
const targetText = (m: Monitor): string => {
  switch (m.type) {
    case 'dns':
      return `${m.hostname ?? ''} ${m.record_type ?? 'A'}${m.resolver === undefined ? '' : ` @ ${m.resolver}`}`;
    case 'heartbeat':
      return `beats every ${m.interval_seconds} s + ${m.grace_seconds ?? 60} s grace`;
    case 'tcp':
      return `${m.url}${m.tls ? ' (TLS)' : ''}`;
    default:
      return m.url;
  }
};

const Target = ({ m, now }: { m: Monitor; now: number }) => {
  const text = targetText(m);
  const cert = m.last_certificate;
  return (
    <>
      <div className="target" title={text}>
        <span className="kind">{KIND_NAMES[m.type]}</span>{' '}
        {m.type === 'http' ? (
          <a href={m.url} target="_blank" rel="noreferrer noopener">
            {text}
          </a>
        ) : (
          text
        )}
      </div>
      {cert !== null && (
        <div
          className={`cert${daysLeft(cert.valid_to, now) <= 14 ? ' check-failed' : ' muted'}`}
          title={`Certificate of ${cert.names.join(', ') || cert.subject} by ${cert.issuer}, valid to ${formatTime(
            cert.valid_to,
          )}`}
        >
          Certificate: {daysLeftText(cert.valid_to, now)}
        </div>
      )}
    </>
  );
};

type TestRun = ReturnType<typeof useTest>;
const useTest = (m: Monitor) =>
  useMutation({ mutationFn: () => call('POST /v1/monitors/:id/test', { params: { id: m.id } }) });

/** Test now (not for heartbeats), edit, pause/resume and delete: small buttons in two rows. */
const RowActions = ({
  monitor,
  test,
  onEdit,
  onDelete,
}: {
  monitor: Monitor;
  test: TestRun;
  onEdit: () => void;
  onDelete: () => void;
}) => {
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: () => call('PUT /v1/monitors/:id', { params: { id: monitor.id }, body: { enabled: !monitor.enabled } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['monitors'] }),
  });
  return (
    <div className="monitor-actions">
      <div className="row">
        {monitor.type === 'heartbeat' ? (
          <span />
        ) : (
          <button
            type="button"
            onClick={() => test.mutate()}
            disabled={test.isPending}
            aria-label={`Test ${monitor.name} now`}
          >
            {test.isPending ? 'Testing…' : 'Test'}
          </button>
        )}
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
      <ErrorNote error={toggle.error} title={monitor.enabled ? 'Not paused' : 'Not resumed'} />
    </div>
  );
};

/** One monitor: its row, what Test now saw (under it, the table's width), and its history when
 *  open. */
export const MonitorRow = ({
  m,
  now,
  checks,
  expanded,
  columns,
  canWrite,
  onToggle,
  onEdit,
  onDelete,
}: {
  m: Monitor;
  now: number;
  checks: Check[] | undefined;
  expanded: boolean;
  columns: number;
  canWrite: boolean;
  onToggle: () => void;
  onEdit: () => void;
  onDelete: () => void;
}) => {
  const test = useTest(m);
  const tested = test.isPending || test.data !== undefined || test.error !== null;
  return (
    <>
      <tr id={`monitor-${m.id}`} className={m.status === 'DOWN' && m.enabled ? 'monitor-down' : undefined}>
        <th scope="row" className="monitor-name">
          <button
            type="button"
            className="expander"
            aria-expanded={expanded}
            aria-controls={`history-${m.id}`}
            onClick={onToggle}
            aria-label={`History of ${m.name}`}
          >
            <span aria-hidden="true">{expanded ? '▾' : '▸'}</span>
          </button>{' '}
          <span className="name" title={m.name}>
            {m.name}
          </span>
        </th>
        <td className="target-cell">
          <Target m={m} now={now} />
        </td>
        <td>
          <Health status={m.status} />
          {m.in_maintenance && (
            <>
              {' '}
              <MaintenanceBadge />
            </>
          )}
          <div className="muted small" title={formatTime(m.status_since)}>
            {m.status_since === null ? '' : `for ${ago(m.status_since, now).replace(' ago', '')}`}
          </div>
        </td>
        <td>
          <CheckStrip checks={checks} name={m.name} />
          <div className="muted small" title={formatTime(m.last_checked_at)}>
            {m.enabled
              ? `${m.last_checked_at === null ? 'not yet' : ago(m.last_checked_at, now)}, every ${m.interval_seconds} s`
              : 'paused'}
          </div>
        </td>
        <td className={`last-result${resultClass(m)}`}>{lastResult(m)}</td>
        <td className="num uptime">
          <div title="Uptime of the last 24 hours">{formatPercent(m.uptime_24h)}</div>
          <div className="muted" title="Uptime of the last 30 days">
            {formatPercent(m.uptime_30d)}
          </div>
        </td>
        {canWrite && (
          <td className="actions">
            <RowActions monitor={m} test={test} onEdit={onEdit} onDelete={onDelete} />
          </td>
        )}
      </tr>
      {tested && (
        <tr className="monitor-test">
          <td colSpan={columns}>
            <div role="status" aria-live="polite" aria-label={`Test of ${m.name}`}>
              {test.isPending && <p className="muted">Testing {m.name}…</p>}
              {test.data !== undefined && !test.isPending && <TestResult check={test.data} />}
            </div>
            <ErrorNote error={test.error} title="The test did not run" />
            {!test.isPending && (
              <button type="button" onClick={() => test.reset()} aria-label={`Close the test of ${m.name}`}>
                Close
              </button>
            )}
          </td>
        </tr>
      )}
      {expanded && (
        <tr className="monitor-expanded">
          <td colSpan={columns} id={`history-${m.id}`}>
            <MonitorHistory monitor={m} />
          </td>
        </tr>
      )}
    </>
  );
};
