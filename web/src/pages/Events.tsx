import { memo, useEffect, useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, type AuditListItem, call, download, type Operations, type Verbatim } from '../api.ts';
import { formatMs, formatNumber, formatTime } from '../format.ts';
import { Link, useSearchParams } from '../router.tsx';
import { Empty, ErrorNote, Field, Loading } from '../components/ui.tsx';
import {
  DateRangeFields,
  Pager,
  StatusCode,
  filtersKey,
  formValues,
  localInputToIso,
  paramsOf,
} from './events-shared.tsx';

type ListQuery = Operations['GET /v1/audit']['query'];

/** SPEC 4.2's filters and the search's, in the order the form shows them. */
const FILTERS = [
  'q',
  'service_name',
  'method',
  'status_code',
  'environment',
  'identifier',
  'start_date',
  'end_date',
  'event_type',
  'tenant_id',
  'path',
] as const satisfies ReadonlyArray<keyof ListQuery>;
const VIEW = ['sort_by', 'sort_order', 'page', 'limit'] as const satisfies ReadonlyArray<keyof ListQuery>;
const ALL = [...FILTERS, ...VIEW] as const;
/** The filters as the URL holds them. */
type Filters = { [F in (typeof FILTERS)[number]]?: Verbatim };

/** Every value the server takes for a filter, in the order the form lists them: tsc refuses a
 *  missing or unknown one. */
const everyOf = <T extends string>(all: Record<T, true>): T[] => Object.keys(all) as T[];
const METHODS = everyOf<NonNullable<ListQuery['method']>>({ GET: true, POST: true, PUT: true, DELETE: true });
const ENVIRONMENTS = everyOf<NonNullable<ListQuery['environment']>>({
  production: true,
  staging: true,
  development: true,
});
const EVENT_TYPES = everyOf<NonNullable<ListQuery['event_type']>>({
  http: true,
  'system.alert': true,
  'system.healthcheck.down': true,
  'system.healthcheck.up': true,
  'system.healthcheck.certificate_expiring': true,
  'system.access': true,
  'system.maintenance.started': true,
  'system.maintenance.ended': true,
});
const LIMITS = ['20', '50', '100'];
/** The list's live refresh; only page 1 moves (later pages would shift under the reader). */
const EVENTS_LIVE_MS = 5_000;

/** Columns, each sortable by the server's `sort_by` of the same name (src/http/routes/audit.ts). */
const COLUMNS: Array<{ key: NonNullable<ListQuery['sort_by']>; label: string; num?: boolean }> = [
  { key: 'timestamp', label: 'Time' },
  { key: 'method', label: 'Method' },
  { key: 'path', label: 'Path' },
  { key: 'status_code', label: 'Status', num: true },
  { key: 'response_time', label: 'Latency', num: true },
  { key: 'service_name', label: 'Service' },
  { key: 'identifier', label: 'Identifier' },
  { key: 'environment', label: 'Environment' },
];

type Params = Record<string, string | undefined>;

const curlLine = (origin: string) =>
  `curl -X POST ${origin}/v1/audit -H 'Content-Type: application/json' -H 'X-API-Key: <your key>' ` +
  `-d '{"path":"/api/orders","method":"POST","status_code":201,"response_time":42,` +
  `"identifier":"user-1","service_name":"orders","environment":"production"}'`;

const EventRow = memo(({ event, to }: { event: AuditListItem; to: string }) => {
  const time = formatTime(event.timestamp);
  return (
    <tr>
      <td>
        <Link to={to} aria-label={`Open event ${event.method} ${event.path} at ${time}`}>
          {time}
        </Link>
      </td>
      <td>{event.method}</td>
      <td className="ev-path">
        <code>{event.path}</code>
      </td>
      <td className="num">
        <StatusCode code={event.status_code} />
      </td>
      <td className="num">{formatMs(event.response_time)}</td>
      <td>{event.service_name}</td>
      <td>{event.identifier}</td>
      <td>{event.environment}</td>
    </tr>
  );
});

