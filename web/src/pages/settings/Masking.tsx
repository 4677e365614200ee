import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, call } from '../../api.ts';
import { useCanWrite } from '../../auth.tsx';
import { ErrorNote, Loading } from '../../components/ui.tsx';
import { formatTime } from '../../format.ts';

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** Which entry a server message is about: `keys.2` → line 3 of the keys. */
const EntryErrors = ({ error, list, entries }: { error: unknown; list: 'keys' | 'patterns'; entries: string[] }) => {
  if (!(error instanceof ApiError)) return null;
  const mine = error.details.filter((d) => d.path === list || d.path.startsWith(`${list}.`));
  if (mine.length === 0) return null;
  return (
    <ul className="field-error" role="alert" id={`mask-${list}-error`}>
      {mine.map((d) => {
        const index = Number(d.path.split('.')[1]);
        return (
          <li key={d.path + d.message}>
            {Number.isInteger(index) ? (
              <>
                line {index + 1} (<code>{entries[index]}</code>):{' '}
              </>
            ) : null}
            {d.message}
          </li>
        );
      })}
    </ul>
  );
};

export const Masking = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const client = useQueryClient();
  const key = ['masking', projectId];
  const rules = useQuery({
    queryKey: key,
    queryFn: () => call('GET /v1/projects/:id/masking', { params: { id: projectId } }),
  });
  const [keys, setKeys] = useState('');
  const [patterns, setPatterns] = useState('');
  useEffect(() => {
    if (rules.data === undefined) return;
    setKeys(rules.data.keys.join('\n'));
    setPatterns(rules.data.patterns.join('\n'));
  }, [rules.data]);
  const save = useMutation({
    mutationFn: () =>
      call('PUT /v1/projects/:id/masking', {
        params: { id: projectId },
        body: { keys: lines(keys), patterns: lines(patterns) },
      }),
    onSuccess: (next) => client.setQueryData(key, next),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  if (rules.error) return <ErrorNote error={rules.error} title="Masking rules could not be read" />;
  if (rules.data === undefined) return <Loading what="masking rules" />;

  return (
    <form onSubmit={submit} aria-label="Masking rules" className="stack" noValidate>
      <h2>Masking</h2>
      <p className="muted">
        Before an event is stored, the values of secret keys (password, token, api_key, authorization, card numbers…)
        are replaced in its bodies and query. Add this project&apos;s own names and patterns; they apply to ingest
        within a second.
        {rules.data.updated_at !== null && ` Last changed ${formatTime(rules.data.updated_at)}.`}
      </p>
      <div className="st-masking">
        <div className="field">
          <label htmlFor="mask-keys">Extra secret key names (one per line)</label>
          <textarea
            id="mask-keys"
            rows={6}
            value={keys}
            onChange={(e) => setKeys(e.target.value)}
            disabled={!canWrite}
            aria-describedby={save.error ? 'mask-keys-error' : undefined}
            placeholder="internal_ref"
          />
          <EntryErrors error={save.error} list="keys" entries={lines(keys)} />
        </div>
        <div className="field">
          <label htmlFor="mask-patterns">Value patterns, RE2 (one per line)</label>
          <textarea
            id="mask-patterns"
            rows={6}
            value={patterns}
            onChange={(e) => setPatterns(e.target.value)}
            disabled={!canWrite}
            aria-describedby={save.error ? 'mask-patterns-error' : undefined}
            placeholder="EMP-[0-9]{6}"
          />
          <EntryErrors error={save.error} list="patterns" entries={lines(patterns)} />
        </div>
      </div>
      <ErrorNote error={save.error} title="The rules were not saved" />
      {save.isSuccess && (
        <p role="status" className="notice">
          Saved: new events are masked with these rules.
        </p>
      )}
      {canWrite && (
        <div>
          <button type="submit" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save masking rules'}
          </button>
        </div>
      )}
    </form>
  );
};
