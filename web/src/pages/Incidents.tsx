import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { call, type Incident, type Monitor } from '../api.ts';
import { useCanWrite } from '../auth.tsx';
import { Empty, ErrorNote, Loading } from '../components/ui.tsx';
import { ago, formatTime } from '../format.ts';
import { LIVE_MS, useProjectMonitors } from '../hooks.ts';
import { Link, navigate, useSearchParams } from '../router.tsx';
import { Pager } from './events-shared.tsx';
import { IncidentForm } from './incidents/IncidentForm.tsx';
import { ImpactBadge, monitorNames, StatusBadge } from './incidents/words.tsx';
import './incidents/incidents.css';

const PAGE_SIZE = 20;

const IncidentTable = ({
  label,
  incidents,
  monitors,
  projectId,
}: {
  label: string;
  incidents: readonly Incident[];
  monitors: readonly Monitor[] | undefined;
  projectId: string;
}) => (
  <div className="table-wrap">
    <table aria-label={label} className="incidents-table">
      <thead>
        <tr>
          <th scope="col">Incident</th>
          <th scope="col">Status</th>
          <th scope="col" className="hide-narrow">
            Monitors
          </th>
          <th scope="col">Opened</th>
          <th scope="col" className="hide-narrow">
            Last update
          </th>
        </tr>
      </thead>
      <tbody>
        {incidents.map((i) => (
          <tr key={i.id} className={i.resolved_at === null ? 'incident-open' : undefined}>
            <th scope="row">
              <Link to={`/p/${projectId}/incidents/${i.id}`}>{i.title}</Link>
              <div>
                <ImpactBadge impact={i.impact} />
                {i.auto !== null && <span className="muted small"> · opened automatically</span>}
              </div>
            </th>
            <td>
              <StatusBadge status={i.status} />
              {i.resolved_at !== null && <div className="muted small">{formatTime(i.resolved_at)}</div>}
            </td>
            <td className="hide-narrow">{monitorNames(i.monitor_ids, monitors)}</td>
            <td title={formatTime(i.created_at)}>{ago(i.created_at)}</td>
            <td className="hide-narrow incident-last">{i.updates.at(-1)?.message ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

/** The project's incidents: the open ones first, then (`?filter=all`) every incident, newest
 *  first, paged; open one here, each opens its timeline. */
export const Incidents = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const [search, setSearch] = useSearchParams();
  const all = search.get('filter') === 'all';
  const page = Math.max(1, Number(search.get('page')) || 1);
  const [adding, setAdding] = useState(false);
  const monitors = useProjectMonitors(projectId).data;
  const open = useQuery({
    queryKey: ['incidents', 'open', projectId],
    queryFn: () => call('GET /v1/incidents', { query: { project_id: projectId, open: 'true', limit: 100 } }),
    refetchInterval: LIVE_MS,
  });
  const history = useQuery({
    queryKey: ['incidents', 'all', projectId, page],
    queryFn: () => call('GET /v1/incidents', { query: { project_id: projectId, page, limit: PAGE_SIZE } }),
    enabled: all,
  });
  const openList = open.data?.data ?? [];
  return (
    <section>
      <div className="sp-head">
        <h1>Incidents</h1>
        {canWrite && !adding && (
          <button type="button" className="primary" onClick={() => setAdding(true)}>
            Open an incident
          </button>
        )}
      </div>
      <p className="muted">
        What the project's status pages tell their readers about an outage, update by update. An incident shows on the
        pages that show one of its monitors, or on all of them when it names none.
      </p>
      {adding && (
        <IncidentForm
          projectId={projectId}
          onDone={(created) => {
            setAdding(false);
            if (created !== null) navigate(`/p/${projectId}/incidents/${created.id}`);
          }}
        />
      )}
      <fieldset className="incident-filter">
        <legend className="visually-hidden">Show</legend>
        {(
          [
            [false, 'Open incidents'],
            [true, 'All incidents'],
          ] as const
        ).map(([value, text]) => (
          <label key={text}>
            <input
              type="radio"
              name="incident-filter"
              checked={all === value}
              onChange={() => setSearch({ filter: value ? 'all' : undefined }, { replace: true })}
            />{' '}
            {text}
          </label>
        ))}
      </fieldset>
      <h2>Open</h2>
      {open.isPending && <Loading what="open incidents" />}
      <ErrorNote error={open.error} title="The open incidents could not be read" />
      {open.isSuccess && openList.length === 0 && <Empty>No open incident: nothing is said to be wrong.</Empty>}
      {openList.length > 0 && (
        <IncidentTable label="Open incidents" incidents={openList} monitors={monitors} projectId={projectId} />
      )}
      {all && (
        <>
          <h2>All incidents, newest first</h2>
          {history.isPending && <Loading what="incidents" />}
          <ErrorNote error={history.error} title="The incidents could not be read" />
          {history.data !== undefined && history.data.data.length === 0 && <Empty>No incident yet.</Empty>}
          {history.data !== undefined && history.data.data.length > 0 && (
            <>
              <IncidentTable
                label="All incidents"
                incidents={history.data.data}
                monitors={monitors}
                projectId={projectId}
              />
              <Pager
                page={page}
                totalPages={history.data.pagination.totalPage}
                total={history.data.pagination.totalItems}
                noun="incidents"
                onPage={(p) => setSearch({ filter: 'all', page: String(p) })}
              />
            </>
          )}
        </>
      )}
    </section>
  );
};
