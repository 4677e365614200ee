import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCanWrite } from '../../auth.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { Empty, ErrorNote, Loading } from '../../components/ui.tsx';
import { formatNumber, formatTime } from '../../format.ts';
import { Pager } from '../events-shared.tsx';
import { listSubscribers, removeSubscriber, type Subscriber, type SubscriberStatus } from './subscribers-api.ts';

const STATUS_TEXT: Record<SubscriberStatus, string> = {
  confirmed: 'Confirmed',
  pending: 'Awaiting confirmation',
  unsubscribed: 'Unsubscribed',
};

/** A page's e-mail subscribers: how many in each state, and the list, newest first, paged; members
 *  may remove one (they hear of nothing more). */
export const Subscribers = ({ pageId, title }: { pageId: string; title: string }) => {
  const canWrite = useCanWrite();
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [removing, setRemoving] = useState<Subscriber | null>(null);
  const list = useQuery({
    queryKey: ['subscribers', pageId, page],
    queryFn: () => listSubscribers(pageId, page),
  });
  const remove = useMutation({
    mutationFn: (s: Subscriber) => removeSubscriber(pageId, s.id),
    onSuccess: async () => {
      setRemoving(null);
      await client.invalidateQueries({ queryKey: ['subscribers', pageId] });
    },
  });
  const data = list.data;
  const counts = data?.counts;
  const total = counts === undefined ? undefined : counts.pending + counts.confirmed + counts.unsubscribed;
  return (
    <section aria-labelledby="subscribers-heading">
      <h2 id="subscribers-heading">Subscribers</h2>
      <p className="muted">
        People who asked to hear of this page's incidents and maintenance by e-mail. A subscription counts once its
        address is confirmed.
      </p>
      {list.isPending && <Loading what="subscribers" />}
      {list.isError && <ErrorNote error={list.error} title="The subscribers could not be read" />}
      {data !== undefined && (
        <>
          <section className="cards" aria-label="Subscriber counts">
            <div className="card">
              <div className="value">{formatNumber(total)}</div>
              <div className="label">in all</div>
            </div>
            {(Object.keys(STATUS_TEXT) as SubscriberStatus[]).map((s) => (
              <div className="card" key={s}>
                <div className="value">{formatNumber(counts?.[s])}</div>
                <div className="label">{STATUS_TEXT[s].toLowerCase()}</div>
              </div>
            ))}
          </section>
          {data.data.length === 0 ? (
            <Empty>No one has subscribed to {title} yet.</Empty>
          ) : (
            <div className="table-wrap">
              <table aria-label={`Subscribers of ${title}`}>
                <thead>
                  <tr>
                    <th scope="col">E-mail</th>
                    <th scope="col">State</th>
                    <th scope="col">Subscribed</th>
                    <th scope="col">Confirmed</th>
                    {canWrite && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {data.data.map((s) => (
                    <tr key={s.id}>
                      <td className="sp-email">{s.email}</td>
                      <td>{STATUS_TEXT[s.status]}</td>
                      <td>{formatTime(s.created_at)}</td>
                      <td>{formatTime(s.confirmed_at)}</td>
                      {canWrite && (
                        <td>
                          <button
                            type="button"
                            className="danger"
                            onClick={() => setRemoving(s)}
                            aria-label={`Remove ${s.email}`}
                          >
                            Remove
                          </button>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {data.pagination.totalPage > 1 && (
            <Pager
              page={page}
              totalPages={data.pagination.totalPage}
              total={data.pagination.totalItems}
              noun="subscribers"
              onPage={setPage}
            />
          )}
        </>
      )}
      {removing !== null && (
        <ConfirmDialog
          title={`Remove ${removing.email}?`}
          confirm={remove.isPending ? 'Removing…' : 'Remove subscriber'}
          busy={remove.isPending}
          error={remove.error}
          failed="Not removed"
          onConfirm={() => remove.mutate(removing)}
          onCancel={() => {
            remove.reset();
            setRemoving(null);
          }}
        >
          <p>They hear of nothing more from {title}. They may subscribe again on the public page.</p>
        </ConfirmDialog>
      )}
    </section>
  );
};