const FilterForm = ({
  params,
  error,
  onApply,
  onClear,
}: {
  params: Params;
  error: unknown;
  onApply: (next: Params) => void;
  onClear: () => void;
}) => {
  const fieldError = (name: string) => (error instanceof ApiError ? error.fieldMessage(name) : undefined);
  const active = FILTERS.filter((f) => params[f] !== undefined).length;
  // Folded on a phone so the list is on the first screen; open wherever there is room, and
  // whenever the server refused a filter (its message is inside).
  const [openAtStart] = useState(() => window.matchMedia('(min-width: 700px)').matches || error !== null);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const v = formValues(e.currentTarget, FILTERS);
    onApply({
      ...v,
      start_date: localInputToIso(v.start_date ?? ''),
      end_date: localInputToIso(v.end_date ?? '', true),
    });
  };
  const select = (name: string, label: string, options: string[], all: string) => (
    <Field id={`f-${name}`} label={label} error={fieldError(name)}>
      <select id={`f-${name}`} name={name} defaultValue={params[name] ?? ''}>
        <option value="">{all}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </Field>
  );
  return (
    <details className="panel ev-filters" open={openAtStart}>
      <summary>Filters{active > 0 ? ` (${active} active)` : ''}</summary>
      <form onSubmit={submit} aria-label="Filters">
        <div className="ev-grid">
          <Field
            id="f-q"
            label="Search"
            error={fieldError('q')}
            hint='Words, "phrases", field:value, a trailing * for prefixes, - to exclude.'
          >
            <input
              id="f-q"
              name="q"
              type="search"
              className="ev-search"
              placeholder='jane@ "card declined" path:/orders* status:5xx -method:GET'
              aria-describedby="f-q-hint"
              defaultValue={params.q ?? ''}
            />
          </Field>
          <Field id="f-service_name" label="Service" error={fieldError('service_name')}>
            <input id="f-service_name" name="service_name" defaultValue={params.service_name ?? ''} />
          </Field>
          {select('method', 'Method', METHODS, 'Any method')}
          <Field id="f-status_code" label="Status code" error={fieldError('status_code')}>
            <input
              id="f-status_code"
              name="status_code"
              inputMode="numeric"
              pattern="[1-5][0-9]{2}"
              title="a status code from 100 to 599"
              size={5}
              defaultValue={params.status_code ?? ''}
            />
          </Field>
          {select('environment', 'Environment', ENVIRONMENTS, 'Any environment')}
          <Field id="f-identifier" label="Identifier" error={fieldError('identifier')}>
            <input id="f-identifier" name="identifier" defaultValue={params.identifier ?? ''} />
          </Field>
          <DateRangeFields prefix="f" params={params} fieldError={fieldError} />
          {select('event_type', 'Event type', EVENT_TYPES, 'Any type')}
          <Field id="f-tenant_id" label="Tenant" error={fieldError('tenant_id')}>
            <input id="f-tenant_id" name="tenant_id" defaultValue={params.tenant_id ?? ''} />
          </Field>
          <Field id="f-path" label="Path" error={fieldError('path')}>
            <input id="f-path" name="path" placeholder="/orders or /orders*" defaultValue={params.path ?? ''} />
          </Field>
        </div>
        <div className="row ev-actions">
          <button type="submit">Apply filters</button>
          <button type="button" onClick={onClear}>
            Clear filters
          </button>
        </div>
      </form>
    </details>
  );
};

const DownloadControl = ({ query, total }: { query: Filters & { project_id: string }; total: number | undefined }) => {
  const [format, setFormat] = useState<'csv' | 'json'>('csv');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await download('GET /v1/audit/export', `watchlog-audit.${format}`, { query: { ...query, format } });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="ev-download">
      <div className="row">
        <label>
          Format{' '}
          <select value={format} onChange={(e) => setFormat(e.target.value === 'json' ? 'json' : 'csv')}>
            <option value="csv">CSV</option>
            <option value="json">JSON</option>
          </select>
        </label>
        <button type="button" onClick={() => void run()} disabled={busy} aria-describedby="download-hint">
          {busy ? 'Preparing…' : 'Download'}
        </button>
      </div>
      <small id="download-hint" className="muted">
        Exports {total === undefined ? 'the events' : `the ${formatNumber(total)} event${total === 1 ? '' : 's'}`}{' '}
        matching the filters.
      </small>
      <ErrorNote error={error} title="Download failed" />
    </div>
  );
};

