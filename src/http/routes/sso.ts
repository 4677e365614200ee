import { deleteSsoProvider, saveSsoProvider } from '../../commands/sso.ts';
import { DomainError, notFound } from '../../domain/errors.ts';
import type { Provider } from '../../domain/sso.ts';
import type { RouteDeps } from '../deps.ts';
import { HttpError } from '../middleware/errors.ts';
import type { ssoOperations } from '../operations/sso.ts';
import { type Handlers, noBody, ok } from '../operations/operation.ts';
import { SignOnRefused, finishSignOn, loginPageWith, refuseSignOn, startSignOn } from '../sso/sign-on.ts';

/** The provider of WATCHLOG_OIDC_* first, then those of the settings API. */
const providers = async (deps: RouteDeps): Promise<(Provider & { source: 'environment' | 'settings' })[]> => [
  ...(deps.ssoProvider ? [{ ...deps.ssoProvider, source: 'environment' as const }] : []),
  ...(await deps.readModels.ssoProviders.list())
    .filter((p) => p.id !== deps.ssoProvider?.id)
    .map(({ saved_at: _, ...p }) => ({ ...p, source: 'settings' as const })),
];

const providerOr404 = async (deps: RouteDeps, id: string) => {
  const found = (await providers(deps)).find((p) => p.id === id);
  if (!found) throw notFound('provider');
  return found;
};

const publicView = ({ client_secret: _, ...p }: Provider & { source: 'environment' | 'settings' }) => p;

const redirectTo = (location: string) => ({ status: 302 as const, headers: { Location: location } });

export const ssoHandlers: Handlers<typeof ssoOperations, RouteDeps> = {
  providers: async (_, deps) => ok((await providers(deps)).map(({ id, name }) => ({ id, name }))),

  start: async ({ params, query, ctx }, deps) => {
    const provider = await providerOr404(deps, params.provider);
    try {
      return redirectTo(await startSignOn(deps, ctx, provider, query.next));
    } catch (error) {
      deps.logger.warn({ err: error, provider: provider.id }, 'single sign-on provider unreachable');
      return redirectTo(loginPageWith(`${provider.name} cannot be reached: try again later`));
    }
  },

  callback: async ({ params, ctx }, deps) => {
    const provider = await providerOr404(deps, params.provider);
    try {
      return redirectTo(await finishSignOn(deps, ctx, provider));
    } catch (error) {
      if (error instanceof SignOnRefused) return redirectTo(await refuseSignOn(deps, ctx, provider.id, error));
      if (error instanceof HttpError) throw error;
      return redirectTo(
        await refuseSignOn(deps, ctx, provider.id, new SignOnRefused('provider_error', (error as Error).message)),
      );
    }
  },

  list: async (_, deps) => ok((await providers(deps)).map(publicView)),

  save: async ({ params: { provider: id }, body, command }, deps) => {
    if (deps.ssoProvider?.id === id)
      throw new DomainError('conflict', `provider ${id} is configured by WATCHLOG_OIDC_* and cannot be changed here`);
    const { client_secret: given, ...settings } = body;
    const clientSecret = given ?? (await deps.readModels.ssoProviders.get(id))?.client_secret;
    if (clientSecret === undefined)
      throw new HttpError(400, 'validation_error', 'invalid provider: client_secret', [
        { path: 'client_secret', message: 'required for a new provider' },
      ]);
    const provider: Provider = { id, ...settings, client_secret: clientSecret };
    const { position } = await saveSsoProvider(deps.commands, provider, command);
    await deps.caughtUp(['ssoProviders'], position);
    return ok(publicView({ ...provider, source: 'settings' }));
  },

  remove: async ({ params: { provider: id }, command }, deps) => {
    const { position } = await deleteSsoProvider(deps.commands, id, command);
    await deps.caughtUp(['ssoProviders'], position);
    return noBody(204);
  },
};
