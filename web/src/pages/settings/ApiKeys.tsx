import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, type ApiKey, call, type IssuedApiKey } from '../../api.ts';
import { useCanWrite } from '../../auth.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Empty, ErrorNote, Field, Loading } from '../../components/ui.tsx';
import { formatNumber, formatTime } from '../../format.ts';
import { NO_INPUT, RestrictionsFields, restrictionsBody, restrictionsInputOf } from './KeyRestrictions.tsx';

/** A key's scopes, expiry, origins and rate changed in place: where it is deployed, it keeps
 *  working. */
const EditKey = ({ projectId, apiKey, onDone }: { projectId: string; apiKey: ApiKey; onDone: () => void }) => {
  const client = useQueryClient();
  const [input, setInput] = useState(() => restrictionsInputOf(apiKey));
  const save = useMutation({
    mutationFn: () =>
      call('PUT /v1/projects/:id/api-keys/:keyId', {
        params: { id: projectId, keyId: apiKey.id },
        body: restrictionsBody(input),
      }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['api-keys', projectId] });
      onDone();
    },
  });
  return (
    <form
      className="panel"
      aria-label={`Restrictions of ${apiKey.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
      noValidate
    >
      <h3>Restrictions of “{apiKey.name}”</h3>
      <div className="st-new">
        <RestrictionsFields idPrefix={`edit-${apiKey.id}`} value={input} onChange={setInput} error={save.error} />
      </div>
      <ErrorNote error={save.error} title="The key was not changed" />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save restrictions'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
};

const originsText = (k: ApiKey) => (k.allowed_origins.length === 0 ? 'any' : k.allowed_origins.join(', '));
const rateText = (k: ApiKey) => (k.rate_limit === null ? 'default' : `${formatNumber(k.rate_limit)}/s`);
const expired = (k: ApiKey) => k.expires_at !== null && Date.parse(k.expires_at) <= Date.now();

const firstEvent = (key: string) =>
  `curl -s ${window.location.origin}/v1/audit -H 'x-api-key: ${key}' -H 'content-type: application/json' ` +
  `-d '{"path":"/login","method":"POST","status_code":200,"response_time":42,` +
  `"identifier":"user-1","service_name":"api","environment":"production"}'`;

/** The new key, once: after "Done" it is gone from the page and nobody can read it again. */
const CreatedKey = ({ created, onDone }: { created: IssuedApiKey; onDone: () => void }) => (
  <section className="panel st-created" aria-labelledby="created-key-heading">
    <h2 id="created-key-heading">API key “{created.name}” created</h2>
    <p>
      <strong>Copy it now: it is shown only this once.</strong> watchlog keeps only a hash of it.
    </p>
    <div className="row st-key">
      <figure className="snippet" aria-label="The new API key">
        <code>{created.key}</code>
      </figure>
      <CopyButton value={created.key} label="Copy the API key" />
    </div>
    <p>Send a first event with it:</p>
    <pre>{firstEvent(created.key)}</pre>
    <button type="button" className="primary" onClick={onDone}>
      Done, I have copied it
    </button>
  </section>
);

export const ApiKeys = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const client = useQueryClient();
  const key = ['api-keys', projectId];
  const keys = useQuery({
    queryKey: key,
    queryFn: () => call('GET /v1/projects/:id/api-keys', { params: { id: projectId } }),
  });
  const [name, setName] = useState('');
  const [restrictions, setRestrictions] = useState(NO_INPUT);
  const [created, setCreated] = useState<IssuedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const create = useMutation({
    mutationFn: () =>
      call('POST /v1/projects/:id/api-keys', {
        params: { id: projectId },
        body: { name, ...restrictionsBody(restrictions) },
      }),
    onSuccess: async (answer) => {
      setCreated(answer);
      setName('');
      setRestrictions(NO_INPUT);
      await client.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) =>
      call('DELETE /v1/projects/:id/api-keys/:keyId', { params: { id: projectId, keyId: id } }),
    onSuccess: async () => {
      setRevoking(null);
      await client.invalidateQueries({ queryKey: key });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p className="muted">
        SDKs send events with a key in the <code>X-API-Key</code> header. A key works on this project only, for what its
        scopes name: <code>ingest</code> (the default) sends events, <code>read</code> reads them and{' '}
        <code>stream</code> serves auditors. Revoke it, or let it expire, and it is refused at once. A key used in web
        pages is public: give it <code>ingest</code> only, restrict it to your site's origins and give it a rate limit.
        &ldquo;Last used&rdquo; is to the minute.
      </p>
      {created !== null && <CreatedKey created={created} onDone={() => setCreated(null)} />}
      {canWrite && (
        <form onSubmit={submit} aria-label="New API key" noValidate>
          <div className="st-new">
            <Field
              id="key-name"
              label="Name"
              hint="Where it is used, e.g. checkout backend"
              error={create.error instanceof ApiError ? create.error.fieldMessage('name') : undefined}
            >
              <input id="key-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
            </Field>
            <RestrictionsFields idPrefix="key" value={restrictions} onChange={setRestrictions} error={create.error} />
          </div>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create key'}
          </button>
        </form>
      )}
      <ErrorNote error={create.error} title="The key was not created" />
      <ErrorNote error={keys.error} title="Keys could not be read" />
      {keys.isPending && <Loading what="API keys" />}
      {keys.data?.length === 0 && (
        <Empty>
          No key yet.{' '}
          {canWrite
            ? 'Create one above, then send a first event with the curl line shown.'
            : 'An admin or member creates them.'}
        </Empty>
      )}
      {keys.data !== undefined && keys.data.length > 0 && (
        <div className="table-wrap">
          <table aria-label="API keys">
            <thead>
              <tr>
                <th>Name</th>
                <th>Prefix</th>
                <th>Scopes</th>
                <th>Expires</th>
                <th>Last used</th>
                <th>Origins</th>
                <th>Rate</th>
                <th>Created</th>
                <th>State</th>
                {canWrite && <th>Actions</th>}
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.scopes.join(', ')}</td>
                  <td>{k.expires_at === null ? 'never' : formatTime(k.expires_at)}</td>
                  <td>{k.last_used_at === null ? 'never' : formatTime(k.last_used_at)}</td>
                  <td className="st-url">{originsText(k)}</td>
                  <td>{rateText(k)}</td>
                  <td>{formatTime(k.created_at)}</td>
                  <td>
                    {k.revoked_at !== null ? (
                      <span className="muted">Revoked {formatTime(k.revoked_at)}</span>
                    ) : expired(k) ? (
                      <span className="muted">Expired</span>
                    ) : (
                      'Active'
                    )}
                  </td>
                  {canWrite && (
                    <td>
                      {k.revoked_at === null && (
                        <div className="st-actions">
                          <button type="button" onClick={() => setEditing(k)} aria-label={`Restrict ${k.name}`}>
                            Restrict
                          </button>
                          <button
                            type="button"
                            className="danger"
                            onClick={() => {
                              revoke.reset();
                              setRevoking(k);
                            }}
                            aria-label={`Revoke ${k.name}`}
                          >
                            Revoke
                          </button>
                        </div>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing !== null && (
        <EditKey key={editing.id} projectId={projectId} apiKey={editing} onDone={() => setEditing(null)} />
      )}
      {revoking !== null && (
        <ConfirmDialog
          title={`Revoke the key ${revoking.name}?`}
          confirm="Revoke key"
          busy={revoke.isPending}
          error={revoke.error}
          failed="The key was not revoked"
          onConfirm={() => revoke.mutate(revoking.id)}
          onCancel={() => setRevoking(null)}
        >
          <p>
            Every request sent with <code>{revoking.prefix}…</code> is refused (401) from now on. This cannot be undone:
            a new key is needed.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
};
