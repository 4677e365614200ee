import { type Verbatim, verbatim } from '../api.ts';
import { Field } from '../components/ui.tsx';
import { formatNumber } from '../format.ts';
import './events.css';

/** Helpers shared by the Events, Event, Sessions and Orphans screens. */

const pad = (n: number) => String(n).padStart(2, '0');

/** The URL keeps exact ISO instants (a shared link means the same range everywhere); the
 *  `datetime-local` input shows them in the reader's own zone. */
export const isoToLocalInput = (iso: string | null): string => {
  if (iso === null || iso === '') return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` +
    `T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
};

export const localInputToIso = (value: string, end = false): string | undefined => {
  if (value === '') return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return undefined;
  // An end bound typed to the second covers that whole second (the bounds are inclusive to the ms).
  if (end && d.getMilliseconds() === 0) d.setMilliseconds(999);
  return d.toISOString();
};

/** The text fields of a submitted form, blanks dropped. */
export const formValues = (form: HTMLFormElement, names: readonly string[]): Record<string, string | undefined> => {
  const data = new FormData(form);
  const out: Record<string, string | undefined> = {};
  for (const n of names) {
    const v = data.get(n);
    const s = typeof v === 'string' ? v.trim() : '';
    out[n] = s === '' ? undefined : s;
  }
  return out;
};

/** A filter form's React key: the form is rebuilt (its fields reset to the URL's values) when the
 *  URL's filters change, by a link or Back; not when only the page, sort or size does, which
 *  would rebuild every field on each "Next page". */
export const filtersKey = (params: Record<string, string | undefined>, names: readonly string[]): string =>
  JSON.stringify(names.map((n) => params[n] ?? null));

/** The URL's values of `names`, as the link holds them: sent as they are, the server checks them
 *  (and its 400 names the one it refuses). */
export const paramsOf = <N extends string>(search: URLSearchParams, names: readonly N[]): { [P in N]?: Verbatim } =>
  Object.fromEntries(
    names.map((n) => {
      const v = search.get(n);
      return [n, v === null ? undefined : verbatim(v)];
    }),
  ) as { [P in N]?: Verbatim };

export const statusClass = (code: number | null): string | undefined =>
  code === null ? undefined : code >= 500 ? 'status-5xx' : code >= 400 ? 'status-4xx' : undefined;

export const StatusCode = ({ code }: { code: number | null }) => {
  const cls = statusClass(code);
  return (
    <span className={cls}>
      {code ?? '—'}
      {cls !== undefined && (
        <span className="visually-hidden"> ({cls === 'status-5xx' ? 'server error' : 'client error'})</span>
      )}
    </span>
  );
};

/** A path that stays inside this dashboard, so a `back` parameter cannot send anyone elsewhere. */
export const safeInternal = (to: string | null): string | null =>
  to?.startsWith('/') && !to.startsWith('//') ? to : null;

export const Pager = ({
  page,
  totalPages,
  total,
  noun,
  onPage,
}: {
  page: number;
  totalPages: number;
  total: number;
  noun: string;
  onPage: (page: number) => void;
}) => (
  <nav className="pager" aria-label={`${noun} pages`}>
    <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
      Previous page
    </button>
    <span aria-live="polite">
      Page {page} of {Math.max(totalPages, 1)} · {formatNumber(total)} {total === 1 ? noun.replace(/s$/, '') : noun}
    </span>
    <button type="button" onClick={() => onPage(page + 1)} disabled={page >= totalPages}>
      Next page
    </button>
  </nav>
);

/** The From and Until fields of a filter form (local time in, exact ISO times in the URL). */
export const DateRangeFields = ({
  prefix,
  params,
  fieldError,
  labels = ['From', 'Until'],
}: {
  prefix: string;
  params: Record<string, string | undefined>;
  fieldError: (name: string) => string | undefined;
  labels?: [string, string];
}) => (
  <>
    {(['start_date', 'end_date'] as const).map((name, i) => (
      <Field key={name} id={`${prefix}-${name}`} label={labels[i]!} error={fieldError(name)}>
        <input
          id={`${prefix}-${name}`}
          name={name}
          type="datetime-local"
          step={1}
          defaultValue={isoToLocalInput(params[name] ?? null)}
        />
      </Field>
    ))}
  </>
);
