import { type FormEvent, useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, type Incident } from '../../api.ts';
import { useCanWrite } from '../../auth.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { FormErrors } from '../../components/FormErrors.tsx';
import { fieldErrors } from '../../components/form-errors.ts';
import { ErrorNote, Loading } from '../../components/ui.tsx';
import { formatTime } from '../../format.ts';
import { LIVE_MS, useProjectMonitors } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import {
  type Impact,
  ImpactBadge,
  type IncidentStatus,
  monitorNames,
  StatusBadge,
  MessageField,
  StatusImpactFields,
} from './words.tsx';
import './incidents.css';

const SHOWN = ['status', 'message', 'impact'];

/** Post an update: its status becomes the incident's (resolved closes it), and the impact changes
 *  when one is chosen. */
const UpdateForm = ({ incident }: { incident: Incident }) => {
  const prefix = useId();
  const client = useQueryClient();
  const [status, setStatus] = useState<IncidentStatus>(incident.status);
  const [impact, setImpact] = useState<Impact | ''>('');
  const [message, setMessage] = useState('');
  const post = useMutation({
    mutationFn: () =>
      call('POST /v1/incidents/:id/updates', {
        params: { id: incident.id },
        body: { status, message, ...(impact === '' ? {} : { impact }) },
      }),
    onSuccess: async (updated) => {
      client.setQueryData(['incidents', 'one', incident.id], updated);
      await client.invalidateQueries({ queryKey: ['incidents'] });
      setMessage('');
      setImpact('');
      setStatus(updated.status);
    },
  });
  const errors = fieldErrors(post.error);
  const id = (f: string) => `${prefix}-${f}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    post.mutate();
  };
  return (
    <form className="panel stack" onSubmit={submit} noValidate aria-label="Post an update">
      <h2>Post an update</h2>
      <StatusImpactFields
        id={id}
        errors={errors}
        status={status}
        onStatus={setStatus}
        impact={impact}
        onImpact={setImpact}
        keepImpact={incident.impact}
      />
      <MessageField id={id} errors={errors} message={message} onMessage={setMessage} />
      <FormErrors error={post.error} errors={errors} shown={SHOWN} failed="The update was not posted" />
      {post.isSuccess && (
        <p className="notice" role="status">
          Update posted.
        </p>
      )}
      <div className="row">
        <button type="submit" disabled={post.isPending}>
          {post.isPending ? 'Posting…' : 'Post update'}
        </button>
      </div>
    </form>
  );
};

const DeleteIncident = ({ incident, onDeleted }: { incident: Incident; onDeleted: () => void }) => {
  const [asking, setAsking] = useState(false);
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => call('DELETE /v1/incidents/:id', { params: { id: incident.id } }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['incidents'] });
      onDeleted();
    },
  });
  return (
    <>
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        Delete incident
      </button>
      {asking && (
        <ConfirmDialog
          title={`Delete the incident ${incident.title}?`}
          confirm={remove.isPending ? 'Deleting…' : 'Delete incident'}
          busy={remove.isPending}
          error={remove.error}
          failed="The incident was not deleted"
          onConfirm={() => remove.mutate()}
          onCancel={() => {
            remove.reset();
            setAsking(false);
          }}
        >
          <p>
            For an incident opened by mistake: it leaves every status page and feed, with its updates. To close a real
            one, post a <em>Resolved</em> update instead.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
};

/** One incident: what it concerns, its updates newest first, a form to post the next, delete. */
export const IncidentDetail = ({ projectId, incidentId }: { projectId: string; incidentId: string }) => {
  const canWrite = useCanWrite();
  const monitors = useProjectMonitors(projectId).data;
  const incident = useQuery({
    queryKey: ['incidents', 'one', incidentId],
    queryFn: () => call('GET /v1/incidents/:id', { params: { id: incidentId } }),
    refetchInterval: LIVE_MS * 2,
  });
  const list = `/p/${projectId}/incidents`;
  const back = (
    <p>
      <Link to={list}>← Incidents</Link>
    </p>
  );
  if (incident.isPending) return <Loading what="the incident" />;
  if (incident.isError)
    return (
      <section>
        {back}
        <ErrorNote error={incident.error} title="The incident could not be read" />
      </section>
    );
  const i = incident.data;
  return (
    <section>
      {back}
      <div className="sp-head">
        <h1>{i.title}</h1>
        {canWrite && <DeleteIncident incident={i} onDeleted={() => navigate(list)} />}
      </div>
      <dl className="incident-facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={i.status} />
          {i.resolved_at !== null && <> on {formatTime(i.resolved_at)}</>}
        </dd>
        <dt>Impact</dt>
        <dd>
          <ImpactBadge impact={i.impact} />
        </dd>
        <dt>Concerns</dt>
        <dd>{monitorNames(i.monitor_ids, monitors)}</dd>
        <dt>Opened</dt>
        <dd>
          {formatTime(i.created_at)}
          {i.auto !== null && ' automatically, when a monitor of a status page went DOWN'}
        </dd>
      </dl>
      <div className="incident-columns">
        <section aria-labelledby="timeline-heading">
          <h2 id="timeline-heading">Updates, newest first</h2>
          <ol className="incident-timeline" aria-label={`Updates of ${i.title}`}>
            {[...i.updates].reverse().map((u) => (
              <li key={u.id}>
                <div className="incident-update-head">
                  <StatusBadge status={u.status} />
                  {u.impact !== null && <ImpactBadge impact={u.impact} />}
                  <time dateTime={u.at} className="muted">
                    {formatTime(u.at)}
                  </time>
                </div>
                <p className="incident-message">{u.message}</p>
              </li>
            ))}
          </ol>
        </section>
        {canWrite && <UpdateForm key={i.id} incident={i} />}
      </div>
    </section>
  );
};
