import { messageOf } from '../src/domain/notification-message.ts';
import type { DeliveriesWriter } from '../src/views/deliveries/port.ts';
import type { Projection } from './projection.ts';

/** The delivery log (src/views/deliveries): each channel's delivery stream folded into one row.
 *  A status page subscriber's deliveries are not in it (the subscribers read model shows the last
 *  of each); their later events find no row here and change nothing. */
export const deliveriesProjection: Projection<DeliveriesWriter> = {
  name: 'deliveries',
  handles: ['DeliveryScheduled', 'DeliverySkipped', 'DeliveryAttempted', 'DeliveryRetryRequested', 'DeliveryCancelled'],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'DeliveryScheduled':
      case 'DeliverySkipped': {
        const d = event.data;
        if (!('channel_id' in d)) break;
        const at = event.type === 'DeliveryScheduled' ? event.data.scheduled_at : event.data.skipped_at;
        writer.created({
          id: d.delivery_id,
          channel_id: d.channel_id,
          channel_type: d.channel_type,
          project_id: d.project_id,
          event_id: d.event_id,
          event_type: d.notification.type,
          title: messageOf(d.notification, null).title,
          status: event.type === 'DeliveryScheduled' ? 'pending' : 'skipped',
          reason: event.type === 'DeliverySkipped' ? event.data.detail : null,
          attempts: [],
          created_at: at,
          updated_at: at,
        });
        break;
      }
      case 'DeliveryAttempted': {
        if (!('channel_id' in event.data)) break;
        const { delivery_id, attempt, outcome, final, status, error, response, duration_ms, attempted_at } = event.data;
        writer.attempted(
          delivery_id,
          { attempt, at: attempted_at, outcome, status, error, response, duration_ms },
          outcome === 'delivered' ? 'delivered' : final ? 'failed' : 'pending',
        );
        break;
      }
      case 'DeliveryRetryRequested':
        writer.statusChanged(event.data.delivery_id, 'pending', null, event.data.requested_at);
        break;
      case 'DeliveryCancelled':
        if (!('channel_id' in event.data)) break;
        writer.statusChanged(event.data.delivery_id, 'cancelled', event.data.reason, event.data.cancelled_at);
        break;
      default:
        break;
    }
  },
};
