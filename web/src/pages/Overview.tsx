import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { type AuditEventInput, call, type Monitor, type Statistics } from '../api.ts';
import { useCanWrite } from '../auth.tsx';
import { TimeChart, type Series } from '../components/TimeChart.tsx';
import { Empty, ErrorNote, Health, Loading } from '../components/ui.tsx';
import { ago, formatMs, formatNumber, formatTime } from '../format.ts';
import { LIVE_MS, useProjects } from '../hooks.ts';
import { Link, useSearchParams } from '../router.tsx';
import {
  RANGES,
  SELF_PROJECT_ID,
  STATS_MS,
  share,
  isRangeKey,
  monitorFor,
  statsQuery,
  type RangeKey,
} from './overview-data.ts';
import './overview.css';

// Fixed colours: the chart draws on a canvas, which cannot read CSS variables; these read on both
// the light and the dark panel.
const COLORS = { requests: '#3b82f6', e4xx: '#d98e04', e5xx: '#e5484d' };

const Card = ({
  label,
  value,
  detail,
  tone,
}: {
  label: string;
  value: string;
  detail?: string;
  tone?: 'warn' | 'bad';
}) => {
  const id = `card-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a card groups figures, not form controls: a fieldset is for those
    <div className={`card${tone ? ` card-${tone}` : ''}`} role="group" aria-labelledby={id}>
      <div className="label" id={id}>
        {label}
      </div>
      <div className="value">{value}</div>
      {detail !== undefined && <div className="muted detail">{detail}</div>}
    </div>
  );
};

const RangeChooser = ({ range, onChange }: { range: RangeKey; onChange: (r: RangeKey) => void }) => (
  // biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons; a fieldset would bring its own box
  <div className="range-chooser" role="group" aria-label="Time range">
    {(Object.keys(RANGES) as RangeKey[]).map((key) => (
      <button
        key={key}
        type="button"
        aria-pressed={key === range}
        title={RANGES[key].label}
        onClick={() => onChange(key)}
      >
        {RANGES[key].short}
      </button>
    ))}
  </div>
);

/** Counts by a key (status class, method) as a labelled table with a share bar per row. */
const Breakdown = ({
  title,
  counts,
  order,
}: {
  title: string;
  counts: Readonly<Record<string, number | undefined>>;
  order?: string[];
}) => {
  const total = Object.values(counts).reduce<number>((a, b) => a + (b ?? 0), 0);
  const headingId = `h-${title.replace(/\W+/g, '-').toLowerCase()}`;
  const keys = Object.keys(counts).sort((a, b) =>
    order ? order.indexOf(a) - order.indexOf(b) : counts[b]! - counts[a]!,
  );
  return (
    <div className="panel breakdown">
      <h2 id={headingId}>{title}</h2>
      {keys.length === 0 ? (
        <p className="muted">None in this range.</p>
      ) : (
        <table aria-labelledby={headingId}>
          <thead>
            <tr>
              <th scope="col">{title === 'Methods' ? 'Method' : 'Class'}</th>
              <th scope="col" className="num">
                Requests
              </th>
              <th scope="col" className="num">
                Share
              </th>
              <th scope="col">
                <span className="visually-hidden">Bar</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => {
              const n = counts[k]!;
              return (
                <tr key={k}>
                  <th scope="row" className={k === '5xx' ? 'status-5xx' : k === '4xx' ? 'status-4xx' : undefined}>
                    {k}
                  </th>
                  <td className="num">{formatNumber(n)}</td>
                  <td className="num">{share(n, total)}</td>
                  <td className="bar-cell" aria-hidden="true">
                    <span
                      className={`bar bar-${k}`}
                      style={{ width: `${total === 0 || n === 0 ? 0 : Math.max(1, (n / total) * 100)}%` }}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
};

const HealthCell = ({ projectId, monitor }: { projectId: string; monitor: Monitor | undefined }) => {
  if (monitor === undefined) return <Health status={undefined} />;
  return (
    <Link
      to={`/p/${projectId}/monitors?open=${monitor.id}`}
      className="health-link"
      title={`${monitor.url}${monitor.last_error ? ` — ${monitor.last_error}` : ''}`}
    >
      <Health status={monitor.status} />
      {!monitor.enabled && <span className="muted"> (paused)</span>}
    </Link>
  );
};

const FIRST_EVENT = {
  path: '/api/orders',
  method: 'POST',
  status_code: 201,
  response_time: 42,
  identifier: 'user-1',
  service_name: 'orders',
  environment: 'production',
} satisfies AuditEventInput;

/** The project has never received an event: the next step is a key and one curl line. */
const FirstEvent = ({ projectId }: { projectId: string }) => {
  if (projectId === SELF_PROJECT_ID) {
    return (
      <Empty>
        <h2>watchlog's own audit log</h2>
        <p>
          This built-in project records what happens in watchlog itself (logins, exports, changes) as{' '}
          <code>system.access</code> events. They are not HTTP traffic, so they have no statistics here:{' '}
          <Link to={`/p/${projectId}/events?event_type=system.access`}>read them in Events</Link>.
        </p>
      </Empty>
    );
  }
  return <SendFirstEvent projectId={projectId} />;
};

const SendFirstEvent = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const [copied, setCopied] = useState<string | null>(null);
  const line =
    `curl -s ${window.location.origin}/v1/audit -H "x-api-key: $KEY" -H 'content-type: ` +
    `application/json' -d '${JSON.stringify(FIRST_EVENT)}'`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(line);
      setCopied('Copied.');
    } catch {
      // Clipboard access needs a secure context (https or localhost): say so rather than fail silently.
      setCopied('The browser refused the clipboard here: select the line and copy it.');
    }
  };
  return (
    <Empty>
      <h2>No events yet</h2>
      <ol className="steps">
        <li>
          {canWrite ? (
            <>
              Create an API key in <Link to={`/p/${projectId}/settings`}>Settings</Link> (it is shown once) and put it
              in <code>KEY</code>.
            </>
          ) : (
            <>
              Ask an admin or member for an API key of this project (they create keys in{' '}
              <Link to={`/p/${projectId}/settings`}>Settings</Link>) and put it in <code>KEY</code>.
            </>
          )}
        </li>
        <li>
          Send a first event:
          <figure className="snippet" aria-label="curl command to send a first event">
            <pre>
              <code>{line}</code>
            </pre>
          </figure>
          <button type="button" onClick={() => void copy()}>
            Copy command
          </button>
          {copied !== null && (
            <span role="status" className="muted">
              {' '}
              {copied}
            </span>
          )}
        </li>
        <li>This page refreshes by itself: the event shows here within seconds.</li>
      </ol>
    </Empty>
  );
};

