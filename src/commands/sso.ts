import { ssoProviderDecider, type Provider } from '../domain/sso.ts';
import { ssoProviderStream } from '../domain/streams.ts';
import { handle, type CommandContext, type CommandDeps } from './handle.ts';

/** Creates or replaces a single sign-on provider's settings, its client secret with them. */
export const saveSsoProvider = (deps: CommandDeps, provider: Provider, ctx: CommandContext) =>
  handle(
    deps,
    ssoProviderStream(provider.id),
    ssoProviderDecider,
    { type: 'SaveProvider', provider, at: ctx.now().toISOString() },
    ctx,
  );

export const deleteSsoProvider = (deps: CommandDeps, providerId: string, ctx: CommandContext) =>
  handle(
    deps,
    ssoProviderStream(providerId),
    ssoProviderDecider,
    { type: 'DeleteProvider', provider_id: providerId, at: ctx.now().toISOString() },
    ctx,
  );
