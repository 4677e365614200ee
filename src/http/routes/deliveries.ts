import { requestRetry } from '../../commands/deliveries.ts';
import type { RouteDeps } from '../deps.ts';
import type { deliveryOperations } from '../operations/deliveries.ts';
import { type Handlers, accepted, ok } from '../operations/operation.ts';

/** The delivery log by event and by delivery, and sending a failed delivery again. */
export const deliveryHandlers: Handlers<typeof deliveryOperations, RouteDeps> = {
  forEvent: async ({ query: { event_id }, principal }, deps) =>
    ok(await deps.readModels.deliveries.forEvent(event_id, principal.scope)),

  get: ({ resource }) => ok(resource),

  /** A new round of tries for a failed or cancelled delivery: 202, the delivery pending again;
   *  the reactor sends it. */
  retry: async ({ resource: delivery, command }, deps) => {
    const { position } = await requestRetry(deps.commands, delivery.id, command);
    await deps.caughtUp(['deliveries'], position);
    return accepted((await deps.readModels.deliveries.get(delivery.id, { all: true }))!);
  },
};
