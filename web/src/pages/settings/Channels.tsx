import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, del, get, post, put, type Channel } from '../../api.ts';
import { useCanWrite } from '../../auth.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { Empty, ErrorNote, Field, Loading } from '../../components/ui.tsx';

const EVENTS = [
  { name: 'healthcheck', says: 'monitor DOWN and UP' },
  { name: 'alert', says: 'anomaly alerts' },
];

const fromBase64Url = (s: string): Uint8Array<ArrayBuffer> => {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(s.length / 4) * 4, '=');
  const raw = atob(b64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
};

/** Subscribes this browser (service worker /sw.js, the deployment's VAPID key) and makes the
 *  subscription a channel. Every refusal on the way is said in words. */
const subscribeThisBrowser = async (projectId: string, events: string[]): Promise<Channel> => {
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    throw new Error('This browser cannot receive Web Push notifications (no service worker or Push API support; in Safari, add the dashboard to the home screen first).');
  }
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') {
    throw new Error(permission === 'denied'
      ? 'Notifications are blocked for this site: allow them in the browser\'s site settings, then try again.'
      : 'The browser did not grant permission to show notifications.');
  }
  const { public_key } = await get<{ public_key: string }>('/v1/webpush/public-key');
  const registration = await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
  const existing = await registration.pushManager.getSubscription();
  const subscription = existing ?? await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromBase64Url(public_key) });
  return post<Channel>('/v1/channels', { project_id: projectId, type: 'webpush', subscription: subscription.toJSON(), events });
};

const EventChoice = ({ chosen, onChange, idPrefix }: { chosen: string[]; onChange: (e: string[]) => void; idPrefix: string }) => (
  <fieldset className="st-events">
    <legend>Notify on</legend>
    {EVENTS.map((e) => (
      <label key={e.name} htmlFor={`${idPrefix}-${e.name}`}>
        <input id={`${idPrefix}-${e.name}`} type="checkbox" checked={chosen.includes(e.name)}
          onChange={(ev) => onChange(ev.target.checked ? [...chosen, e.name] : chosen.filter((x) => x !== e.name))} />
        {' '}{e.says}
      </label>
    ))}
  </fieldset>
);

export const Channels = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const client = useQueryClient();
  const key = ['channels', projectId];
  const channels = useQuery({ queryKey: key, queryFn: () => get<Channel[]>('/v1/channels', { project_id: projectId }) });
  const refresh = () => client.invalidateQueries({ queryKey: key });
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [events, setEvents] = useState<string[]>(['healthcheck']);
  const [pushEvents, setPushEvents] = useState<string[]>(['healthcheck', 'alert']);
  const [deleting, setDeleting] = useState<Channel | null>(null);

  const createWebhook = useMutation({
    mutationFn: () => post<Channel>('/v1/channels', { project_id: projectId, type: 'webhook', url, events, ...(secret === '' ? {} : { secret }) }),
    onSuccess: async () => {
      setUrl('');
      setSecret('');
      await refresh();
    },
  });
  const push = useMutation({ mutationFn: () => subscribeThisBrowser(projectId, pushEvents), onSuccess: refresh });
  const toggle = useMutation({ mutationFn: (c: Channel) => put<Channel>(`/v1/channels/${c.id}`, { active: !c.active }), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: (c: Channel) => del(`/v1/channels/${c.id}`),
    onSuccess: async () => {
      setDeleting(null);
      await refresh();
    },
  });
  const fieldError = (path: string) => (createWebhook.error instanceof ApiError ? createWebhook.error.fieldMessage(path) : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    createWebhook.mutate();
  };

  return (
    <section aria-labelledby="channels-heading">
      <h2 id="channels-heading">Notification channels</h2>
      <p className="muted">Where watchlog tells people that a monitor went DOWN or UP, or that an anomaly was found.</p>
      <ErrorNote error={channels.error} title="Channels could not be read" />
      {channels.isPending && <Loading what="channels" />}
      {channels.data?.length === 0 && <Empty>No channel yet: nobody is told when a monitor goes DOWN. Add a webhook below, or let this browser be notified.</Empty>}
      {channels.data !== undefined && channels.data.length > 0 && (
        <div className="table-wrap">
          <table aria-label="Notification channels">
            <thead><tr><th>Type</th><th>Sends to</th><th>On</th><th>State</th>{canWrite && <th>Actions</th>}</tr></thead>
            <tbody>
              {channels.data.map((c) => (
                <tr key={c.id}>
                  <td>{c.type === 'webhook' ? `Webhook${c.has_secret ? ' (signed)' : ''}` : 'Web Push'}</td>
                  <td className="st-url"><code>{c.url}</code></td>
                  <td>{c.events.map((e) => EVENTS.find((x) => x.name === e)?.says ?? e).join(', ')}</td>
                  <td>{c.active ? 'Active' : <span className="muted">Inactive{c.deactivated_reason ? `: ${c.deactivated_reason}` : ''}</span>}</td>
                  {canWrite && (
                    <td className="st-actions">
                      <button type="button" onClick={() => toggle.mutate(c)} aria-label={`${c.active ? 'Deactivate' : 'Activate'} ${c.url}`}>{c.active ? 'Deactivate' : 'Activate'}</button>
                      <button type="button" className="danger" onClick={() => { remove.reset(); setDeleting(c); }} aria-label={`Delete ${c.url}`}>Delete</button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorNote error={toggle.error} title="The channel was not changed" />
      {canWrite && (
        <div className="st-new">
          <form onSubmit={submit} aria-label="New webhook" className="panel stack" noValidate>
            <h3>Webhook</h3>
            <Field id="hook-url" label="URL" hint="watchlog POSTs JSON here" error={fieldError('url')}>
              <input id="hook-url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/watchlog" />
            </Field>
            <Field id="hook-secret" label="Secret (optional)" hint="8–256 characters; each body is then signed (X-Watchlog-Signature, HMAC-SHA256)" error={fieldError('secret')}>
              <input id="hook-secret" type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} />
            </Field>
            <EventChoice chosen={events} onChange={setEvents} idPrefix="hook-event" />
            {fieldError('events') && <small className="field-error" role="alert">{fieldError('events')}</small>}
            <ErrorNote error={createWebhook.error} title="The webhook was not added" />
            <div><button type="submit" disabled={createWebhook.isPending}>Add webhook</button></div>
          </form>
          <div className="panel stack">
            <h3>This browser (Web Push)</h3>
            <p className="muted">Notifications reach this browser even when the dashboard is closed. Each browser subscribes once.</p>
            <EventChoice chosen={pushEvents} onChange={setPushEvents} idPrefix="push-event" />
            <ErrorNote error={push.error} title="This browser was not subscribed" />
            {push.isSuccess && <p role="status" className="notice">This browser will be notified.</p>}
            <div><button type="button" onClick={() => push.mutate()} disabled={push.isPending}>{push.isPending ? 'Subscribing…' : 'Notify this browser'}</button></div>
          </div>
        </div>
      )}
      {deleting !== null && (
        <ConfirmDialog title="Delete this channel?" confirm="Delete channel" busy={remove.isPending} error={remove.error}
          failed="The channel was not deleted" onConfirm={() => remove.mutate(deleting)} onCancel={() => setDeleting(null)}>
          <p>Nothing more is sent to <code>{deleting.url}</code>. To stop for a while, deactivate it instead.</p>
        </ConfirmDialog>
      )}
    </section>
  );
};
