import { type AuthKind, METHODS, nextKey } from './form-values.ts';
import { CheckField, type Kit, SelectField, TextField } from './field-kit.tsx';

const COUNT = { type: 'number', step: 1, min: 1, max: 10 } as const;
const AUTH: Array<[AuthKind, string]> = [
  ['none', 'None'],
  ['basic', 'Basic (user name and password)'],
  ['bearer', 'Bearer token'],
];

/** Key/value rows of request headers; values the server keeps secret read `********` and are kept
 *  as they are unless typed anew. */
const HeaderRows = ({ kit }: { kit: Kit }) => {
  const { headers } = kit.values;
  const update = (key: number, patch: { name?: string; value?: string }) =>
    kit.set({ headers: headers.map((h) => (h.key === key ? { ...h, ...patch } : h)) });
  const error = kit.error('headers');
  return (
    <fieldset
      className="monitor-rows"
      aria-describedby={error === undefined ? undefined : `${kit.id('headers')}-error`}
    >
      <legend>Request headers</legend>
      {headers.map((h, i) => (
        <div className="row" key={h.key}>
          <input
            aria-label={`Header ${i + 1} name`}
            value={h.name}
            placeholder="X-Api-Key"
            onChange={(e) => update(h.key, { name: e.target.value })}
          />
          <input
            aria-label={`Header ${i + 1} value`}
            value={h.value}
            onChange={(e) => update(h.key, { value: e.target.value })}
          />
          <button
            type="button"
            aria-label={`Remove header ${i + 1}`}
            onClick={() => kit.set({ headers: headers.filter((x) => x.key !== h.key) })}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => kit.set({ headers: [...headers, { key: nextKey(), name: '', value: '' }] })}>
        Add header
      </button>
      <small className="muted">Values are kept secret: they read ******** once saved.</small>
      {error !== undefined && (
        <small id={`${kit.id('headers')}-error`} className="field-error" role="alert">
          {error}
        </small>
      )}
    </fieldset>
  );
};

/** The request beyond a GET (http), TLS, and when a monitor changes state: confirmations, the
 *  retry interval, certificate warnings. */
export const AdvancedFields = ({ kit }: { kit: Kit }) => {
  const v = kit.values;
  const http = v.type === 'http';
  const tls = http || (v.type === 'tcp' && v.tls);
  const checked = v.type !== 'heartbeat';
  return (
    <div className="stack">
      {http && (
        <>
          <div className="monitor-form-grid">
            <SelectField kit={kit} field="method" label="Method" options={METHODS.map((m) => [m, m])} />
            <TextField
              kit={kit}
              field="max_redirects"
              label="Redirects followed"
              hint="0 to 10; default 0 (a redirect is an answer like any other)."
              type="number"
              min={0}
              max={10}
              step={1}
            />
            <TextField
              kit={kit}
              field="accepted_statuses"
              label="Accepted statuses"
              hint='Instead of the expected status: codes or ranges, e.g. "200-299, 301".'
              placeholder="200-299, 301"
            />
            <SelectField kit={kit} field="auth" label="Authentication" options={AUTH} />
            {v.auth === 'basic' && (
              <>
                <TextField kit={kit} field="username" path="auth.username" label="User name" autoComplete="off" />
                <TextField
                  kit={kit}
                  field="password"
                  path="auth.password"
                  label="Password"
                  type="password"
                  autoComplete="new-password"
                  hint="Kept secret: ******** keeps the saved one."
                />
              </>
            )}
            {v.auth === 'bearer' && (
              <TextField
                kit={kit}
                field="token"
                path="auth.token"
                label="Bearer token"
                type="password"
                autoComplete="off"
                hint="Kept secret: ******** keeps the saved one."
              />
            )}
          </div>
          <HeaderRows kit={kit} />
          {v.method !== 'GET' && v.method !== 'HEAD' && (
            <div className="monitor-form-grid">
              <div className="field wide">
                <label htmlFor={kit.id('body')}>Request body</label>
                <textarea
                  id={kit.id('body')}
                  value={v.body}
                  onChange={(e) => kit.set({ body: e.target.value })}
                  aria-invalid={kit.error('body') !== undefined}
                  aria-describedby={kit.described('body', false)}
                />
                {kit.error('body') !== undefined && (
                  <small id={`${kit.id('body')}-error`} className="field-error" role="alert">
                    {kit.error('body')}
                  </small>
                )}
              </div>
              <TextField
                kit={kit}
                field="content_type"
                label="Content type"
                placeholder="application/json"
                hint="The body's media type."
              />
            </div>
          )}
        </>
      )}
      {tls && (
        <CheckField kit={kit} field="ignore_tls_errors">
          Ignore TLS errors (an expired or self-signed certificate still counts as UP)
        </CheckField>
      )}
      <div className="monitor-form-grid">
        <TextField
          kit={kit}
          field="down_after"
          label="DOWN after (failures)"
          hint="Failed checks in a row before DOWN: 1 to 10; default 1."
          {...COUNT}
        />
        <TextField
          kit={kit}
          field="up_after"
          label="UP after (successes)"
          hint="OK checks in a row before UP again: 1 to 10; default 1."
          {...COUNT}
        />
        {checked && (
          <TextField
            kit={kit}
            field="retry_interval_seconds"
            label="Retry interval (s)"
            hint="Between checks while confirming: 5 to 3,600; default the interval, at most 30."
            type="number"
            min={5}
            max={3600}
            step={1}
          />
        )}
        {tls && (
          <TextField
            kit={kit}
            field="cert_expiry_warn_days"
            label="Certificate warnings (days)"
            hint="Warn when the certificate has this many days left; default 14, 7, 1."
            placeholder="14, 7, 1"
          />
        )}
      </div>
    </div>
  );
};
