import type Database from 'better-sqlite3';
import type { MaskingQueries, MaskingWriter, ProjectMaskingRules } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

/** One row per project that set rules; the lists as JSON. */
const maskingSchema: SqliteSchema = {
  version: 1,
  tables: ['masking_rules'],
  create:
    'CREATE TABLE IF NOT EXISTS masking_rules (project_id TEXT PRIMARY KEY, keys TEXT NOT NULL, ' +
    'patterns TEXT NOT NULL, updated_at TEXT NOT NULL);',
};

interface Row {
  project_id: string;
  keys: string;
  patterns: string;
  updated_at: string;
}

const toRules = (r: Row): ProjectMaskingRules => ({
  project_id: r.project_id,
  keys: JSON.parse(r.keys) as string[],
  patterns: JSON.parse(r.patterns) as string[],
  updated_at: r.updated_at,
});

class SqliteMaskingWriter implements MaskingWriter {
  private readonly put;

  constructor(db: Database.Database) {
    this.put = db.prepare(
      `INSERT INTO masking_rules VALUES (@project_id, @keys, @patterns, @updated_at)
      ON CONFLICT (project_id) DO UPDATE SET keys = excluded.keys, patterns = excluded.patterns, ` +
        'updated_at = excluded.updated_at',
    );
  }

  rulesSet({ project_id, keys, patterns, updated_at }: ProjectMaskingRules): void {
    this.put.run({ project_id, keys: JSON.stringify(keys), patterns: JSON.stringify(patterns), updated_at });
  }
}

class SqliteMaskingQueries implements MaskingQueries {
  private readonly one;

  constructor(db: Database.Database) {
    this.one = db.prepare<[string], Row>('SELECT * FROM masking_rules WHERE project_id = ?');
  }

  async rulesOf(projectId: string): Promise<ProjectMaskingRules | null> {
    const row = this.one.get(projectId);
    return row ? toRules(row) : null;
  }
}

export const sqliteMasking: SqliteReadModel<MaskingWriter, MaskingQueries> = {
  schema: maskingSchema,
  writer: (db) => new SqliteMaskingWriter(db),
  queries: (db) => new SqliteMaskingQueries(db),
};
