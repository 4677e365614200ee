import { Fragment, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, type Channel, type ChannelCreate, type Delivery, type TestAnswer } from '../../api.ts';
import { useCanWrite } from '../../auth.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { Empty, ErrorNote, Loading } from '../../components/ui.tsx';
import { formatTime } from '../../format.ts';
import { ChannelForm, type ChannelEvent, EVENTS, EventChoice, TYPE_NAMES } from './ChannelForm.tsx';

const fromBase64Url = (s: string): Uint8Array<ArrayBuffer> => {
  const b64 = s
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(s.length / 4) * 4, '=');
  const raw = atob(b64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
};

/** What `POST /v1/channels` takes for a Web Push channel. */
type WebPush = Extract<ChannelCreate, { type: 'webpush' }>;

/** Subscribes this browser (service worker /sw.js, the deployment's VAPID key) and makes the
 *  subscription a channel. Every refusal on the way is said in words. */
const subscribeThisBrowser = async (projectId: string, events: ChannelEvent[]): Promise<Channel> => {
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    throw new Error(
      'This browser cannot receive Web Push notifications (no service worker or Push API support; in ' +
        'Safari, add the dashboard to the home screen first).',
    );
  }
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') {
    throw new Error(
      permission === 'denied'
        ? "Notifications are blocked for this site: allow them in the browser's site settings, then try again."
        : 'The browser did not grant permission to show notifications.',
    );
  }
  const { public_key } = await call('GET /v1/webpush/public-key');
  const registration = await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
  const existing = await registration.pushManager.getSubscription();
  const subscription =
    existing ??
    (await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: fromBase64Url(public_key),
    }));
  return call('POST /v1/channels', {
    body: {
      project_id: projectId,
      type: 'webpush',
      // The browser's own JSON of it: the endpoint and keys the server takes (and expirationTime, which it ignores).
      subscription: subscription.toJSON() as WebPush['subscription'],
      events,
    },
  });
};

/** How a channel is called in the table and in buttons' names. */
const labelOf = (c: Channel) => c.name ?? c.url;

const typeText = (c: Channel) =>
  `${TYPE_NAMES[c.type]}${c.type === 'webhook' && c.has_secret ? ' (signed)' : ''}` +
  `${c.project_scope === 'all' ? ', every project' : ''}`;

const answerText = (a: TestAnswer) =>
  `${a.ok ? 'Delivered' : 'Not delivered'}: ` +
  `${a.status === null ? 'no answer' : `answered ${a.status}`}` +
  `${a.error !== null && a.error !== `answered ${a.status}` ? ` (${a.error})` : ''}` +
  `${a.response !== null ? `: ${a.response}` : ''} ` +
  `in ${a.duration_ms} ms`;

