import { useQuery } from '@tanstack/react-query';
import { ApiError, call } from '../api.ts';
import { formatDuration, formatNumber, formatTime } from '../format.ts';
import { Link } from '../router.tsx';
import { ErrorNote, Loading } from '../components/ui.tsx';
import { StatusCode } from './events-shared.tsx';

const MAX_LISTED = 10_000;

export const ExplicitSession = ({ projectId, sessionId }: { projectId: string; sessionId: string }) => {
  const session = useQuery({
    queryKey: ['audit', 'explicit-session', sessionId],
    queryFn: () => call('GET /v1/audit/sessions/:session_id', { params: { session_id: sessionId } }),
    retry: false,
  });
  const s = session.data;
  const notFound = session.error instanceof ApiError && session.error.status === 404;
  const here = `/p/${projectId}/sessions/${encodeURIComponent(sessionId)}`;

  return (
    <section>
      <p>
        <Link to={`/p/${projectId}/sessions`}>← Sessions</Link>
      </p>
      <h1>
        Session <code>{sessionId}</code>
      </h1>
      {session.isPending && <Loading what="the session" />}
      {notFound && (
        <div className="error-note" role="alert">
          No event in the projects you may see carries the session id <code>{sessionId}</code>. Check the id your
          service sends as <code>session_id</code>.
        </div>
      )}
      {!notFound && <ErrorNote error={session.error} title="The session could not be read" />}
      {s !== undefined && (
        <>
          <div className="panel">
            <dl className="ev-fields">
              <div>
                <dt>Identifier</dt>
                <dd>{s.identifier}</dd>
              </div>
              <div>
                <dt>Service</dt>
                <dd>{s.service_name}</dd>
              </div>
              <div>
                <dt>Start</dt>
                <dd>{formatTime(s.session_start)}</dd>
              </div>
              <div>
                <dt>End</dt>
                <dd>{formatTime(s.session_end)}</dd>
              </div>
              <div>
                <dt>Duration</dt>
                <dd>{formatDuration(s.duration_seconds)}</dd>
              </div>
              <div>
                <dt>Events</dt>
                <dd>{formatNumber(s.event_count)}</dd>
              </div>
            </dl>
          </div>
          <h2>Its events, oldest first</h2>
          {s.event_count > s.events.length && (
            <p className="notice">
              The first {formatNumber(MAX_LISTED)} of {formatNumber(s.event_count)} events are listed.
            </p>
          )}
          <div className="table-wrap">
            <table className="ev-table" aria-label="Session events">
              <thead>
                <tr>
                  <th className="num">#</th>
                  <th>Time</th>
                  <th>Method</th>
                  <th>Path</th>
                  <th className="num">Status</th>
                </tr>
              </thead>
              <tbody>
                {s.events.map((e, i) => (
                  <tr key={e.id}>
                    <td className="num">{i + 1}</td>
                    <td>
                      <Link
                        to={`/p/${projectId}/events/${e.id}?back=${encodeURIComponent(here)}`}
                        aria-label={`Open event ${e.method} ${e.path} at ${formatTime(e.timestamp)}`}
                      >
                        {formatTime(e.timestamp)}
                      </Link>
                    </td>
                    <td>{e.method}</td>
                    <td className="ev-path">
                      <code>{e.path}</code>
                    </td>
                    <td className="num">
                      <StatusCode code={e.status_code} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
};
