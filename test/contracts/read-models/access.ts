import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const accessContract = (withModels: WithModels): void => {
  withModels('access: projects, keys by hash until revoked, users by e-mail; reset empties it', async (t, m) => {
    const store = m.stores.access;
    const [p1, p2] = [randomUUID(), randomUUID()];
    const [k1, k2] = [randomUUID(), randomUUID()];
    const batch = [recorded(), recorded(), recorded(), recorded(), recorded()];
    await store.commit(batch, (r, w) => {
      const i = batch.indexOf(r);
      if (i === 0) w.projectCreated({ id: p1, name: 'one', created_at: '2026-01-01T00:00:00.000Z' });
      if (i === 1) w.projectCreated({ id: p2, name: 'two', created_at: '2026-01-02T00:00:00.000Z' });
      if (i === 2) {
        w.apiKeyIssued({
          id: k1,
          project_id: p1,
          name: 'a',
          prefix: 'wl_a',
          key_hash: 'h1',
          created_at: '2026-01-01T00:00:00.000Z',
          revoked_at: null,
          scopes: ['ingest', 'read'],
          expires_at: '2027-01-01T00:00:00.000Z',
          allowed_origins: ['https://shop.example.com'],
          rate_limit: 50,
          last_used_at: null,
        });
      }
      if (i === 3) {
        w.apiKeyIssued({
          id: k2,
          project_id: p1,
          name: 'b',
          prefix: 'wl_b',
          key_hash: 'h2',
          created_at: '2026-01-01T00:00:01.000Z',
          revoked_at: null,
          scopes: ['ingest'],
          expires_at: null,
          allowed_origins: [],
          rate_limit: null,
          last_used_at: null,
        });
      }
      if (i === 4)
        w.userRegistered({
          id: 'u1',
          email: 'm@example.com',
          password_hash: 'scrypt$x',
          role: 'member',
          project_ids: [p1],
          disabled: false,
          tokens_valid_after: null,
          created_at: '2026-01-01T00:00:00.000Z',
        });
    });
    const revoke = recorded();
    await store.commit([revoke], (_r, w) => w.apiKeyRevoked(k2, '2026-01-03T00:00:00.000Z'));
    t.deepEqual(await m.access.activeKey('h1'), {
      id: k1,
      project_id: p1,
      scopes: ['ingest', 'read'],
      expires_at: '2027-01-01T00:00:00.000Z',
      allowed_origins: ['https://shop.example.com'],
      rate_limit: 50,
      last_used_at: null,
    });
    t.is(await m.access.activeKey('h2'), null);
    t.is(await m.access.activeKey('nope'), null);
    const restriction = recorded();
    await store.commit([restriction], (_r, w) =>
      w.apiKeyRestricted(k1, { scopes: ['stream'], expires_at: null, allowed_origins: [], rate_limit: 7 }),
    );
    t.deepEqual(await m.access.activeKey('h1'), {
      id: k1,
      project_id: p1,
      scopes: ['stream'],
      expires_at: null,
      allowed_origins: [],
      rate_limit: 7,
      last_used_at: null,
    });
    t.deepEqual(
      (await m.access.listProjects({ all: true })).map((p) => p.name),
      ['one', 'two'],
    );
    t.deepEqual(
      (await m.access.listProjects({ all: false, projectIds: [p2] })).map((p) => p.id),
      [p2],
    );
    t.is(await m.access.getProject(p1, { all: false, projectIds: [p2] }), null);
    t.deepEqual(
      (await m.access.listApiKeys(p1)).map((k) => [k.id, k.revoked_at]),
      [
        [k1, null],
        [k2, '2026-01-03T00:00:00.000Z'],
      ],
    );
    t.is((await m.access.userByEmail('m@example.com'))?.password_hash, 'scrypt$x');
    const u1 = {
      id: 'u1',
      email: 'm@example.com',
      role: 'member' as const,
      project_ids: [p1],
      disabled: false,
      tokens_valid_after: null,
      created_at: '2026-01-01T00:00:00.000Z',
    };
    t.deepEqual(await m.access.listUsers(), [u1]);
    t.deepEqual(await m.access.userById('u1'), u1, 'by id, without the hash');
    t.is(await m.access.userById('u2'), null);
    t.is(await m.access.countUsers(), 1);
    t.is(await store.checkpoint(), restriction.position);
    await store.reset();
    t.is(await store.checkpoint(), null);
    t.is(await m.access.countUsers(), 0);
    t.deepEqual(await m.access.listProjects({ all: true }), []);
  });

  withModels('access: a key use moves last_used_at forward only; replayed, it changes nothing', async (t, m) => {
    const store = m.stores.access;
    const [p, k] = [randomUUID(), randomUUID()];
    await store.commit([recorded()], (_r, w) =>
      w.apiKeyIssued({
        id: k,
        project_id: p,
        name: 'reader',
        prefix: 'wl_r',
        key_hash: `h-${k}`,
        created_at: '2026-01-01T00:00:00.000Z',
        revoked_at: null,
        scopes: ['read'],
        expires_at: null,
        allowed_origins: [],
        rate_limit: null,
        last_used_at: null,
      }),
    );
    const uses = [recorded(), recorded()];
    const apply = () =>
      store.commit(uses, (r, w) =>
        w.apiKeyUsed(k, uses.indexOf(r) === 0 ? '2026-01-02T00:01:00.000Z' : '2026-01-02T00:00:00.000Z'),
      );
    await apply();
    await apply();
    t.is((await m.access.activeKey(`h-${k}`))?.last_used_at, '2026-01-02T00:01:00.000Z');
    t.deepEqual(
      (await m.access.listApiKeys(p)).map((key) => [key.scopes, key.last_used_at]),
      [[['read'], '2026-01-02T00:01:00.000Z']],
    );
    await store.commit([recorded()], (_r, w) => w.apiKeyUsed(k, '2026-01-03T00:00:00.000Z'));
    t.is((await m.access.listApiKeys(p))[0]?.last_used_at, '2026-01-03T00:00:00.000Z');
  });

  withModels('access: a user change sets only the fields it names; replayed, it changes nothing', async (t, m) => {
    const store = m.stores.access;
    const p = randomUUID();
    const created = '2026-01-01T00:00:00.000Z';
    await store.commit([recorded()], (_r, w) =>
      w.userRegistered({
        id: 'u1',
        email: 'u@example.com',
        password_hash: 'scrypt$1',
        role: 'member',
        project_ids: [p],
        disabled: false,
        tokens_valid_after: null,
        created_at: created,
      }),
    );
    const changes = [recorded(), recorded(), recorded(), recorded()];
    const apply = () =>
      store.commit(changes, (r, w) => {
        const i = changes.indexOf(r);
        if (i === 0)
          w.userChanged('u1', { role: 'auditor', project_ids: [], tokens_valid_after: '2026-01-02T00:00:00.000Z' });
        if (i === 1) w.userChanged('u1', { disabled: true, tokens_valid_after: '2026-01-03T00:00:00.000Z' });
        if (i === 2) w.userChanged('u1', { password_hash: 'scrypt$2' });
        if (i === 3) w.userChanged('u1', {});
      });
    await apply();
    await apply();
    const expected = {
      id: 'u1',
      email: 'u@example.com',
      role: 'auditor' as const,
      project_ids: [],
      disabled: true,
      tokens_valid_after: '2026-01-03T00:00:00.000Z',
      created_at: created,
    };
    t.deepEqual(await m.access.userById('u1'), expected);
    t.deepEqual(await m.access.userByEmail('u@example.com'), { ...expected, password_hash: 'scrypt$2' });
    await store.commit([recorded()], (_r, w) => w.userChanged('u1', { disabled: false }));
    t.like(await m.access.userById('u1'), { disabled: false, tokens_valid_after: '2026-01-03T00:00:00.000Z' });
    t.is(await m.access.countUsers(), 1);
  });
};