/** A channel's delivery log, newest first, with "Send again" on failed ones. */
const Deliveries = ({ channel }: { channel: Channel }) => {
  const canWrite = useCanWrite();
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const key = ['deliveries', channel.id, page];
  const deliveries = useQuery({
    queryKey: key,
    queryFn: () => call('GET /v1/channels/:id/deliveries', { params: { id: channel.id }, query: { page, limit: 10 } }),
    refetchInterval: 5000,
  });
  const retry = useMutation({
    mutationFn: (d: Delivery) => call('POST /v1/deliveries/:id/retry', { params: { id: d.id } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['deliveries', channel.id] }),
  });
  const data = deliveries.data;
  return (
    <div className="st-deliveries">
      <ErrorNote error={deliveries.error} title="The delivery log could not be read" />
      {deliveries.isPending && <Loading what="deliveries" />}
      {data?.data.length === 0 && <p className="muted">Nothing sent yet.</p>}
      {data !== undefined && data.data.length > 0 && (
        <table aria-label={`Deliveries of ${labelOf(channel)}`}>
          <thead>
            <tr>
              <th>When</th>
              <th>What</th>
              <th>State</th>
              <th>Tries</th>
              <th>Last answer</th>
              {canWrite && <th />}
            </tr>
          </thead>
          <tbody>
            {data.data.map((d) => {
              const last = d.attempts.at(-1);
              return (
                <tr key={d.id}>
                  <td>{formatTime(d.created_at)}</td>
                  <td>{d.title}</td>
                  <td>
                    {d.status}
                    {d.reason !== null && <span className="muted"> ({d.reason})</span>}
                  </td>
                  <td>{d.attempts.length}</td>
                  <td>
                    {last === undefined
                      ? '—'
                      : `${last.status ?? 'no answer'}${last.error !== null ? `: ${last.error}` : ''}`}
                  </td>
                  {canWrite && (
                    <td>
                      {(d.status === 'failed' || d.status === 'cancelled') && (
                        <button
                          type="button"
                          onClick={() => retry.mutate(d)}
                          disabled={retry.isPending}
                          aria-label={`Send again ${d.title}`}
                        >
                          Send again
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <ErrorNote error={retry.error} title="The delivery was not sent again" />
      {data !== undefined && data.pagination.totalPage > 1 && (
        <div className="st-actions">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <span className="muted">
            page {page} of {data.pagination.totalPage}
          </span>
          <button type="button" disabled={page >= data.pagination.totalPage} onClick={() => setPage(page + 1)}>
            Older
          </button>
        </div>
      )}
    </div>
  );
};

export const Channels = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const client = useQueryClient();
  const key = ['channels', projectId];
  const channels = useQuery({
    queryKey: key,
    queryFn: () => call('GET /v1/channels', { query: { project_id: projectId } }),
    refetchInterval: 10_000,
  });
  const refresh = () => client.invalidateQueries({ queryKey: key });
  const [pushEvents, setPushEvents] = useState<ChannelEvent[]>(['healthcheck', 'alert']);
  const [deleting, setDeleting] = useState<Channel | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [tested, setTested] = useState<{ channel: Channel; answer: TestAnswer } | null>(null);

  const push = useMutation({ mutationFn: () => subscribeThisBrowser(projectId, pushEvents), onSuccess: refresh });
  const toggle = useMutation({
    mutationFn: (c: Channel) => call('PUT /v1/channels/:id', { params: { id: c.id }, body: { active: !c.active } }),
    onSuccess: refresh,
  });
  const test = useMutation({
    mutationFn: async (c: Channel) => ({
      channel: c,
      answer: await call('POST /v1/channels/:id/test', { params: { id: c.id } }),
    }),
    onMutate: () => setTested(null),
    onSuccess: setTested,
  });
  const remove = useMutation({
    mutationFn: (c: Channel) => call('DELETE /v1/channels/:id', { params: { id: c.id } }),
    onSuccess: async () => {
      setDeleting(null);
      await refresh();
    },
  });

  return (
    <section aria-labelledby="channels-heading">
      <h2 id="channels-heading">Notification channels</h2>
      <p className="muted">Where watchlog tells people that a monitor went DOWN or UP, or that an anomaly was found.</p>
      <ErrorNote error={channels.error} title="Channels could not be read" />
      {channels.isPending && <Loading what="channels" />}
      {channels.data?.length === 0 && (
        <Empty>
          No channel yet: nobody is told when a monitor goes DOWN. Add one below, or let this browser be notified.
        </Empty>
      )}
      {channels.data !== undefined && channels.data.length > 0 && (
        <div className="table-wrap">
          <table aria-label="Notification channels">
            <thead>
              <tr>
                <th>Type</th>
                <th>Sends to</th>
                <th>On</th>
                <th>State</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              {channels.data.map((c) => (
                <Fragment key={c.id}>
                  <tr>
                    <td>
                      {typeText(c)}
                      {c.name !== null && <div className="muted">{c.name}</div>}
                    </td>
                    <td className="st-url">
                      <code>{c.url}</code>
                    </td>
                    <td>
                      {c.events.map((e) => EVENTS.find((x) => x.name === e)?.says ?? e).join(', ')}
                      {c.quiet_minutes > 0 && <div className="muted">quiet {c.quiet_minutes} min after a DOWN</div>}
                    </td>
                    <td>
                      {c.active ? (
                        'Active'
                      ) : (
                        <span className="muted">Inactive{c.deactivated_reason ? `: ${c.deactivated_reason}` : ''}</span>
                      )}
                      {c.degraded && (
                        <div className="st-degraded" role="note">
                          Degraded{c.degraded_reason ? `: ${c.degraded_reason}` : ''}
                        </div>
                      )}
                    </td>
                    <td className="st-actions">
                      <button
                        type="button"
                        onClick={() => setOpen(open === c.id ? null : c.id)}
                        aria-expanded={open === c.id}
                        aria-label={`Deliveries of ${labelOf(c)}`}
                      >
                        Deliveries
                      </button>
                      {canWrite && (
                        <>
                          <button
                            type="button"
                            onClick={() => test.mutate(c)}
                            disabled={test.isPending}
                            aria-label={`Test ${labelOf(c)}`}
                          >
                            Test
                          </button>
                          <button
                            type="button"
                            onClick={() => toggle.mutate(c)}
                            aria-label={`${c.active ? 'Deactivate' : 'Activate'} ${labelOf(c)}`}
                          >
                            {c.active ? 'Deactivate' : 'Activate'}
                          </button>
                          <button
                            type="button"
                            className="danger"
                            onClick={() => {
                              remove.reset();
                              setDeleting(c);
                            }}
                            aria-label={`Delete ${labelOf(c)}`}
                          >
                            Delete
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                  {open === c.id && (
                    <tr>
                      <td colSpan={5}>
                        <Deliveries channel={c} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {tested !== null && (
        <p role="status" className={tested.answer.ok ? 'notice' : 'error-note'}>
          Test of {labelOf(tested.channel)}: {answerText(tested.answer)}
        </p>
      )}
      <ErrorNote error={test.error} title="The test was not sent" />
      <ErrorNote error={toggle.error} title="The channel was not changed" />
      {canWrite && (
        <div className="st-new">
          <ChannelForm projectId={projectId} onCreated={refresh} />
          <div className="panel stack">
            <h3>This browser (Web Push)</h3>
            <p className="muted">
              Notifications reach this browser even when the dashboard is closed. Each browser subscribes once.
            </p>
            <EventChoice chosen={pushEvents} onChange={setPushEvents} idPrefix="push-event" />
            <ErrorNote error={push.error} title="This browser was not subscribed" />
            {push.isSuccess && (
              <p role="status" className="notice">
                This browser will be notified.
              </p>
            )}
            <div>
              <button type="button" onClick={() => push.mutate()} disabled={push.isPending}>
                {push.isPending ? 'Subscribing…' : 'Notify this browser'}
              </button>
            </div>
          </div>
        </div>
      )}
      {deleting !== null && (
        <ConfirmDialog
          title="Delete this channel?"
          confirm="Delete channel"
          busy={remove.isPending}
          error={remove.error}
          failed="The channel was not deleted"
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>
            Nothing more is sent to <code>{deleting.url}</code>. To stop for a while, deactivate it instead.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
};
