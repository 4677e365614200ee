import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, type Answer, type Role } from '../../api.ts';
import { ErrorNote, Field, Loading, messagesAt } from '../../components/ui.tsx';
import './sso.css';

type Provider = Answer<'GET /v1/settings/sso'>[number];
type Mapping = Provider['mappings'][number];

const ROLES: Role[] = ['admin', 'member', 'auditor'];

/** What the form holds: lists as the text typed, the secret only when one is typed. */
interface Draft {
  id: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  scopes: string;
  allowed_domains: string;
  jit: boolean;
  claim: string;
  mappings: Mapping[];
}

const EMPTY: Draft = {
  id: '',
  name: '',
  issuer: '',
  client_id: '',
  client_secret: '',
  scopes: 'openid email profile',
  allowed_domains: '',
  jit: true,
  claim: '',
  mappings: [],
};

const draftOf = (p: Provider): Draft => ({
  ...p,
  client_secret: '',
  scopes: p.scopes.join(' '),
  allowed_domains: p.allowed_domains.join(', '),
  claim: p.claim ?? '',
});

const words = (text: string) => text.split(/[\s,]+/).filter((w) => w !== '');

/** The address the provider must send the browser back to, as this dashboard is reached. */
const callbackOf = (id: string) => `${window.location.origin}/v1/auth/oidc/${id || '<id>'}/callback`;

/** Single sign-on providers (admins): those of WATCHLOG_OIDC_* shown as set there, the others
 *  added, changed and removed here. A saved secret is never shown; left empty, it is kept. */
