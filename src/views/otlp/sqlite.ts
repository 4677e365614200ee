import type Database from 'better-sqlite3';
import type { OtlpQueries, OtlpWriter, ProjectOtlpSettings } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

/** One row per project that set its OTLP settings. */
const otlpSchema: SqliteSchema = {
  version: 1,
  tables: ['otlp_settings'],
  create:
    'CREATE TABLE IF NOT EXISTS otlp_settings (project_id TEXT PRIMARY KEY, identifier_attribute TEXT, ' +
    'default_environment TEXT NOT NULL, unsupported_methods TEXT NOT NULL, updated_at TEXT NOT NULL);',
};

class SqliteOtlpWriter implements OtlpWriter {
  private readonly put;

  constructor(db: Database.Database) {
    this.put = db.prepare(
      `INSERT INTO otlp_settings VALUES (@project_id, @identifier_attribute, @default_environment,
      @unsupported_methods, @updated_at) ON CONFLICT (project_id) DO UPDATE SET ` +
        'identifier_attribute = excluded.identifier_attribute, default_environment = excluded.default_environment, ' +
        'unsupported_methods = excluded.unsupported_methods, updated_at = excluded.updated_at',
    );
  }

  settingsSet(settings: ProjectOtlpSettings): void {
    const { project_id, identifier_attribute, default_environment, unsupported_methods, updated_at } = settings;
    this.put.run({ project_id, identifier_attribute, default_environment, unsupported_methods, updated_at });
  }
}

class SqliteOtlpQueries implements OtlpQueries {
  private readonly one;

  constructor(db: Database.Database) {
    this.one = db.prepare<[string], ProjectOtlpSettings>('SELECT * FROM otlp_settings WHERE project_id = ?');
  }

  async settingsOf(projectId: string): Promise<ProjectOtlpSettings | null> {
    const row = this.one.get(projectId);
    return row ? { ...row } : null;
  }
}

export const sqliteOtlp: SqliteReadModel<OtlpWriter, OtlpQueries> = {
  schema: otlpSchema,
  writer: (db) => new SqliteOtlpWriter(db),
  queries: (db) => new SqliteOtlpQueries(db),
};