export const Events = ({ projectId }: { projectId: string }) => {
  const [search, setSearch] = useSearchParams();
  const params = paramsOf(search, ALL);
  const filters: Filters = Object.fromEntries(FILTERS.map((f) => [f, params[f]]));
  const filtered = FILTERS.some((f) => params[f] !== undefined);
  const page = Math.max(1, Number.parseInt(params.page ?? '1', 10) || 1);
  const limit = params.limit ?? '20';
  const sortBy = params.sort_by ?? 'timestamp';
  const sortOrder = params.sort_order ?? 'desc';

  const query = {
    project_id: projectId,
    ...filters,
    sort_by: params.sort_by,
    sort_order: params.sort_order,
    page: params.page,
    limit: params.limit,
  };
  const list = useQuery({
    queryKey: ['audit', 'list', query],
    queryFn: () => call('GET /v1/audit', { query }),
    refetchInterval: page === 1 ? EVENTS_LIVE_MS : false,
    // A page fetched (or prefetched) moments ago is shown as it is, not asked again on arrival.
    staleTime: EVENTS_LIVE_MS,
    placeholderData: keepPreviousData,
  });
  // The next page is fetched while this one is read, so "Next" only renders (a page of 100 rows
  // at 1M events takes the server 65–95 ms; rendering it, a few ms). Asked once the page is drawn:
  // the effect runs inside the click's own task, which the reader is waiting on.
  const client = useQueryClient();
  const totalPage = list.data?.pagination.totalPage ?? 0;
  const nextKey = JSON.stringify({ ...query, page: String(page + 1) });
  useEffect(() => {
    if (page >= totalPage) return;
    const next = JSON.parse(nextKey) as typeof query;
    const timer = setTimeout(() => {
      void client.prefetchQuery({
        queryKey: ['audit', 'list', next],
        queryFn: () => call('GET /v1/audit', { query: next }),
        staleTime: EVENTS_LIVE_MS,
      });
    }, 0);
    return () => clearTimeout(timer);
  }, [client, page, totalPage, nextKey]);

  const setParams = (next: Params) => setSearch(Object.fromEntries(ALL.map((k) => [k, next[k]])));
  const sortOn = (key: string) => {
    const order = sortBy === key ? (sortOrder === 'desc' ? 'asc' : 'desc') : key === 'timestamp' ? 'desc' : 'asc';
    setParams({
      ...params,
      sort_by: key === 'timestamp' && order === 'desc' ? undefined : key,
      sort_order: key === 'timestamp' && order === 'desc' ? undefined : order,
      page: undefined,
    });
  };
  // Where the detail's "back" link returns: this very view, filters, sort and page included.
  const here = `/p/${projectId}/events${search.size > 0 ? `?${search}` : ''}`;
  const detailLink = (id: string) => `/p/${projectId}/events/${id}?back=${encodeURIComponent(here)}`;
  const data = list.data;

  return (
    <section>
      <div className="ev-head">
        <h1>Events</h1>
        <DownloadControl query={{ project_id: projectId, ...filters }} total={data?.pagination.totalItems} />
      </div>
      <FilterForm
        key={filtersKey(params, FILTERS)}
        params={params}
        error={list.error}
        onApply={(f) =>
          setParams({ ...f, sort_by: params.sort_by, sort_order: params.sort_order, limit: params.limit })
        }
        onClear={() => setParams({ sort_by: params.sort_by, sort_order: params.sort_order, limit: params.limit })}
      />
      <ErrorNote error={list.error} title="The events could not be read" />
      {list.isPending && <Loading what="events" />}
      {data !== undefined && data.pagination.totalItems === 0 && !filtered && (
        <Empty>
          <p>
            <strong>No events in this project yet.</strong> Events arrive when a service sends them with one of the
            project's API keys.
          </p>
          <p>
            Create a key in <Link to={`/p/${projectId}/settings`}>Settings</Link>, then send a first event:
          </p>
          <pre className="ev-curl">{curlLine(window.location.origin)}</pre>
        </Empty>
      )}
      {data !== undefined && data.pagination.totalItems === 0 && filtered && (
        <Empty>
          <p>
            <strong>No events match these filters.</strong>
          </p>
          <button
            type="button"
            onClick={() => setParams({ sort_by: params.sort_by, sort_order: params.sort_order, limit: params.limit })}
          >
            Clear filters
          </button>
        </Empty>
      )}
      {data !== undefined && data.pagination.totalItems > 0 && (
        <>
          <div className="row ev-tools">
            <label>
              Rows per page{' '}
              <select
                value={limit}
                onChange={(e) =>
                  setParams({ ...params, limit: e.target.value === '20' ? undefined : e.target.value, page: undefined })
                }
              >
                {LIMITS.map((l) => (
                  <option key={l} value={l}>
                    {l}
                  </option>
                ))}
              </select>
            </label>
            {page === 1 && (
              <span className="muted ev-live">Live: new events appear every {EVENTS_LIVE_MS / 1000} s.</span>
            )}
          </div>
          <div className="table-wrap">
            <table className="ev-table" aria-label="Events">
              {/* Fixed column widths: a new page is laid out without measuring every cell first. */}
              <colgroup>
                <col className="ev-col-time" />
                <col className="ev-col-method" />
                <col />
                <col className="ev-col-status" />
                <col className="ev-col-latency" />
                <col className="ev-col-service" />
                <col className="ev-col-identifier" />
                <col className="ev-col-env" />
              </colgroup>
              <thead>
                <tr>
                  {COLUMNS.map((c) => {
                    const active = sortBy === c.key;
                    return (
                      <th
                        key={c.key}
                        className={c.num ? 'num' : undefined}
                        aria-sort={active ? (sortOrder === 'asc' ? 'ascending' : 'descending') : undefined}
                      >
                        <button type="button" className="ev-sort" onClick={() => sortOn(c.key)}>
                          {c.label}
                          <span aria-hidden="true">{active ? (sortOrder === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                        </button>
                      </th>
                    );
                  })}
                </tr>
              </thead>
              <tbody>
                {/* Keyed by position: rows hold no state, so a new page updates the existing rows'
                    text instead of building 100 rows of elements again (a third of the time). */}
                {data.data.map((e, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: keyed by position, as said above
                  <EventRow key={i} event={e} to={detailLink(e.id)} />
                ))}
              </tbody>
            </table>
          </div>
          {data.data.length === 0 && <p className="muted">This page is past the last one.</p>}
          <Pager
            page={page}
            totalPages={data.pagination.totalPage}
            total={data.pagination.totalItems}
            noun="events"
            onPage={(p) => setParams({ ...params, page: p === 1 ? undefined : String(p) })}
          />
        </>
      )}
    </section>
  );
};
