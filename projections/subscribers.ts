import type { SubscribersWriter } from '../src/views/subscribers/port.ts';
import { normaliseEmail } from '../src/domain/subscriber.ts';
import type { Projection } from './projection.ts';

/** Status pages' subscribers (src/views/subscribers), and the last delivery sent to each. */
export const subscribersProjection: Projection<SubscribersWriter> = {
  name: 'subscribers',
  handles: [
    'SubscriberRequested',
    'SubscriberConfirmed',
    'SubscriberUnsubscribed',
    'SubscriberRemoved',
    'StatusPageDeleted',
    'IdentifierErased',
    'DeliveryScheduled',
    'DeliveryAttempted',
    'DeliveryCancelled',
  ],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'SubscriberRequested': {
        const { subscriber_id: id, page_id, project_id, email, requested_at: at } = event.data;
        writer.requested({ id, page_id, project_id, email, at });
        break;
      }
      case 'SubscriberConfirmed':
        writer.confirmed(event.data.subscriber_id, event.data.confirmed_at);
        break;
      case 'SubscriberUnsubscribed':
        writer.unsubscribed(event.data.subscriber_id, event.data.unsubscribed_at);
        break;
      case 'SubscriberRemoved':
        writer.removed(event.data.subscriber_id);
        break;
      case 'StatusPageDeleted':
        writer.pageDeleted(event.data.page_id);
        break;
      case 'IdentifierErased':
        // The erasure replaced the records of these subscriptions (src/commands/retention.ts).
        writer.erased(event.data.project_id, normaliseEmail(event.data.identifier));
        break;
      case 'DeliveryScheduled': {
        const d = event.data;
        if (!('subscriber_id' in d)) break;
        writer.delivery(d.subscriber_id, {
          id: d.delivery_id,
          type: d.notice.type,
          status: 'pending',
          at: d.scheduled_at,
        });
        break;
      }
      case 'DeliveryAttempted': {
        const d = event.data;
        if (!('subscriber_id' in d)) break;
        const status = d.outcome === 'delivered' ? 'delivered' : d.final ? 'failed' : 'pending';
        writer.deliveryStatus(d.subscriber_id, d.delivery_id, status, d.attempted_at);
        break;
      }
      case 'DeliveryCancelled': {
        const d = event.data;
        if (!('subscriber_id' in d)) break;
        writer.deliveryStatus(d.subscriber_id, d.delivery_id, 'cancelled', d.cancelled_at);
        break;
      }
      default:
        break;
    }
  },
};
