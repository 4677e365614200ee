import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { ApiError, type DerivedSession, request } from '../api.ts';
import { formatDuration, formatNumber, formatTime } from '../format.ts';
import { Link, navigate, useSearchParams } from '../router.tsx';
import { Empty, ErrorNote, Field, Loading } from '../components/ui.tsx';
import { Pager, formValues, localInputToIso, filtersKey, paramsOf, DateRangeFields } from './events-shared.tsx';

const FILTERS = ['identifier', 'service_name', 'start_date', 'end_date'] as const;
const ALL = [...FILTERS, 'page'] as const;
const LIMIT = 20;
const SESSIONS_LIVE_MS = 10_000;

type Params = Record<string, string | undefined>;

const OpenExplicit = ({ projectId }: { projectId: string }) => {
  const [id, setId] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = id.trim();
    if (trimmed !== '') navigate(`/p/${projectId}/sessions/${encodeURIComponent(trimmed)}`);
  };
  return (
    <form className="panel" onSubmit={submit} aria-label="Open explicit session">
      <div className="row">
        <Field
          id="explicit-id"
          label="Open explicit session by id"
          hint="The session_id your services send with each event."
        >
          <input
            id="explicit-id"
            value={id}
            onChange={(e) => setId(e.target.value)}
            maxLength={255}
            aria-describedby="explicit-id-hint"
          />
        </Field>
        <button type="submit" disabled={id.trim() === ''}>
          Open session
        </button>
      </div>
    </form>
  );
};

export const Sessions = ({ projectId }: { projectId: string }) => {
  const [search, setSearch] = useSearchParams();
  const params = paramsOf(search, ALL);
  const page = Math.max(1, Number.parseInt(params.page ?? '1', 10) || 1);
  const query = {
    project_id: projectId,
    identifier: params.identifier,
    service_name: params.service_name,
    start_date: params.start_date,
    end_date: params.end_date,
    page: params.page,
    limit: LIMIT,
  };
  const sessions = useQuery({
    queryKey: ['audit', 'sessions', query],
    queryFn: async () => {
      // The paging is in headers (SPEC 4.6 keeps the body a bare array).
      const answer = await request('GET /v1/audit/sessions', { query });
      return { items: answer.body, total: Number(answer.headers.get('X-Total-Count') ?? answer.body.length) };
    },
    refetchInterval: page === 1 ? SESSIONS_LIVE_MS : false,
    placeholderData: keepPreviousData,
  });
  const filtered = FILTERS.some((f) => params[f] !== undefined);
  const fieldError = (name: string) =>
    sessions.error instanceof ApiError ? sessions.error.fieldMessage(name) : undefined;
  const setParams = (next: Params) => setSearch(Object.fromEntries(ALL.map((k) => [k, next[k]])));

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const v = formValues(e.currentTarget, FILTERS);
    setParams({
      ...v,
      start_date: localInputToIso(v.start_date ?? ''),
      end_date: localInputToIso(v.end_date ?? '', true),
    });
  };
  const eventsOf = (s: DerivedSession) =>
    `/p/${projectId}/events?${new URLSearchParams({
      identifier: s.identifier,
      service_name: s.service_name,
      start_date: s.session_start,
      end_date: s.session_end,
      event_type: 'http',
      sort_by: 'timestamp',
      sort_order: 'asc',
    })}`;
  const data = sessions.data;

  return (
    <section>
      <h1>Sessions</h1>
      <p className="muted">
        Derived sessions group one identifier's requests to one service; 30 minutes without a request starts a new one.
        Explicit sessions are the events your services tag with the same <code>session_id</code>.
      </p>
      <OpenExplicit projectId={projectId} />
      <form key={filtersKey(params, FILTERS)} className="panel" onSubmit={submit} aria-label="Derived sessions filters">
        <div className="row">
          <Field id="s-identifier" label="Identifier" error={fieldError('identifier')}>
            <input id="s-identifier" name="identifier" defaultValue={params.identifier ?? ''} />
          </Field>
          <Field id="s-service_name" label="Service" error={fieldError('service_name')}>
            <input id="s-service_name" name="service_name" defaultValue={params.service_name ?? ''} />
          </Field>
          <DateRangeFields
            prefix="s"
            params={params}
            fieldError={fieldError}
            labels={['Started from', 'Started until']}
          />
          <button type="submit">Show sessions</button>
          <button type="button" onClick={() => setParams({})}>
            Clear
          </button>
        </div>
      </form>
      <ErrorNote error={sessions.error} title="The sessions could not be read" />
      {sessions.isPending && <Loading what="sessions" />}
      {data !== undefined && data.total === 0 && (
        <Empty>
          {filtered ? (
            <p>
              <strong>No sessions match.</strong> Sessions are matched on their start time; try a wider range, or{' '}
              <button type="button" onClick={() => setParams({})}>
                clear the filters
              </button>
              .
            </p>
          ) : (
            <p>
              <strong>No sessions yet.</strong>
              {' A session appears as soon as the project receives an '}
              <code>http</code> event; see <Link to={`/p/${projectId}/events`}>Events</Link>.
            </p>
          )}
        </Empty>
      )}
      {data !== undefined && data.total > 0 && (
        <>
          <div className="table-wrap">
            <table className="ev-table" aria-label="Sessions">
              <thead>
                <tr>
                  <th>Identifier</th>
                  <th>Service</th>
                  <th>Start</th>
                  <th>End</th>
                  <th className="num">Duration</th>
                  <th className="num">Events</th>
                  <th>
                    <span className="visually-hidden">Open</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((s) => (
                  <tr key={`${s.project_id}:${s.service_name}:${s.identifier}:${s.session_start}`}>
                    <td>{s.identifier}</td>
                    <td>{s.service_name}</td>
                    <td>{formatTime(s.session_start)}</td>
                    <td>{formatTime(s.session_end)}</td>
                    <td className="num">{formatDuration(s.duration_seconds)}</td>
                    <td className="num">{formatNumber(s.event_count)}</td>
                    <td>
                      <Link
                        to={eventsOf(s)}
                        aria-label={
                          `Its events: ${s.identifier} ` +
                          `in ${s.service_name} ` +
                          `from ${formatTime(s.session_start)}`
                        }
                      >
                        Its events
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={page}
            totalPages={Math.ceil(data.total / LIMIT)}
            total={data.total}
            noun="sessions"
            onPage={(p) => setParams({ ...params, page: p === 1 ? undefined : String(p) })}
          />
        </>
      )}
    </section>
  );
};
