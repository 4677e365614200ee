import type Router from '@koa/router';
import * as t from 'io-ts';
import { requestRetry } from '../../commands/deliveries.ts';
import { Uuid } from '../../domain/codecs.ts';
import type { DeliveryStatus } from '../../domain/delivery.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';
import { commandContext, principalOf, requireRole, visibleOr404 } from '../middleware/auth.ts';
import { NoParameters, readQuery } from '../middleware/query.ts';

export const DeliveryStatusCodec = t.keyof({
  pending: null,
  delivered: null,
  failed: null,
  skipped: null,
  cancelled: null,
} satisfies Record<DeliveryStatus, null>);

export const EventDeliveriesQuery = t.exact(t.type({ event_id: Uuid }));

/** The delivery log by event and by delivery, and sending a failed delivery again. A delivery is
 *  seen by whoever sees the project of the event it notifies of. */
export const deliveryRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const visible = (id: string | undefined, scope: Parameters<typeof deps.readModels.deliveries.get>[1]) =>
    visibleOr404(id, 'delivery', (uuid) => deps.readModels.deliveries.get(uuid, scope));

  router.get('/v1/deliveries', ...deps.jwt, async (ctx) => {
    const { event_id } = readQuery(ctx.query, EventDeliveriesQuery);
    ctx.body = await deps.readModels.deliveries.forEvent(event_id, principalOf(ctx.state).scope);
  });

  router.get('/v1/deliveries/:id', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    ctx.body = await visible(ctx.params.id, principalOf(ctx.state).scope);
  });

  /** A new round of tries for a failed or cancelled delivery: 202, the delivery pending again;
   *  the reactor sends it. */
  router.post('/v1/deliveries/:id/retry', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const found = await visible(ctx.params.id, principal.scope);
    requireRole(principal, 'admin', 'member');
    const { position } = await requestRetry(
      deps.commands,
      found.id,
      commandContext(principal, ctx.state.correlationId, deps.now),
    );
    await deps.caughtUp(['deliveries'], position);
    ctx.status = 202;
    ctx.body = await deps.readModels.deliveries.get(found.id, { all: true });
  });
};
