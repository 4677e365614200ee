import { type Answer, call, type OperationKey, type Pagination } from '../../api.ts';

/** The subscribers of a status page: `GET /v1/status-pages/:id/subscribers` and `DELETE
 *  /v1/status-pages/:id/subscribers/:subscriber_id`, which the server is gaining while this is
 *  written. Until `npm run api-types` puts them in the generated operation table, they are called
 *  here, and only here, through `call` without its table's types, and answered with the local type
 *  below. Once they are in the table, `SubscribersPage` becomes the generated answer by itself (a
 *  field that differs then fails `tsc` where it is used): replace `untyped` by `call` and delete
 *  the local types. */

const LIST = 'GET /v1/status-pages/:id/subscribers';
const REMOVE = 'DELETE /v1/status-pages/:id/subscribers/:subscriber_id';

export type SubscriberStatus = 'pending' | 'confirmed' | 'unsubscribed';

/** The answer as the server's issue describes it. */
interface LocalSubscribersPage {
  data: Array<{
    id: string;
    email: string;
    status: SubscriberStatus;
    created_at: string;
    confirmed_at: string | null;
  }>;
  pagination: Pagination;
  counts: Partial<Record<SubscriberStatus | 'total', number>>;
}

/** The generated answer once the operation is in the table, the local type until then. */
type Generated<K extends string, Local> = K extends OperationKey ? Answer<K> : Local;
export type SubscribersPage = Generated<typeof LIST, LocalSubscribersPage>;
export type Subscriber = SubscribersPage['data'][number];

type Untyped = (
  op: string,
  args: { params: Record<string, string>; query?: Record<string, number> },
) => Promise<unknown>;
/** `call` without the table's types: it builds the URL from the operation's name alone. */
const untyped = call as unknown as Untyped;

export const listSubscribers = async (pageId: string, page: number, limit = 50): Promise<SubscribersPage> =>
  (await untyped(LIST, { params: { id: pageId }, query: { page, limit } })) as SubscribersPage;

export const removeSubscriber = async (pageId: string, subscriberId: string): Promise<void> => {
  await untyped(REMOVE, { params: { id: pageId, subscriber_id: subscriberId } });
};
