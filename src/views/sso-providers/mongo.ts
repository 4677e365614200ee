import type { Db } from 'mongodb';
import type { Provider } from '../../domain/sso.ts';
import type { SsoProvidersQueries, SsoProvidersWriter } from './port.ts';
import {
  ALIVE,
  TOMBSTONE,
  live,
  unfenced,
  type BulkOps,
  type MongoReadModel,
  type MongoSchema,
} from '../store/mongo.ts';

/** Providers keyed by id; a save replaces the settings (and brings back a deleted id). */
const SSO_PROVIDERS = 'sso_providers';

type Saved = Provider & { saved_at: string };
type ProviderDoc = Omit<Saved, 'id'> & { _id: string };

const schema: MongoSchema = {
  version: 1,
  collections: [SSO_PROVIDERS],
  // Read whole and by id: the _id index is all it needs.
  ensureIndexes: () => Promise.resolve(),
};

const toProvider = (doc: ProviderDoc): Saved => {
  const { _id, ...rest } = unfenced(doc);
  return { id: _id, ...rest };
};

const writer = (ops: BulkOps): SsoProvidersWriter => ({
  saved: ({ id, ...provider }) =>
    ops.add(SSO_PROVIDERS, {
      updateOne: { filter: { _id: id }, update: { $set: { ...provider, ...ALIVE } }, upsert: true },
    }),
  deleted: (id) => ops.add(SSO_PROVIDERS, { updateOne: { filter: { _id: id }, update: TOMBSTONE } }),
});

class Queries implements SsoProvidersQueries {
  constructor(private readonly db: Db) {}
  private get providers() {
    return this.db.collection<ProviderDoc>(SSO_PROVIDERS);
  }
  async list(): Promise<Saved[]> {
    return (await this.providers.find(live({})).sort({ _id: 1 }).toArray()).map(toProvider);
  }
  async get(id: string): Promise<Saved | null> {
    const doc = await this.providers.findOne(live({ _id: id }));
    return doc ? toProvider(doc) : null;
  }
}

export const mongoSsoProviders: MongoReadModel<SsoProvidersWriter, SsoProvidersQueries> = {
  schema,
  batchWriter: () => writer,
  queries: (db) => new Queries(db),
};
