import { type Answer, call } from '../../api.ts';

/** The subscribers of a status page: `GET /v1/status-pages/:id/subscribers` and `DELETE
 *  /v1/status-pages/:id/subscribers/:subscriber_id`. */

export type SubscribersPage = Answer<'GET /v1/status-pages/:id/subscribers'>;
export type Subscriber = SubscribersPage['data'][number];
export type SubscriberStatus = Subscriber['status'];

export const listSubscribers = (pageId: string, page: number, limit = 50): Promise<SubscribersPage> =>
  call('GET /v1/status-pages/:id/subscribers', { params: { id: pageId }, query: { page, limit } });

export const removeSubscriber = async (pageId: string, subscriberId: string): Promise<void> => {
  await call('DELETE /v1/status-pages/:id/subscribers/:subscriber_id', {
    params: { id: pageId, subscriber_id: subscriberId },
  });
};
