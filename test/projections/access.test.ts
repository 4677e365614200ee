import { accessProjection } from '../../projections/access.ts';
import type { KeyScope } from '../../src/domain/api-keys.ts';
import type { Role } from '../../src/domain/codecs.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(accessProjection, (m) => m.stores.access);

const [SHOP, BILLING] = ['e4cfab7d-f809-4b2c-9b9c-0d1e2f3a4b01', 'e4cfab7d-f809-4b2c-9b9c-0d1e2f3a4b02'];
const [CI, LAPTOP, DEPLOY] = [1, 2, 3].map((i) => `f5d0bc8e-091a-4c3d-8cad-1e2f3a4b5c0${i}`) as [
  string,
  string,
  string,
];
const [ROOT, ANN, AUDITOR] = [1, 2, 3].map((i) => `06e1cd9f-1a2b-4d4e-9dbe-2f3a4b5c6d0${i}`) as [
  string,
  string,
  string,
];
const hash = (c: string) => c.repeat(64);

const at = (minute: number) => new Date(Date.UTC(2026, 0, 5, 8, minute)).toISOString();

const project = (project_id: string, name: string, minute: number): DomainEvent => ({
  type: 'ProjectCreated',
  data: { project_id, name, created_at: at(minute) },
});
const key = (key_id: string, project_id: string, name: string, c: string, minute: number): DomainEvent => ({
  type: 'ApiKeyIssued',
  data: { project_id, key_id, name, prefix: `wl_${c.repeat(6)}`, key_hash: hash(c), issued_at: at(minute) },
});
const revoked = (key_id: string, project_id: string, minute: number): DomainEvent => ({
  type: 'ApiKeyRevoked',
  data: { project_id, key_id, revoked_at: at(minute) },
});
const restricted = (
  key_id: string,
  project_id: string,
  allowed_origins: string[],
  rate_limit: number | null,
  minute: number,
): DomainEvent => ({
  type: 'ApiKeyRestricted',
  data: { project_id, key_id, allowed_origins, rate_limit, changed_at: at(minute) },
});
const scoped = (key_id: string, project_id: string, scopes: KeyScope[], expires_at: string | null, minute: number) =>
  ({
    type: 'ApiKeyRestricted',
    data: { project_id, key_id, allowed_origins: [], rate_limit: null, scopes, expires_at, changed_at: at(minute) },
  }) satisfies DomainEvent;
const used = (key_id: string, project_id: string, minute: number): DomainEvent => ({
  type: 'ApiKeyUsed',
  data: { project_id, key_id, used_at: at(minute) },
});
const user = (user_id: string, email: string, role: Role, project_ids: string[], minute: number): DomainEvent => ({
  type: 'UserRegistered',
  data: { user_id, email, password_hash: `scrypt$${email}`, role, project_ids, registered_at: at(minute) },
});

const accessChanged = (user_id: string, role: Role, project_ids: string[], minute: number): DomainEvent => ({
  type: 'UserAccessChanged',
  data: { user_id, role, project_ids, changed_at: at(minute) },
});
const disabled = (user_id: string, minute: number): DomainEvent => ({
  type: 'UserDisabled',
  data: { user_id, disabled_at: at(minute) },
});
const enabled = (user_id: string, minute: number): DomainEvent => ({
  type: 'UserEnabled',
  data: { user_id, enabled_at: at(minute) },
});
const passwordChanged = (user_id: string, password_hash: string, minute: number): DomainEvent => ({
  type: 'UserPasswordChanged',
  data: { user_id, password_hash, changed_at: at(minute) },
});
const rehashed = (user_id: string, password_hash: string, minute: number): DomainEvent => ({
  type: 'UserPasswordRehashed',
  data: { user_id, password_hash, rehashed_at: at(minute) },
});

const read = async (m: ReadModels) => ({
  projects: await m.access.listProjects({ all: true }),
  keys: { shop: await m.access.listApiKeys(SHOP), billing: await m.access.listApiKeys(BILLING) },
  activeKeys: await Promise.all(
    ['a', 'b', 'c'].map(async (c) => (await m.access.activeKey(hash(c)))?.project_id ?? null),
  ),
  users: await m.access.listUsers(),
  ann: await m.access.userByEmail('ann@example.com'),
});

