import { type ApiKey, ApiError, type Verbatim, verbatim } from '../../api.ts';
import { Field } from '../../components/ui.tsx';

export type KeyScope = ApiKey['scopes'][number];

/** Each scope, in the API's order, and what it lets a key do. */
export const SCOPES: ReadonlyArray<[KeyScope, string]> = [
  ['ingest', 'send events'],
  ['read', "list, read, export and count this project's events and sessions"],
  ['stream', "the auditors' endpoints: the record stream, checkpoints and proofs"],
  ['viewer:issue', 'issue viewer tokens (for the embeddable viewer, to come)'],
  ['config', "read and change this project's monitors, channels, pages and settings (watchlog plan/apply)"],
];

/** A key's scopes, expiry, origins and rate, as a form shows them: the expiry as
 *  `datetime-local` text in the reader's zone ("" for never), one origin per line, the rate as
 *  text ("" for the deployment's default). */
export interface RestrictionsInput {
  scopes: KeyScope[];
  expires: string;
  origins: string;
  rate: string;
}

export const NO_INPUT: RestrictionsInput = { scopes: ['ingest'], expires: '', origins: '', rate: '' };

const pad = (n: number) => String(n).padStart(2, '0');
const localInputOf = (iso: string | null): string => {
  if (iso === null) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

export const restrictionsInputOf = (
  key: Pick<ApiKey, 'scopes' | 'expires_at' | 'allowed_origins' | 'rate_limit'>,
): RestrictionsInput => ({
  scopes: [...key.scopes],
  expires: localInputOf(key.expires_at),
  origins: key.allowed_origins.join('\n'),
  rate: key.rate_limit === null ? '' : String(key.rate_limit),
});

/** The expiry typed in the reader's zone, as the instant it names; text that names none is sent
 *  as it is, so that the server's message for it shows at the field. */
const expiresAtOf = (text: string): string | Verbatim | null => {
  if (text.trim() === '') return null;
  const d = new Date(text.trim());
  return Number.isNaN(d.getTime()) ? verbatim(text.trim()) : d.toISOString();
};

/** What the API takes: the scopes, the expiry as an instant or null, the origins as a list, the
 *  rate as a number or null. A rate that is not a whole number is sent as it is, so that the
 *  server's message for it shows at the field. */
export const restrictionsBody = (
  input: RestrictionsInput,
): {
  scopes: KeyScope[];
  expires_at: string | Verbatim | null;
  allowed_origins: string[];
  rate_limit: number | Verbatim | null;
} => ({
  scopes: SCOPES.map(([scope]) => scope).filter((scope) => input.scopes.includes(scope)),
  expires_at: expiresAtOf(input.expires),
  allowed_origins: input.origins
    .split('\n')
    .map((o) => o.trim())
    .filter((o) => o !== ''),
  rate_limit:
    input.rate.trim() === ''
      ? null
      : /^\d+$/.test(input.rate.trim())
        ? Number(input.rate.trim())
        : verbatim(input.rate.trim()),
});

/** The server's message for one of the origins (its line), or for the list. */
const originsError = (error: unknown): string | undefined => {
  if (!(error instanceof ApiError)) return undefined;
  const detail = error.details.find((d) => d.path === 'allowed_origins' || d.path.startsWith('allowed_origins.'));
  if (detail === undefined) return undefined;
  const line = /^allowed_origins\.(\d+)$/.exec(detail.path)?.[1];
  return line === undefined ? detail.message : `line ${Number(line) + 1}: ${detail.message}`;
};

export const RestrictionsFields = ({
  idPrefix,
  value,
  onChange,
  error,
}: {
  idPrefix: string;
  value: RestrictionsInput;
  onChange: (next: RestrictionsInput) => void;
  error: unknown;
}) => {
  const scopesError = error instanceof ApiError ? error.details.find((d) => d.path.startsWith('scopes')) : undefined;
  return (
    <>
      <fieldset
        className={`monitor-choice${scopesError !== undefined ? ' invalid' : ''}`}
        aria-describedby={scopesError !== undefined ? `${idPrefix}-scopes-error` : undefined}
      >
        <legend>Scopes</legend>
        {SCOPES.map(([scope, what]) => (
          <label key={scope} className="checkbox">
            <input
              type="checkbox"
              checked={value.scopes.includes(scope)}
              onChange={(e) =>
                onChange({
                  ...value,
                  scopes: e.target.checked ? [...value.scopes, scope] : value.scopes.filter((s) => s !== scope),
                })
              }
            />{' '}
            <code>{scope}</code>: {what}
          </label>
        ))}
        {scopesError !== undefined && (
          <small id={`${idPrefix}-scopes-error`} className="field-error" role="alert">
            {scopesError.message}
          </small>
        )}
      </fieldset>
      <Field
        id={`${idPrefix}-expires`}
        label="Expires"
        hint="Your time zone. Empty: never."
        error={error instanceof ApiError ? error.fieldMessage('expires_at') : undefined}
      >
        <input
          id={`${idPrefix}-expires`}
          type="datetime-local"
          value={value.expires}
          onChange={(e) => onChange({ ...value, expires: e.target.value })}
        />
      </Field>
      <Field
        id={`${idPrefix}-origins`}
        label="Allowed origins"
        hint="For a key used in web pages: one origin per line, e.g. https://shop.example.com. Empty: any origin."
        error={originsError(error)}
      >
        <textarea
          id={`${idPrefix}-origins`}
          rows={2}
          value={value.origins}
          onChange={(e) => onChange({ ...value, origins: e.target.value })}
        />
      </Field>
      <Field
        id={`${idPrefix}-rate`}
        label="Rate limit (events per second)"
        hint="Empty: the deployment's default."
        error={error instanceof ApiError ? error.fieldMessage('rate_limit') : undefined}
      >
        <input
          id={`${idPrefix}-rate`}
          inputMode="numeric"
          size={9}
          value={value.rate}
          onChange={(e) => onChange({ ...value, rate: e.target.value })}
        />
      </Field>
    </>
  );
};