export const SingleSignOn = () => {
  const client = useQueryClient();
  const providers = useQuery({ queryKey: ['sso-settings'], queryFn: () => call('GET /v1/settings/sso') });
  const [editing, setEditing] = useState<{ draft: Draft; isNew: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const refresh = async () => {
    await client.invalidateQueries({ queryKey: ['sso-settings'] });
    await client.invalidateQueries({ queryKey: ['sso-providers'] });
  };

  if (providers.data === undefined)
    return providers.error ? <ErrorNote error={providers.error} /> : <Loading what="single sign-on providers" />;
  return (
    <>
      <h2>Single sign-on</h2>
      <ErrorNote error={error} />
      {providers.data.length === 0 ? (
        <p>No OpenID Connect provider yet: people sign in with their password.</p>
      ) : (
        <ul className="sso-providers" aria-label="Single sign-on providers">
          {providers.data.map((p) => (
            <li key={p.id}>
              <strong>{p.name}</strong> <code>{p.id}</code> <span className="muted">{p.issuer}</span>{' '}
              {p.source === 'environment' ? (
                <span className="muted">(set by WATCHLOG_OIDC_*)</span>
              ) : (
                <>
                  <button type="button" onClick={() => setEditing({ draft: draftOf(p), isNew: false })}>
                    Edit {p.name}
                  </button>{' '}
                  <button
                    type="button"
                    onClick={async () => {
                      if (!window.confirm(`Remove ${p.name}? Its users then sign in with a password only.`)) return;
                      setError(null);
                      try {
                        await call('DELETE /v1/settings/sso/:provider', { params: { provider: p.id } });
                        await refresh();
                      } catch (err) {
                        setError(err);
                      }
                    }}
                  >
                    Remove {p.name}
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {editing === null ? (
        <button type="button" onClick={() => setEditing({ draft: EMPTY, isNew: true })}>
          Add a provider
        </button>
      ) : (
        <ProviderForm
          key={editing.draft.id}
          initial={editing.draft}
          isNew={editing.isNew}
          onDone={async (saved) => {
            setEditing(null);
            if (saved) await refresh();
          }}
        />
      )}
    </>
  );
};

const ProviderForm = ({
  initial,
  isNew,
  onDone,
}: {
  initial: Draft;
  isNew: boolean;
  onDone: (saved: boolean) => Promise<void>;
}) => {
  const [d, setD] = useState(initial);
  const projects = useQuery({ queryKey: ['projects'], queryFn: () => call('GET /v1/projects') });
  const save = useMutation({
    mutationFn: () =>
      call('PUT /v1/settings/sso/:provider', {
        params: { provider: d.id },
        body: {
          name: d.name.trim(),
          issuer: d.issuer.trim(),
          client_id: d.client_id.trim(),
          ...(d.client_secret === '' ? {} : { client_secret: d.client_secret }),
          scopes: words(d.scopes),
          allowed_domains: words(d.allowed_domains),
          jit: d.jit,
          claim: d.claim.trim() === '' ? null : d.claim.trim(),
          mappings: d.mappings,
        },
      }),
    onSuccess: () => onDone(true),
  });
  const at = (path: string, entries?: readonly string[]) => messagesAt(save.error, path, entries);
  const text = (field: keyof Draft, label: string, hint?: string, type = 'text') => (
    <Field
      id={`sso-${field}`}
      label={label}
      error={at(field, typeof d[field] === 'string' ? words(d[field]) : [])}
      {...(hint === undefined ? {} : { hint })}
    >
      <input
        id={`sso-${field}`}
        type={type}
        value={d[field] as string}
        autoComplete="off"
        onChange={(e) => setD({ ...d, [field]: e.target.value })}
      />
    </Field>
  );
  const setMapping = (i: number, change: Partial<Mapping>) =>
    setD({ ...d, mappings: d.mappings.map((m, j) => (j === i ? { ...m, ...change } : m)) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <form className="sso-form" onSubmit={submit} aria-label={isNew ? 'New provider' : `Provider ${d.id}`}>
      {isNew ? (
        text('id', 'Id', 'Lower-case letters, digits and dashes; part of the sign-in addresses')
      ) : (
        <p>
          Provider <code>{d.id}</code>
        </p>
      )}
      <p className="muted">
        Register this redirect URI at the provider: <code>{callbackOf(d.id)}</code> (with WATCHLOG_PUBLIC_URL set, its
        origin instead of this one)
      </p>
      {text('name', 'Name', 'On the login page: "Sign in with …"')}
      {text('issuer', 'Issuer', 'Its discovery document is at …/.well-known/openid-configuration')}
      {text('client_id', 'Client id')}
      {text('client_secret', 'Client secret', isNew ? undefined : 'Leave empty to keep the saved one', 'password')}
      {text('scopes', 'Scopes', 'Separated by spaces')}
      {text('allowed_domains', 'Allowed e-mail domains', 'Separated by commas; empty: any domain')}
      <div className="field">
        <label htmlFor="sso-jit">
          <input id="sso-jit" type="checkbox" checked={d.jit} onChange={() => setD({ ...d, jit: !d.jit })} /> Create
          users on their first sign-in, with the role of the first mapping that matches
        </label>
      </div>
      {text('claim', 'Role claim', 'A claim of the ID token, such as groups; empty: no mappings')}
      <fieldset>
        <legend>Role mappings (the first that matches wins)</legend>
        {d.mappings.map((m, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
          <div className="sso-mapping" key={i}>
            <Field id={`sso-map-${i}-value`} label={`Claim value ${i + 1}`} error={at(`mappings.${i}.value`)}>
              <input
                id={`sso-map-${i}-value`}
                value={m.value}
                onChange={(e) => setMapping(i, { value: e.target.value })}
              />
            </Field>
            <Field id={`sso-map-${i}-role`} label={`Role ${i + 1}`}>
              <select
                id={`sso-map-${i}-role`}
                value={m.role}
                onChange={(e) => setMapping(i, { role: e.target.value as Role })}
              >
                {ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            </Field>
            <Field
              id={`sso-map-${i}-projects`}
              label={`Projects ${i + 1}`}
              hint="What a member or auditor sees (an admin sees every project)"
            >
              <select
                id={`sso-map-${i}-projects`}
                multiple
                value={m.project_ids}
                onChange={(e) => setMapping(i, { project_ids: [...e.target.selectedOptions].map((o) => o.value) })}
              >
                {(projects.data ?? []).map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </Field>
            <button type="button" onClick={() => setD({ ...d, mappings: d.mappings.filter((_, j) => j !== i) })}>
              Remove mapping {i + 1}
            </button>
          </div>
        ))}
        <button
          type="button"
          onClick={() => setD({ ...d, mappings: [...d.mappings, { value: '', role: 'member', project_ids: [] }] })}
        >
          Add a mapping
        </button>
      </fieldset>
      <ErrorNote error={save.error} />
      <button type="submit" disabled={save.isPending}>
        Save provider
      </button>{' '}
      <button type="button" onClick={() => onDone(false)}>
        Cancel
      </button>
    </form>
  );
};
