import type { Db } from 'mongodb';
import type { MaskingQueries, MaskingWriter, ProjectMaskingRules } from './port.ts';
import type { BulkOps, MongoReadModel, MongoSchema } from '../store/mongo.ts';

const RULES = 'masking_rules';

/** One document per project that set rules, keyed by the project id: each MaskingRulesSet
 *  replaces it whole, so replaying a batch lands on the same document. */
interface RulesDoc {
  _id: string;
  keys: string[];
  patterns: string[];
  updated_at: string;
}

const maskingMongoSchema: MongoSchema = {
  version: 1,
  collections: [RULES],
  async ensureIndexes() {
    // Read by _id only.
  },
};

const mongoMaskingWriter = (ops: BulkOps): MaskingWriter => ({
  rulesSet({ project_id, keys, patterns, updated_at }) {
    ops.add(RULES, {
      replaceOne: { filter: { _id: project_id }, replacement: { keys, patterns, updated_at }, upsert: true },
    });
  },
});

class MongoMaskingQueries implements MaskingQueries {
  constructor(private readonly db: Db) {}

  async rulesOf(projectId: string): Promise<ProjectMaskingRules | null> {
    const doc = await this.db.collection<RulesDoc>(RULES).findOne({ _id: projectId });
    return doc && { project_id: doc._id, keys: doc.keys, patterns: doc.patterns, updated_at: doc.updated_at };
  }
}

export const mongoMasking: MongoReadModel<MaskingWriter, MaskingQueries> = {
  schema: maskingMongoSchema,
  batchWriter: () => mongoMaskingWriter,
  queries: (db) => new MongoMaskingQueries(db),
};
