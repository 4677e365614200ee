import type { CommandContext } from '../../commands/handle.ts';
import {
  confirmSubscription,
  loadSubscription,
  removeSubscriber,
  requestSubscription,
  unsubscribe,
} from '../../commands/subscribers.ts';
import { tokenMatches, type LinkPurpose, type SubscriberState } from '../../domain/subscriber.ts';
import type { StatusPageView } from '../../views/status-pages/port.ts';
import type { RouteDeps } from '../deps.ts';
import { HttpError } from '../middleware/errors.ts';
import { FORM } from '../middleware/body.ts';
import { type Handlers, accepted, noBody, ok } from '../operations/operation.ts';
import type { subscriberOperations, subscriptionOperations } from '../operations/subscriptions.ts';
import { pageReply } from '../public/reply.ts';
import { renderCheckInbox, renderConfirm, renderUnsubscribe } from '../public/subscription-pages.ts';

/** Subscribing to a status page, the links of its messages, and the admin's list. A link's token
 *  is checked (in constant time) before anything is read, and a wrong one is the same 404 as a
 *  subscription that does not exist. */

const ANSWER = {
  status: 'accepted' as const,
  message: 'If the address can receive mail, a message asks to confirm the subscription; nothing else is sent before.',
};

const linkNotFound = () => new HttpError(404, 'not_found', 'subscription not found (is the link complete?)');

/** A request without a login changes a subscription: who it was is the page's public. */
const publicContext = (deps: RouteDeps, correlationId: string): CommandContext => ({
  actor: 'public:status-page',
  correlationId,
  now: deps.now,
});

interface Linked {
  state: SubscriberState & { id: string; status: 'pending' | 'confirmed' | 'unsubscribed' };
  page: StatusPageView;
}

/** The subscription a link names, once its token is right for `purpose`, and its page. */
const linked = async (deps: RouteDeps, query: { id: string; token: string }, purpose: LinkPurpose): Promise<Linked> => {
  if (!deps.subscriptionKeys.some((key) => tokenMatches(key, purpose, query.id, query.token))) throw linkNotFound();
  const { state } = await loadSubscription(deps.commands, query.id);
  if (state.id === null || state.status === null || state.status === 'removed') throw linkNotFound();
  const page = await deps.readModels.statusPages.get(state.pageId, { all: true });
  if (page === null) throw linkNotFound();
  return { state: { ...state, id: state.id, status: state.status }, page };
};

/** The link's own address, which its page's button posts to. */
const actionOf = (slug: string, purpose: LinkPurpose, query: { id: string; token: string }) =>
  `/status/${encodeURIComponent(slug)}/subscription/${purpose}?id=${query.id}&token=${query.token}`;

export const subscriptionHandlers: Handlers<typeof subscriptionOperations, RouteDeps> = {
  subscribe: async ({ params, body, ctx }, deps) => {
    if (!deps.subscriptions)
      throw new HttpError(
        404,
        'not_found',
        'e-mail subscriptions are off on this deployment (its operator has set no WATCHLOG_SMTP_HOST)',
      );
    const page = await deps.publicAnswers.page(params.slug);
    if (page === null) throw new HttpError(404, 'not_found', 'status page not found');
    await deps.subscribeRate.take(ctx.ip, page.id);
    await requestSubscription(deps.commands, page, body.email, publicContext(deps, ctx.state.correlationId));
    if (typeof ctx.is(FORM) === 'string') return pageReply(200, renderCheckInbox(page, deps.publicUrl ?? null));
    return accepted(ANSWER);
  },
  confirmPage: async ({ query }, deps) => {
    const { state, page } = await linked(deps, query, 'confirm');
    return pageReply(
      200,
      renderConfirm(page, deps.publicUrl ?? null, state.status, actionOf(page.slug, 'confirm', query)),
    );
  },
  confirm: async ({ query, ctx }, deps) => {
    const { state, page } = await linked(deps, query, 'confirm');
    if (state.status === 'pending')
      await confirmSubscription(deps.commands, state.id, publicContext(deps, ctx.state.correlationId));
    const now = state.status === 'pending' ? 'confirmed' : state.status;
    return pageReply(
      200,
      renderConfirm(
        page,
        deps.publicUrl ?? null,
        now,
        actionOf(page.slug, 'confirm', query),
        state.status === 'pending',
      ),
    );
  },
  unsubscribePage: async ({ query }, deps) => {
    const { state, page } = await linked(deps, query, 'unsubscribe');
    return pageReply(
      200,
      renderUnsubscribe(page, deps.publicUrl ?? null, state.status, actionOf(page.slug, 'unsubscribe', query)),
    );
  },
  unsubscribe: async ({ query, body, ctx }, deps) => {
    const { state, page } = await linked(deps, query, 'unsubscribe');
    await unsubscribe(deps.commands, state.id, publicContext(deps, ctx.state.correlationId));
    if (body['List-Unsubscribe'] === 'One-Click') return noBody(204);
    return pageReply(
      200,
      renderUnsubscribe(page, deps.publicUrl ?? null, 'unsubscribed', actionOf(page.slug, 'unsubscribe', query)),
    );
  },
};

export const subscriberHandlers: Handlers<typeof subscriberOperations, RouteDeps> = {
  list: async ({ resource: page, query }, deps) => {
    const request = {
      page: query.page ?? 1,
      limit: query.limit ?? 20,
      ...(query.status === undefined ? {} : { status: query.status }),
    };
    const [list, counts] = await Promise.all([
      deps.readModels.subscribers.list(page.id, request),
      deps.readModels.subscribers.counts(page.id),
    ]);
    return ok({ ...list, counts });
  },
  /** The subscription's own stream says whether it is the page's: the read model may not show
   *  one asked for a moment ago. */
  remove: async ({ resource: page, params, command }, deps) => {
    const { state } = await loadSubscription(deps.commands, params.subscriber_id);
    if (state.id === null || state.status === 'removed' || state.pageId !== page.id)
      throw new HttpError(404, 'not_found', 'subscriber not found');
    const { position } = await removeSubscriber(deps.commands, state.id, 'admin', command);
    await deps.caughtUp(['subscribers'], position);
    return noBody(204);
  },
};
