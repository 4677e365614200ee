import { publicSettingsOf } from '../src/domain/channel-target.ts';
import type { ChannelsWriter } from '../src/views/channels/port.ts';
import type { Projection } from './projection.ts';

export const channelsProjection: Projection<ChannelsWriter> = {
  name: 'channels',
  handles: [
    'ChannelCreated',
    'ChannelUpdated',
    'ChannelDeactivated',
    'ChannelDegraded',
    'ChannelRecovered',
    'ChannelDeleted',
  ],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'ChannelCreated': {
        const c = event.data;
        writer.created(
          {
            id: c.channel_id,
            project_id: c.project_id,
            type: c.target.type,
            name: c.name ?? null,
            ...publicSettingsOf(c.target),
            events: c.events,
            project_scope: c.project_scope ?? 'project',
            quiet_minutes: c.quiet_minutes ?? 0,
            active: c.active,
            deactivated_reason: null,
            degraded: false,
            degraded_reason: null,
            degraded_since: null,
            created_at: c.created_at,
            updated_at: c.created_at,
            ...(c.managed_by === undefined ? {} : { managed_by: c.managed_by }),
          },
          c.target,
        );
        break;
      }
      case 'ChannelUpdated':
        writer.updated(event.data.channel_id, event.data.changes, event.data.updated_at);
        break;
      case 'ChannelDeactivated':
        writer.deactivated(event.data.channel_id, event.data.reason, event.data.deactivated_at);
        break;
      case 'ChannelDegraded':
        writer.degraded(event.data.channel_id, event.data.reason, event.data.degraded_at);
        break;
      case 'ChannelRecovered':
        writer.recovered(event.data.channel_id);
        break;
      case 'ChannelDeleted':
        writer.deleted(event.data.channel_id);
        break;
      default:
        break;
    }
  },
};
