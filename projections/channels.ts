import type { ChannelsWriter } from '../src/views/channels/port.ts';
import type { Projection } from './projection.ts';

export const channelsProjection: Projection<ChannelsWriter> = {
  name: 'channels',
  handles: ['ChannelCreated', 'ChannelUpdated', 'ChannelDeactivated', 'ChannelDeleted'],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'ChannelCreated': {
        const c = event.data;
        writer.created({
          id: c.channel_id, project_id: c.project_id, type: c.target.type,
          url: c.target.type === 'webhook' ? c.target.url : c.target.subscription.endpoint,
          has_secret: c.target.type === 'webhook' && c.target.secret !== undefined,
          events: c.events, active: c.active, deactivated_reason: null, created_at: c.created_at, updated_at: c.created_at,
        }, c.target);
        break;
      }
      case 'ChannelUpdated':
        writer.updated(event.data.channel_id, event.data.changes, event.data.updated_at);
        break;
      case 'ChannelDeactivated':
        writer.deactivated(event.data.channel_id, event.data.reason, event.data.deactivated_at);
        break;
      case 'ChannelDeleted':
        writer.deleted(event.data.channel_id);
        break;
      default:
        break;
    }
  },
};