scenarioTests(it, {
  projectId: SHOP,
  events: () => [
    project(SHOP, 'shop', 0),
    project(BILLING, 'billing', 1),
    key(CI, SHOP, 'ci', 'a', 2),
    key(LAPTOP, SHOP, 'laptop', 'b', 3),
    user(ROOT, 'root@example.com', 'admin', [], 4),
    key(DEPLOY, BILLING, 'deploy', 'c', 5),
    revoked(LAPTOP, SHOP, 6),
    user(ANN, 'ann@example.com', 'member', [SHOP, BILLING], 7),
    user(AUDITOR, 'audit@example.com', 'auditor', [BILLING], 8),
    accessChanged(ANN, 'auditor', [SHOP], 9),
    disabled(AUDITOR, 10),
    enabled(AUDITOR, 11),
    passwordChanged(ROOT, 'scrypt$root-2', 12),
    rehashed(ANN, 'scrypt$ann-2', 13),
    restricted(CI, SHOP, ['https://shop.example.com'], 100, 14),
    scoped(DEPLOY, BILLING, ['read', 'stream'], at(90), 15),
    used(DEPLOY, BILLING, 16),
    used(CI, SHOP, 17),
  ],
  read,
  expected: () => ({
    projects: [
      { id: SHOP, name: 'shop', created_at: at(0) },
      { id: BILLING, name: 'billing', created_at: at(1) },
    ],
    keys: {
      shop: [
        {
          id: CI,
          project_id: SHOP,
          name: 'ci',
          prefix: 'wl_aaaaaa',
          created_at: at(2),
          revoked_at: null,
          scopes: ['ingest'],
          expires_at: null,
          allowed_origins: ['https://shop.example.com'],
          rate_limit: 100,
          last_used_at: at(17),
        },
        {
          id: LAPTOP,
          project_id: SHOP,
          name: 'laptop',
          prefix: 'wl_bbbbbb',
          created_at: at(3),
          revoked_at: at(6),
          scopes: ['ingest'],
          expires_at: null,
          allowed_origins: [],
          rate_limit: null,
          last_used_at: null,
        },
      ],
      billing: [
        {
          id: DEPLOY,
          project_id: BILLING,
          name: 'deploy',
          prefix: 'wl_cccccc',
          created_at: at(5),
          revoked_at: null,
          scopes: ['read', 'stream'],
          expires_at: at(90),
          allowed_origins: [],
          rate_limit: null,
          last_used_at: at(16),
        },
      ],
    },
    activeKeys: [SHOP, null, BILLING],
    users: [
      {
        id: ROOT,
        email: 'root@example.com',
        role: 'admin',
        project_ids: [],
        disabled: false,
        tokens_valid_after: at(12),
        created_at: at(4),
      },
      {
        id: ANN,
        email: 'ann@example.com',
        role: 'auditor',
        project_ids: [SHOP],
        disabled: false,
        tokens_valid_after: at(9),
        created_at: at(7),
      },
      {
        id: AUDITOR,
        email: 'audit@example.com',
        role: 'auditor',
        project_ids: [BILLING],
        disabled: false,
        tokens_valid_after: at(10),
        created_at: at(8),
      },
    ],
    ann: {
      id: ANN,
      email: 'ann@example.com',
      password_hash: 'scrypt$ann-2',
      role: 'auditor',
      project_ids: [SHOP],
      disabled: false,
      tokens_valid_after: at(9),
      created_at: at(7),
    },
  }),
});

it('a key is found by its hash alone, with its restrictions, until it is revoked', async (t, f) => {
  await f.fold([project(SHOP, 'shop', 0), key(CI, SHOP, 'ci', 'a', 1)]);
  t.deepEqual(
    await f.models.access.activeKey(hash('a')),
    {
      id: CI,
      project_id: SHOP,
      scopes: ['ingest'],
      expires_at: null,
      allowed_origins: [],
      rate_limit: null,
      last_used_at: null,
    },
    'a key issued before restrictions and scopes: none, ingest only',
  );
  t.is(await f.models.access.activeKey(CI), null, 'not by its id');
  t.is(await f.models.access.activeKey('wl_aaaaaa'), null, 'not by its prefix');
  await f.fold([restricted(CI, SHOP, ['http://localhost:5173'], null, 2)]);
  t.deepEqual(await f.models.access.activeKey(hash('a')), {
    id: CI,
    project_id: SHOP,
    scopes: ['ingest'],
    expires_at: null,
    allowed_origins: ['http://localhost:5173'],
    rate_limit: null,
    last_used_at: null,
  });
  await f.fold([revoked(CI, SHOP, 3)]);
  t.is(await f.models.access.activeKey(hash('a')), null);
  t.deepEqual(
    (await f.models.access.listApiKeys(SHOP)).map((k) => [k.id, k.revoked_at]),
    [[CI, at(3)]],
  );
});

it('users are found by e-mail with their password hash, which no listing shows', async (t, f) => {
  await f.fold([user(ROOT, 'root@example.com', 'admin', [], 0), user(ANN, 'ann@example.com', 'member', [SHOP], 1)]);
  t.is((await f.models.access.userByEmail('root@example.com'))?.password_hash, 'scrypt$root@example.com');
  t.is(await f.models.access.userByEmail('nobody@example.com'), null);
  t.false(JSON.stringify(await f.models.access.listUsers()).includes('scrypt$'));
  t.is(await f.models.access.countUsers(), 2);
});

it(
  'tokens_valid_after moves with a new password, ' + 'a change of access and disabling; not with a rehash or enabling',
  async (t, f) => {
    await f.fold([user(ANN, 'ann@example.com', 'member', [SHOP], 0)]);
    const state = async () => {
      const u = await f.models.access.userByEmail('ann@example.com');
      return (
        u && {
          role: u.role,
          project_ids: u.project_ids,
          disabled: u.disabled,
          tokens_valid_after: u.tokens_valid_after,
          password_hash: u.password_hash,
        }
      );
    };
    t.deepEqual(await state(), {
      role: 'member',
      project_ids: [SHOP],
      disabled: false,
      tokens_valid_after: null,
      password_hash: 'scrypt$ann@example.com',
    });
    await f.fold([rehashed(ANN, 'scrypt$stronger', 1)]);
    t.like(await state(), { tokens_valid_after: null, password_hash: 'scrypt$stronger' });
    await f.fold([passwordChanged(ANN, 'scrypt$new', 2)]);
    t.like(await state(), { tokens_valid_after: at(2), password_hash: 'scrypt$new' });
    await f.fold([accessChanged(ANN, 'member', [SHOP, BILLING], 3)]);
    t.like(await state(), { project_ids: [SHOP, BILLING], tokens_valid_after: at(3) });
    await f.fold([disabled(ANN, 4)]);
    t.like(await state(), { disabled: true, tokens_valid_after: at(4) });
    await f.fold([enabled(ANN, 5)]);
    t.like(await state(), { disabled: false, tokens_valid_after: at(4) });
    t.false(JSON.stringify(await f.models.access.listUsers()).includes('scrypt$'), 'no listing shows a hash');
  },
);
