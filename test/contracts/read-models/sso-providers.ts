import { recorded, type WithModels } from './harness.ts';

export const ssoProvidersContract = (withModels: WithModels): void => {
  withModels('sso providers: saved whole, replaced, deleted and saved again', async (t, m) => {
    const provider = (over: Record<string, unknown> = {}) => ({
      id: 'corp',
      name: 'Corp',
      issuer: 'https://idp.example.com',
      client_id: 'watchlog',
      client_secret: 's3cret',
      scopes: ['openid', 'email'],
      allowed_domains: ['example.com'],
      jit: true,
      claim: 'groups',
      mappings: [{ value: 'admins', role: 'admin' as const, project_ids: [] }],
      saved_at: '2026-01-01T00:00:00.000Z',
      ...over,
    });
    await m.stores.ssoProviders.commit([recorded()], (_r, w) => {
      w.saved(provider());
      w.saved(provider({ id: 'another', name: 'Another' }));
    });
    t.deepEqual(
      (await m.ssoProviders.list()).map((p) => p.id),
      ['another', 'corp'],
    );
    t.deepEqual(await m.ssoProviders.get('corp'), provider());
    await m.stores.ssoProviders.commit([recorded()], (_r, w) => {
      w.saved(provider({ name: 'Corp SSO', jit: false }));
      w.deleted('another');
    });
    t.like(await m.ssoProviders.get('corp'), { name: 'Corp SSO', jit: false });
    t.is(await m.ssoProviders.get('another'), null);
    await m.stores.ssoProviders.commit([recorded()], (_r, w) => w.saved(provider({ id: 'another' })));
    t.like(await m.ssoProviders.get('another'), { id: 'another' });
  });
};
