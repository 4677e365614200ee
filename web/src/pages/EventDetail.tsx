import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError, type AuditEvent, call } from '../api.ts';
import { formatMs, formatTime } from '../format.ts';
import { Link, useSearchParams } from '../router.tsx';
import { ErrorNote, Loading } from '../components/ui.tsx';
import { StatusCode, safeInternal } from './events-shared.tsx';

const BODIES = ['request_body', 'query_params', 'path_params', 'response_body'] as const;

type Shown = Exclude<keyof AuditEvent, (typeof BODIES)[number]>;

/** SPEC 2.2's fields in the order an operator reads them, absent ones shown as such ("—" says
 *  the SDK did not send it); any field a newer server adds follows. */
const ORDER: readonly string[] = [
  'id',
  'timestamp',
  'event_type',
  'method',
  'path',
  'status_code',
  'response_time',
  'service_name',
  'environment',
  'project_id',
  'source',
  'identifier',
  'user_email',
  'user_name',
  'user_roles',
  'user_type',
  'tenant_id',
  'ip',
  'user_agent',
  'request_id',
  'session_id',
  'error_message',
] satisfies Shown[];

/** Every field's label (tsc asks for a new one's); a field a newer server adds shows by its name. */
const LABELS: Partial<Record<string, string>> & Record<Shown, string> = {
  id: 'Id',
  timestamp: 'Time',
  event_type: 'Event type',
  method: 'Method',
  path: 'Path',
  status_code: 'Status',
  response_time: 'Latency',
  service_name: 'Service',
  environment: 'Environment',
  project_id: 'Project',
  source: 'Source',
  identifier: 'Identifier',
  user_email: 'User e-mail',
  user_name: 'User name',
  user_roles: 'User roles',
  user_type: 'User type',
  tenant_id: 'Tenant',
  ip: 'IP address',
  user_agent: 'User agent',
  request_id: 'Request id',
  session_id: 'Session id',
  error_message: 'Error message',
};

const pretty = (v: unknown): string => JSON.stringify(v, null, 2);

const Value = ({ name, value }: { name: string; value: unknown }) => {
  if (value === null || value === undefined || value === '') return <span className="muted">—</span>;
  if (name === 'timestamp' && typeof value === 'string')
    return (
      <>
        <time dateTime={value}>{formatTime(value)}</time> <code className="muted">{value}</code>
      </>
    );
  if (name === 'status_code' && typeof value === 'number') return <StatusCode code={value} />;
  if (name === 'response_time' && typeof value === 'number') return <>{formatMs(value)}</>;
  if (Array.isArray(value))
    return <>{value.length === 0 ? <span className="muted">none</span> : value.map(String).join(', ')}</>;
  if (typeof value === 'object') return <code>{JSON.stringify(value)}</code>;
  return <span className="ev-break">{String(value)}</span>;
};

const Body = ({ name, value }: { name: string; value: unknown }) => (
  <section className="ev-body" aria-labelledby={`h-${name}`}>
    <h3 id={`h-${name}`}>{name}</h3>
    {value === null || value === undefined ? (
      <p className="muted">Not sent.</p>
    ) : (
      <pre
        // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls: keyboard users must reach it
        tabIndex={0}
      >
        {pretty(value)}
      </pre>
    )}
  </section>
);

export const EventDetail = ({ projectId, eventId }: { projectId: string; eventId: string }) => {
  const [search] = useSearchParams();
  const [revealed, setRevealed] = useState(false);
  const back = safeInternal(search.get('back'));
  const event = useQuery({
    queryKey: ['audit', 'event', eventId],
    queryFn: () => call('GET /v1/audit/:id', { params: { id: eventId } }),
    retry: false,
  });
  const backLink = back ?? `/p/${projectId}/events`;
  const backLabel = back !== null && !back.startsWith(`/p/${projectId}/events`) ? '← Back' : '← Events';

  const e = event.data;
  // By name, fields a newer server adds included.
  const byName: Readonly<Record<string, unknown>> | undefined = e;
  const notFound = event.error instanceof ApiError && event.error.status === 404;
  const fields =
    e === undefined
      ? []
      : [...ORDER, ...Object.keys(e).filter((k) => !ORDER.includes(k) && !(BODIES as readonly string[]).includes(k))];
  const sessionId = typeof e?.session_id === 'string' ? e.session_id : null;
  const response = e?.response_body;

  return (
    <section>
      <p>
        <Link to={backLink}>{backLabel}</Link>
      </p>
      <h1>
        Event
        {e !== undefined && (
          <>
            {' '}
            <span className="muted">
              {e.method} <code>{e.path}</code>
            </span>
          </>
        )}
      </h1>
      {event.isPending && <Loading what="the event" />}
      {notFound && (
        <div className="error-note" role="alert">
          No event with id <code>{eventId}</code> in the projects you may see. It may belong to another project, or the
          link may be wrong.
        </div>
      )}
      {!notFound && <ErrorNote error={event.error} title="The event could not be read" />}
      {e !== undefined && (
        <>
          {e.project_id !== undefined && e.project_id !== projectId && (
            <p className="notice">
              This event belongs to another project:{' '}
              <Link to={`/p/${String(e.project_id)}/events/${e.id}`}>open it there</Link>.
            </p>
          )}
          <nav className="row ev-related" aria-label="Related">
            {sessionId !== null && (
              <Link to={`/p/${projectId}/sessions/${encodeURIComponent(sessionId)}`}>Explicit session {sessionId}</Link>
            )}
            <Link
              to={
                `/p/${projectId}/sessions?identifier=${encodeURIComponent(e.identifier)}` +
                `&service_name=${encodeURIComponent(e.service_name)}`
              }
            >
              Sessions of {e.identifier} in {e.service_name}
            </Link>
            <Link to={`/p/${projectId}/events?identifier=${encodeURIComponent(e.identifier)}`}>
              All events of {e.identifier}
            </Link>
          </nav>
          <div className="panel">
            <dl className="ev-fields">
              {fields.map((k) => (
                <div key={k}>
                  <dt>{LABELS[k] ?? k}</dt>
                  <dd>
                    <Value name={k} value={byName?.[k]} />
                  </dd>
                </div>
              ))}
            </dl>
          </div>
          <h2>Bodies</h2>
          <div className="ev-bodies">
            {BODIES.filter((b) => b !== 'response_body').map((b) => (
              <Body key={b} name={b} value={e[b]} />
            ))}
            <section className="ev-body" aria-labelledby="h-response_body">
              <h3 id="h-response_body">response_body</h3>
              {response === null || response === undefined ? (
                <p className="muted">Not sent.</p>
              ) : revealed ? (
                <>
                  <button type="button" onClick={() => setRevealed(false)}>
                    Hide
                  </button>
                  <pre
                    // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls: keyboard users must reach it
                    tabIndex={0}
                  >
                    {pretty(response)}
                  </pre>
                </>
              ) : (
                <>
                  <p className="muted">Hidden: a response can hold personal data. Reveal it only when you need it.</p>
                  <button type="button" onClick={() => setRevealed(true)}>
                    Reveal
                  </button>
                </>
              )}
            </section>
          </div>
        </>
      )}
    </section>
  );
};
