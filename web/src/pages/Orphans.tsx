import type { FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { ApiError, call } from '../api.ts';
import { formatTime } from '../format.ts';
import { Link, useSearchParams } from '../router.tsx';
import { Empty, ErrorNote, Field, Loading } from '../components/ui.tsx';
import {
  Pager,
  StatusCode,
  formValues,
  localInputToIso,
  filtersKey,
  paramsOf,
  DateRangeFields,
} from './events-shared.tsx';

const FILTERS = ['service_name', 'start_date', 'end_date'] as const;
const ALL = [...FILTERS, 'page'] as const;
const ORPHANS_LIVE_MS = 15_000;

type Params = Record<string, string | undefined>;

export const Orphans = ({ projectId }: { projectId: string }) => {
  const [search, setSearch] = useSearchParams();
  const params = paramsOf(search, ALL);
  const page = Math.max(1, Number.parseInt(params.page ?? '1', 10) || 1);
  const query = {
    project_id: projectId,
    service_name: params.service_name,
    start_date: params.start_date,
    end_date: params.end_date,
    page: params.page,
    limit: 50,
  };
  const orphans = useQuery({
    queryKey: ['audit', 'orphans', query],
    queryFn: () => call('GET /v1/audit/orphans', { query }),
    refetchInterval: page === 1 ? ORPHANS_LIVE_MS : false,
    placeholderData: keepPreviousData,
  });
  const filtered = FILTERS.some((f) => params[f] !== undefined);
  const fieldError = (name: string) =>
    orphans.error instanceof ApiError ? orphans.error.fieldMessage(name) : undefined;
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
  const here = `/p/${projectId}/orphans${search.size > 0 ? `?${search}` : ''}`;
  const data = orphans.data;

  return (
    <section>
      <h1>Orphans</h1>
      <p className="muted">
        Browser requests that no backend answered: a browser event whose <code>request_id</code> no backend event of
        this project carried within 2 minutes either side. Events are judged once they are 2 minutes old.
      </p>
      <form key={filtersKey(params, FILTERS)} className="panel" onSubmit={submit} aria-label="Orphans filters">
        <div className="row">
          <Field id="o-service_name" label="Service" error={fieldError('service_name')}>
            <input id="o-service_name" name="service_name" defaultValue={params.service_name ?? ''} />
          </Field>
          <DateRangeFields prefix="o" params={params} fieldError={fieldError} />
          <button type="submit">Apply filters</button>
          <button type="button" onClick={() => setParams({})}>
            Clear filters
          </button>
        </div>
      </form>
      <ErrorNote error={orphans.error} title="The orphans could not be read" />
      {orphans.isPending && <Loading what="orphans" />}
      {data !== undefined && data.pagination.totalItems === 0 && (
        <Empty>
          {filtered ? (
            <p>
              <strong>No orphans match these filters.</strong>{' '}
              <button type="button" onClick={() => setParams({})}>
                Clear filters
              </button>
            </p>
          ) : (
            <>
              <p>
                <strong>No orphans: every browser request seen so far was answered by a backend event.</strong>
              </p>
              <p>
                An orphan is a browser event with a <code>request_id</code> that no backend event answered (a request
                lost on the way, or a service that does not report). Finding them needs the browser SDK sending{' '}
                <code>{'source: "browser"'}</code> with a <code>request_id</code>
                {', and your backend sending the same '}
                <code>request_id</code> on its own event.
              </p>
            </>
          )}
        </Empty>
      )}
      {data !== undefined && data.pagination.totalItems > 0 && (
        <>
          <div className="table-wrap">
            <table className="ev-table" aria-label="Orphans">
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Method</th>
                  <th>Path</th>
                  <th className="num">Status</th>
                  <th>Service</th>
                  <th>Identifier</th>
                  <th>Request id</th>
                </tr>
              </thead>
              <tbody>
                {data.data.map((o) => (
                  <tr key={o.id}>
                    <td>
                      <Link
                        to={`/p/${projectId}/events/${o.id}?back=${encodeURIComponent(here)}`}
                        aria-label={`Open event ${o.method} ${o.path} at ${formatTime(o.timestamp)}`}
                      >
                        {formatTime(o.timestamp)}
                      </Link>
                    </td>
                    <td>{o.method}</td>
                    <td className="ev-path">
                      <code>{o.path}</code>
                    </td>
                    <td className="num">
                      <StatusCode code={o.status_code} />
                    </td>
                    <td>{o.service_name}</td>
                    <td>{o.identifier}</td>
                    <td>
                      <code>{o.request_id}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={page}
            totalPages={data.pagination.totalPage}
            total={data.pagination.totalItems}
            noun="orphans"
            onPage={(p) => setParams({ ...params, page: p === 1 ? undefined : String(p) })}
          />
        </>
      )}
    </section>
  );
};
