import { type ApiKey, ApiError, type Verbatim, verbatim } from '../../api.ts';
import { Field } from '../../components/ui.tsx';

/** The origins and rate of an API key, as a form shows them: one origin per line, the rate as
 *  text ("" for the deployment's default). */
export interface RestrictionsInput {
  origins: string;
  rate: string;
}

export const restrictionsInputOf = (key: Pick<ApiKey, 'allowed_origins' | 'rate_limit'>): RestrictionsInput => ({
  origins: key.allowed_origins.join('\n'),
  rate: key.rate_limit === null ? '' : String(key.rate_limit),
});

/** What the API takes: the origins as a list, the rate as a number or null. A rate that is not a
 *  whole number is sent as it is, so that the server's message for it shows at the field. */
export const restrictionsBody = (
  input: RestrictionsInput,
): { allowed_origins: string[]; rate_limit: number | Verbatim | null } => ({
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
}) => (
  <>
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
