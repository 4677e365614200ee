import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { call, type Check, type Monitor } from '../../api.ts';
import { TimeChart, type Series } from '../../components/TimeChart.tsx';
import { Empty, ErrorNote, Loading, MaintenanceBadge } from '../../components/ui.tsx';
import { formatMs, formatTime } from '../../format.ts';
import { LIVE_MS } from '../../hooks.ts';

export const HISTORY_LIMIT = 50;

/** Canvas colours cannot read CSS variables; these read on both the light and the dark panel. */
const LINE = '#3b82f6';
const FAILED = '#e5484d';

export const checkResult = (c: Pick<Check, 'ok' | 'status_code' | 'error'>): string =>
  c.ok
    ? `OK${c.status_code !== null ? ` (${c.status_code})` : ''}`
    : `Failed: ${c.error ?? (c.status_code !== null ? `status ${c.status_code}` : 'no answer')}`;

/** The last 50 checks of a monitor: response times as a line with a point per check, failed
 *  checks as red points of their own, and the same checks as a table. */
export const MonitorHistory = ({ monitor }: { monitor: Monitor }) => {
  const history = useQuery({
    queryKey: ['monitors', 'history', monitor.id],
    queryFn: () =>
      call('GET /v1/monitors/:id/history', { params: { id: monitor.id }, query: { limit: HISTORY_LIMIT } }),
    refetchInterval: LIVE_MS,
  });

  const chart = useMemo(() => {
    const checks = [...(history.data ?? [])].reverse();
    const series: Series[] = [
      { label: 'Response time (ms)', color: LINE, points: true, values: checks.map((c) => c.response_ms) },
      { label: 'Failed check', color: FAILED, points: true, values: checks.map((c) => (c.ok ? null : c.response_ms)) },
    ];
    return { x: checks.map((c) => Date.parse(c.checked_at) / 1000), series };
  }, [history.data]);

  if (history.isPending) return <Loading what="the check history" />;
  if (history.isError) return <ErrorNote error={history.error} title="The check history could not be read" />;
  const checks = history.data;
  if (checks.length === 0) {
    return (
      <Empty>
        No check yet. The first runs as soon as the monitor is enabled, then every {monitor.interval_seconds} s.
      </Empty>
    );
  }
  const failed = checks.filter((c) => !c.ok).length;
  return (
    <div className="monitor-history">
      {monitor.in_maintenance && (
        <p>
          <MaintenanceBadge /> A maintenance window covers {monitor.name} now: its checks are recorded, but a change of
          state notifies no one and uptime leaves them out.
        </p>
      )}
      <p className="muted">
        {checks.length === 1 ? 'The last check' : `The last ${checks.length} checks`}:{' '}
        {failed === 0 ? 'none failed' : `${failed} failed (red points)`}.
      </p>
      <TimeChart
        x={chart.x}
        series={chart.series}
        height={200}
        yLabel="ms"
        label={
          `Response time of the last ${checks.length} checks of ` +
          `${monitor.name}${failed > 0 ? `, ${failed} failed` : ''}`
        }
      />
      <div className="table-wrap checks-scroll">
        <table aria-label={`Checks of ${monitor.name}`}>
          <thead>
            <tr>
              <th scope="col">Checked at</th>
              <th scope="col">Result</th>
              <th scope="col" className="num">
                Status
              </th>
              <th scope="col" className="num">
                Response time
              </th>
            </tr>
          </thead>
          <tbody>
            {checks.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: two checks can share a time; the rows hold no state
              <tr key={`${c.checked_at}-${i}`}>
                <td>{formatTime(c.checked_at)}</td>
                <td className={c.ok ? 'check-ok' : 'check-failed'}>
                  {checkResult(c)}
                  {c.in_maintenance === true && <span className="muted"> (during maintenance)</span>}
                </td>
                <td className="num">{c.status_code ?? '—'}</td>
                <td className="num">{formatMs(c.response_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
};
