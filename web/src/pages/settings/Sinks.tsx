import { Fragment, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, type Answer } from '../../api.ts';
import { useSession } from '../../auth.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { Empty, ErrorNote, Field, Loading, messagesAt } from '../../components/ui.tsx';
import { formatTime } from '../../format.ts';
import { FilterFields, useFilter } from './SinkFilter.tsx';
import { SINK_TYPE_NAMES, SinkForm } from './SinkForm.tsx';

type Sink = Answer<'GET /v1/projects/:id/sinks'>[number];

/** Where a sink sends, from its settings (secrets are masked there). */
const destinationOf = (s: Sink): string => {
  const settings = s.settings as { url?: string; host?: string; port?: number; index?: string };
  if (s.type === 'syslog') return `${settings.host ?? ''}${settings.port === undefined ? '' : `:${settings.port}`}`;
  if (s.type === 'elastic') return `${settings.url ?? ''} → ${settings.index ?? ''}`;
  return settings.url ?? 'the default intake';
};

const labelOf = (s: Sink) => s.name ?? SINK_TYPE_NAMES[s.type];

const lagText = (s: Sink) =>
  s.lag_records === 0
    ? 'up to date'
    : `${s.lag_exact ? '' : 'at least '}${s.lag_records.toLocaleString()} records, ` +
      `${s.lag_seconds < 10 ? s.lag_seconds.toFixed(1) : Math.round(s.lag_seconds).toLocaleString()} s behind`;

/** The project's log sinks (SIEM forwarding): each one's state, lag and last error, refreshed every
 *  5 s; admins add, pause, resume and delete them (docs/sinks.md). */
export const Sinks = ({ projectId }: { projectId: string }) => {
  const isAdmin = useSession().user?.role === 'admin';
  const client = useQueryClient();
  const key = ['sinks', projectId];
  const sinks = useQuery({
    queryKey: key,
    queryFn: () => call('GET /v1/projects/:id/sinks', { params: { id: projectId } }),
    refetchInterval: 5000,
  });
  const refresh = () => client.invalidateQueries({ queryKey: key });
  const toggle = useMutation({
    mutationFn: (s: Sink) =>
      call('PUT /v1/projects/:id/sinks/:sinkId', {
        params: { id: projectId, sinkId: s.id },
        body: { active: !s.active },
      }),
    onSuccess: refresh,
  });
  const [deleting, setDeleting] = useState<Sink | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: (s: Sink) => call('DELETE /v1/projects/:id/sinks/:sinkId', { params: { id: projectId, sinkId: s.id } }),
    onSuccess: async () => {
      setDeleting(null);
      await refresh();
    },
  });

  return (
    <section aria-labelledby="sinks-heading">
      <h2 id="sinks-heading">Log sinks</h2>
      <p className="muted">
        Every record of this project, in log order and at least once (the event id deduplicates), to a SIEM or
        collector.
      </p>
      <ErrorNote error={sinks.error} title="The sinks could not be read" />
      <ErrorNote error={toggle.error} />
      {sinks.isPending && <Loading what="log sinks" />}
      {sinks.data?.length === 0 && <Empty>No log sink yet.</Empty>}
      {sinks.data !== undefined && sinks.data.length > 0 && (
        <table aria-label="Log sinks">
          <thead>
            <tr>
              <th scope="col">Sink</th>
              <th scope="col">Destination</th>
              <th scope="col">State</th>
              <th scope="col">Lag</th>
              <th scope="col">Forwarded</th>
              <th scope="col">Last error</th>
              {isAdmin && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {sinks.data.map((s) => (
              <Fragment key={s.id}>
                <tr>
                  <td>
                    {labelOf(s)}
                    {s.name !== null && <div className="muted">{SINK_TYPE_NAMES[s.type]}</div>}
                  </td>
                  <td>
                    <code>{destinationOf(s)}</code>
                  </td>
                  <td>
                    <span className={`sink-state sink-${s.state}`}>{s.state}</span>
                    {s.degraded_since !== null && <div className="muted">since {formatTime(s.degraded_since)}</div>}
                  </td>
                  <td>
                    <span>{lagText(s)}</span>
                  </td>
                  <td>
                    <span>{s.forwarded_total.toLocaleString()}</span>
                    {s.last_forwarded_at !== null && (
                      <div className="muted">last {formatTime(s.last_forwarded_at)}</div>
                    )}
                  </td>
                  <td>
                    {s.last_error === null ? (
                      <span className="muted">none</span>
                    ) : (
                      <>
                        {s.last_error}
                        {s.last_error_at !== null && <div className="muted">{formatTime(s.last_error_at)}</div>}
                      </>
                    )}
                  </td>
                  {isAdmin && (
                    <td>
                      <button type="button" disabled={toggle.isPending} onClick={() => toggle.mutate(s)}>
                        {s.active ? 'Pause' : 'Resume'} {labelOf(s)}
                      </button>{' '}
                      <button type="button" onClick={() => setEditing(editing === s.id ? null : s.id)}>
                        Edit {labelOf(s)}
                      </button>{' '}
                      <button type="button" onClick={() => setDeleting(s)}>
                        Delete {labelOf(s)}
                      </button>
                    </td>
                  )}
                </tr>
                {editing === s.id && (
                  <tr>
                    <td colSpan={7}>
                      <EditSink
                        projectId={projectId}
                        sink={s}
                        onDone={async (saved) => {
                          setEditing(null);
                          if (saved) await refresh();
                        }}
                      />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
      {deleting !== null && (
        <ConfirmDialog
          title={`Delete ${labelOf(deleting)}?`}
          confirm="Delete the sink"
          busy={remove.isPending}
          error={remove.error}
          failed="The sink could not be deleted"
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        >
          It stops forwarding; what it sent stays where it went.
        </ConfirmDialog>
      )}
      {isAdmin && <SinkForm projectId={projectId} onCreated={refresh} />}
    </section>
  );
};

/** A sink's name and what it forwards, changed where it stands: its checkpoint stays, and the new
 *  filter applies from its next batch. */
const EditSink = ({
  projectId,
  sink,
  onDone,
}: {
  projectId: string;
  sink: Sink;
  onDone: (saved: boolean) => Promise<void>;
}) => {
  const [name, setName] = useState(sink.name ?? '');
  const filter = useFilter(sink.filter);
  const save = useMutation({
    mutationFn: () =>
      call('PUT /v1/projects/:id/sinks/:sinkId', {
        params: { id: projectId, sinkId: sink.id },
        body: { name: name.trim() === '' ? null : name.trim(), filter: filter.value() },
      }),
    onSuccess: () => onDone(true),
  });
  const at = (path: string) => messagesAt(save.error, path);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={`Edit ${labelOf(sink)}`} className="stack" noValidate>
      <Field id={`edit-${sink.id}-name`} label="Name (optional)" error={at('name')}>
        <input id={`edit-${sink.id}-name`} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <FilterFields idPrefix={`edit-${sink.id}`} filter={filter} error={at('filter')} />
      <ErrorNote error={save.error} />
      <div>
        <button type="submit" disabled={save.isPending}>
          Save
        </button>{' '}
        <button type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
};
