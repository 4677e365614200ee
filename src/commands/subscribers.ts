import { subscriberDecider, subscriberIdOf, type RemovalReason } from '../domain/subscriber.ts';
import { subscriberStream } from '../domain/streams.ts';
import { handle, load, type CommandContext, type CommandDeps } from './handle.ts';

/** A status page's subscribers (src/domain/subscriber.ts): each command reads the subscription's
 *  stream, which holds a handful of events. */

export const loadSubscription = (deps: CommandDeps, id: string) =>
  load(deps.log, subscriberStream(id), subscriberDecider);

/** Asks for `email`'s subscription to the page: a confirmation is sent unless the address is
 *  confirmed already, or was sent one less than 10 minutes ago. Resolves to the subscription's
 *  id and what was appended (nothing in those cases): a caller answers the same either way. */
export const requestSubscription = async (
  deps: CommandDeps,
  page: { id: string; project_id: string },
  email: string,
  ctx: CommandContext,
) => {
  const id = subscriberIdOf(page.id, email);
  const handled = await handle(
    deps,
    subscriberStream(id),
    subscriberDecider,
    {
      type: 'RequestSubscription',
      subscriber_id: id,
      page_id: page.id,
      project_id: page.project_id,
      email,
      at: ctx.now().toISOString(),
    },
    ctx,
  );
  return { ...handled, id };
};

export const confirmSubscription = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(
    deps,
    subscriberStream(id),
    subscriberDecider,
    { type: 'ConfirmSubscription', at: ctx.now().toISOString() },
    ctx,
  );

export const unsubscribe = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(deps, subscriberStream(id), subscriberDecider, { type: 'Unsubscribe', at: ctx.now().toISOString() }, ctx);

export const removeSubscriber = (deps: CommandDeps, id: string, reason: RemovalReason, ctx: CommandContext) =>
  handle(
    deps,
    subscriberStream(id),
    subscriberDecider,
    { type: 'RemoveSubscriber', reason, at: ctx.now().toISOString() },
    ctx,
  );
