import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, del, get, post, type ApiKey, type NewApiKey } from '../../api.ts';
import { useCanWrite } from '../../auth.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Empty, ErrorNote, Field, Loading } from '../../components/ui.tsx';
import { formatTime } from '../../format.ts';

const firstEvent = (key: string) =>
  `curl -s ${window.location.origin}/v1/audit -H 'x-api-key: ${key}' -H 'content-type: application/json' ` +
  `-d '{"path":"/login","method":"POST","status_code":200,"response_time":42,"identifier":"user-1","service_name":"api","environment":"production"}'`;

/** The new key, once: after "Done" it is gone from the page and nobody can read it again. */
const CreatedKey = ({ created, onDone }: { created: NewApiKey; onDone: () => void }) => (
  <section className="panel st-created" aria-labelledby="created-key-heading">
    <h2 id="created-key-heading">API key “{created.name}” created</h2>
    <p><strong>Copy it now: it is shown only this once.</strong> watchlog keeps only a hash of it.</p>
    <div className="row st-key">
      <code aria-label="The new API key">{created.key}</code>
      <CopyButton value={created.key} label="Copy the API key" />
    </div>
    <p>Send a first event with it:</p>
    <pre>{firstEvent(created.key)}</pre>
    <button type="button" className="primary" onClick={onDone}>Done, I have copied it</button>
  </section>
);

export const ApiKeys = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const client = useQueryClient();
  const key = ['api-keys', projectId];
  const keys = useQuery({ queryKey: key, queryFn: () => get<ApiKey[]>(`/v1/projects/${projectId}/api-keys`) });
  const [name, setName] = useState('');
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const create = useMutation({
    mutationFn: () => post<NewApiKey>(`/v1/projects/${projectId}/api-keys`, { name }),
    onSuccess: async (answer) => {
      setCreated(answer);
      setName('');
      await client.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => del(`/v1/projects/${projectId}/api-keys/${id}`),
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
      <p className="muted">SDKs send events with a key in the <code>X-API-Key</code> header. A key only ingests into this project; revoke it and ingest with it is refused at once.</p>
      {created !== null && <CreatedKey created={created} onDone={() => setCreated(null)} />}
      {canWrite && (
        <form onSubmit={submit} aria-label="New API key" className="row" noValidate>
          <Field id="key-name" label="Name" hint="Where it is used, e.g. checkout backend" error={create.error instanceof ApiError ? create.error.fieldMessage('name') : undefined}>
            <input id="key-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
          </Field>
          <button type="submit" disabled={create.isPending}>{create.isPending ? 'Creating…' : 'Create key'}</button>
        </form>
      )}
      <ErrorNote error={create.error} title="The key was not created" />
      <ErrorNote error={keys.error} title="Keys could not be read" />
      {keys.isPending && <Loading what="API keys" />}
      {keys.data?.length === 0 && <Empty>No key yet. {canWrite ? 'Create one above, then send a first event with the curl line shown.' : 'An admin or member creates them.'}</Empty>}
      {keys.data !== undefined && keys.data.length > 0 && (
        <div className="table-wrap">
          <table aria-label="API keys">
            <thead><tr><th>Name</th><th>Prefix</th><th>Created</th><th>State</th>{canWrite && <th>Actions</th>}</tr></thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td><code>{k.prefix}…</code></td>
                  <td>{formatTime(k.created_at)}</td>
                  <td>{k.revoked_at === null ? 'Active' : <span className="muted">Revoked {formatTime(k.revoked_at)}</span>}</td>
                  {canWrite && (
                    <td>{k.revoked_at === null && <button type="button" className="danger" onClick={() => { revoke.reset(); setRevoking(k); }} aria-label={`Revoke ${k.name}`}>Revoke</button>}</td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoking !== null && (
        <ConfirmDialog title={`Revoke the key ${revoking.name}?`} confirm="Revoke key" busy={revoke.isPending} error={revoke.error}
          failed="The key was not revoked" onConfirm={() => revoke.mutate(revoking.id)} onCancel={() => setRevoking(null)}>
          <p>Every event sent with <code>{revoking.prefix}…</code> is refused (401) from now on. This cannot be undone: a new key is needed.</p>
        </ConfirmDialog>
      )}
    </section>
  );
};