const Timeline = ({ stats, range }: { stats: Statistics; range: RangeKey }) => {
  const { x, series } = useMemo(() => {
    const points = stats.timeline;
    const s: Series[] = [
      { label: 'Requests', color: COLORS.requests, values: points.map((p) => p.total) },
      { label: '4xx', color: COLORS.e4xx, values: points.map((p) => p.errors_4xx) },
      { label: '5xx', color: COLORS.e5xx, values: points.map((p) => p.errors_5xx) },
    ];
    return { x: points.map((p) => Date.parse(p.bucket) / 1000), series: s };
  }, [stats.timeline]);
  return (
    <section aria-labelledby="h-timeline">
      <h2 id="h-timeline">
        Requests and errors over time <span className="muted small">(per {RANGES[range].interval})</span>
      </h2>
      <TimeChart x={x} series={series} label="Requests and errors over time" yLabel="requests" />
    </section>
  );
};

const ServiceTable = ({
  projectId,
  stats,
  monitors,
}: {
  projectId: string;
  stats: Statistics;
  monitors: readonly Monitor[];
}) => (
  <section aria-labelledby="h-services">
    <h2 id="h-services">Services</h2>
    {stats.by_service.length === 0 ? (
      <p className="muted">No service sent events in this range.</p>
    ) : (
      <div className="table-wrap">
        <table aria-label="Services">
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Health</th>
              <th scope="col" className="num">
                Requests
              </th>
              <th scope="col" className="num">
                4xx
              </th>
              <th scope="col" className="num">
                5xx
              </th>
              <th scope="col" className="num">
                Error rate
              </th>
              <th scope="col" className="num">
                Avg
              </th>
              <th scope="col" className="num">
                p95
              </th>
              <th scope="col">Last event</th>
            </tr>
          </thead>
          <tbody>
            {stats.by_service.map((s) => (
              <tr key={s.service_name}>
                <th scope="row">
                  <Link to={`/p/${projectId}/events?service_name=${encodeURIComponent(s.service_name)}`}>
                    {s.service_name}
                  </Link>
                </th>
                <td>
                  <HealthCell projectId={projectId} monitor={monitorFor(monitors, s.service_name)} />
                </td>
                <td className="num">{formatNumber(s.total)}</td>
                <td className={`num${s.errors_4xx > 0 ? ' status-4xx' : ''}`}>{formatNumber(s.errors_4xx)}</td>
                <td className={`num${s.errors_5xx > 0 ? ' status-5xx' : ''}`}>{formatNumber(s.errors_5xx)}</td>
                <td className="num">{share(s.errors_4xx + s.errors_5xx, s.total)}</td>
                <td className="num">{formatMs(s.avg_response_time)}</td>
                <td className="num">{formatMs(s.p95_response_time)}</td>
                <td>
                  <time dateTime={s.last_event_at ?? undefined} title={formatTime(s.last_event_at)}>
                    {ago(s.last_event_at)}
                  </time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </section>
);

export const Overview = ({ projectId }: { projectId: string }) => {
  const [search, setSearch] = useSearchParams();
  const asked = search.get('range');
  const range: RangeKey = isRangeKey(asked) ? asked : '24h';
  const projects = useProjects();
  const project = projects.data?.find((p) => p.id === projectId);

  const stats = useQuery(statsQuery(projectId, range));
  const monitors = useQuery({
    queryKey: ['monitors', projectId],
    queryFn: () => call('GET /v1/monitors', { query: { project_id: projectId } }),
    refetchInterval: LIVE_MS,
  });
  // Only asked when the range is empty: an empty range and a project that never received an
  // event call for different next steps.
  const emptyRange = stats.data !== undefined && !stats.isPlaceholderData && stats.data.total === 0;
  const anyEvent = useQuery({
    queryKey: ['events', projectId, 'any'],
    queryFn: () => call('GET /v1/audit', { query: { project_id: projectId, event_type: 'http', limit: 1 } }),
    enabled: emptyRange,
    // A project waiting for its first event is polled like the stats, so the event shows unasked.
    refetchInterval: STATS_MS,
  });
  const neverReceived = emptyRange && anyEvent.data?.pagination.totalItems === 0;

  const s = stats.data;
  return (
    <section className="overview" aria-busy={stats.isFetching && stats.isPlaceholderData}>
      <div className="overview-head">
        <h1>{project ? `${project.name}: overview` : 'Overview'}</h1>
        <RangeChooser
          range={range}
          onChange={(r) => setSearch({ range: r === '24h' ? undefined : r }, { replace: true })}
        />
      </div>
      <p className="muted small">
        {RANGES[range].label}, refreshed every 10 s
        {s && !stats.isPlaceholderData ? ` · as of ${new Date(stats.dataUpdatedAt).toLocaleTimeString()}` : ''}.
      </p>
      <ErrorNote error={stats.error} title="Statistics could not be loaded" />
      <ErrorNote error={monitors.error} title="Monitors could not be loaded (Health column)" />
      <ErrorNote error={anyEvent.error} />
      {s === undefined ? (
        stats.isPending && <Loading what="statistics" />
      ) : neverReceived ? (
        <FirstEvent projectId={projectId} />
      ) : (
        <>
          {emptyRange && (
            <p className="notice" role="status">
              No requests in the {RANGES[range].label.toLowerCase()}.
              {range !== '30d' && (
                <>
                  {' '}
                  <button type="button" className="link" onClick={() => setSearch({ range: '30d' })}>
                    Show the last 30 days
                  </button>{' '}
                  or
                </>
              )}{' '}
              see <Link to={`/p/${projectId}/events`}>all events</Link>.
            </p>
          )}
          <div className="cards">
            <Card label="Requests" value={formatNumber(s.total)} />
            <Card
              label="4xx errors"
              value={formatNumber(s.errors_4xx)}
              detail={share(s.errors_4xx, s.total)}
              tone={s.errors_4xx > 0 ? 'warn' : undefined}
            />
            <Card
              label="5xx errors"
              value={formatNumber(s.errors_5xx)}
              detail={share(s.errors_5xx, s.total)}
              tone={s.errors_5xx > 0 ? 'bad' : undefined}
            />
            <Card label="Avg latency" value={formatMs(s.avg_response_time)} />
            <Card label="p95 latency" value={formatMs(s.p95_response_time)} />
            <Card label="Active services" value={formatNumber(s.active_services)} />
            <Card
              label="Last event"
              value={ago(s.last_event_at)}
              detail={s.last_event_at ? formatTime(s.last_event_at) : undefined}
            />
          </div>
          <Timeline stats={s} range={range} />
          <ServiceTable projectId={projectId} stats={s} monitors={monitors.data ?? []} />
          <div className="breakdowns">
            <Breakdown title="Status classes" counts={s.by_status_class} order={['1xx', '2xx', '3xx', '4xx', '5xx']} />
            <Breakdown title="Methods" counts={s.by_method} />
          </div>
        </>
      )}
    </section>
  );
};
