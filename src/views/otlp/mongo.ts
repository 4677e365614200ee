import type { Db } from 'mongodb';
import type { OtlpQueries, OtlpWriter, ProjectOtlpSettings } from './port.ts';
import type { BulkOps, MongoReadModel, MongoSchema } from '../store/mongo.ts';

const SETTINGS = 'otlp_settings';

/** One document per project that set its settings, keyed by the project id: each
 *  OtlpSettingsSet replaces it whole, so replaying a batch lands on the same document. */
type SettingsDoc = Omit<ProjectOtlpSettings, 'project_id'> & { _id: string };

const otlpMongoSchema: MongoSchema = {
  version: 1,
  collections: [SETTINGS],
  async ensureIndexes() {
    // Read by _id only.
  },
};

const mongoOtlpWriter = (ops: BulkOps): OtlpWriter => ({
  settingsSet({ project_id, ...settings }) {
    ops.add(SETTINGS, { replaceOne: { filter: { _id: project_id }, replacement: settings, upsert: true } });
  },
});

class MongoOtlpQueries implements OtlpQueries {
  constructor(private readonly db: Db) {}

  async settingsOf(projectId: string): Promise<ProjectOtlpSettings | null> {
    const doc = await this.db.collection<SettingsDoc>(SETTINGS).findOne({ _id: projectId });
    if (!doc) return null;
    const { _id, identifier_attribute, default_environment, unsupported_methods, updated_at } = doc;
    return { project_id: _id, identifier_attribute, default_environment, unsupported_methods, updated_at };
  }
}

export const mongoOtlp: MongoReadModel<OtlpWriter, OtlpQueries> = {
  schema: otlpMongoSchema,
  batchWriter: () => mongoOtlpWriter,
  queries: (db) => new MongoOtlpQueries(db),
};
