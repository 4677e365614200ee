import type { SsoProvidersWriter } from '../src/views/sso-providers/port.ts';
import type { Projection } from './projection.ts';

export const ssoProvidersProjection: Projection<SsoProvidersWriter> = {
  name: 'sso-providers',
  handles: ['SsoProviderSaved', 'SsoProviderDeleted'],
  apply(event, _recorded, writer) {
    if (event.type === 'SsoProviderSaved') {
      const { provider_id, ...rest } = event.data;
      writer.saved({ id: provider_id, ...rest });
    } else if (event.type === 'SsoProviderDeleted') writer.deleted(event.data.provider_id);
  },
};
