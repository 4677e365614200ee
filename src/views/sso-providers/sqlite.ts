import type Database from 'better-sqlite3';
import type { Provider } from '../../domain/sso.ts';
import type { SsoProvidersQueries, SsoProvidersWriter } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

const schema: SqliteSchema = {
  version: 1,
  tables: ['sso_providers'],
  create: 'CREATE TABLE IF NOT EXISTS sso_providers (id TEXT PRIMARY KEY, provider TEXT NOT NULL);',
};

type Saved = Provider & { saved_at: string };

class Writer implements SsoProvidersWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      upsert: db.prepare(
        'INSERT INTO sso_providers VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET provider = excluded.provider',
      ),
      delete: db.prepare('DELETE FROM sso_providers WHERE id = ?'),
    };
  }
  saved(provider: Saved): void {
    this.stmts.upsert.run(provider.id, JSON.stringify(provider));
  }
  deleted(id: string): void {
    this.stmts.delete.run(id);
  }
}

class Queries implements SsoProvidersQueries {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      list: db.prepare<[], { provider: string }>('SELECT provider FROM sso_providers ORDER BY id'),
      get: db.prepare<[string], { provider: string }>('SELECT provider FROM sso_providers WHERE id = ?'),
    };
  }
  async list(): Promise<Saved[]> {
    return this.stmts.list.all().map((r) => JSON.parse(r.provider) as Saved);
  }
  async get(id: string): Promise<Saved | null> {
    const row = this.stmts.get.get(id);
    return row ? (JSON.parse(row.provider) as Saved) : null;
  }
}

export const sqliteSsoProviders: SqliteReadModel<SsoProvidersWriter, SsoProvidersQueries> = {
  schema,
  writer: (db) => new Writer(db),
  queries: (db) => new Queries(db),
};
