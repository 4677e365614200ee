import type Database from 'better-sqlite3';
import type { SecondFactorRequirement } from '../../domain/factors.ts';
import {
  emptyFactors,
  type FactorsQueries,
  type FactorsWriter,
  type PasskeyCredential,
  type SecondFactorPolicy,
  type UserFactorsView,
} from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

/** One row per user with a factor (the unused recovery codes' hashes as JSON, so that a use
 *  removes its own), one per passkey, and the policy's single row. */
const factorsSchema: SqliteSchema = {
  version: 1,
  tables: ['factor_users', 'passkeys', 'second_factor_policy'],
  create: `
CREATE TABLE IF NOT EXISTS factor_users (
  user_id TEXT PRIMARY KEY, totp_enrolled_at TEXT, recovery_hashes TEXT NOT NULL DEFAULT '[]',
  recovery_generated_at TEXT
);
CREATE TABLE IF NOT EXISTS passkeys (
  id TEXT PRIMARY KEY, user_id TEXT NOT NULL, credential_id TEXT NOT NULL UNIQUE, transports TEXT NOT NULL,
  name TEXT NOT NULL, created_at TEXT NOT NULL, last_used_at TEXT
);
CREATE INDEX IF NOT EXISTS passkeys_user ON passkeys (user_id, created_at);
CREATE TABLE IF NOT EXISTS second_factor_policy (id INTEGER PRIMARY KEY CHECK (id = 1), require TEXT NOT NULL,
  updated_at TEXT NOT NULL);
`,
};

interface UserRow {
  user_id: string;
  totp_enrolled_at: string | null;
  recovery_hashes: string;
  recovery_generated_at: string | null;
}
interface PasskeyRow {
  id: string;
  user_id: string;
  credential_id: string;
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

const toCredential = (r: PasskeyRow): PasskeyCredential => ({
  passkey_id: r.id,
  user_id: r.user_id,
  credential_id: r.credential_id,
  transports: JSON.parse(r.transports) as string[],
});

class SqliteFactorsWriter implements FactorsWriter {
  private readonly ensureUser;
  private readonly setTotp;
  private readonly setCodes;
  private readonly codesOf;
  private readonly insertPasskey;
  private readonly rename;
  private readonly used;
  private readonly remove;
  private readonly setPolicy;

  constructor(db: Database.Database) {
    this.ensureUser = db.prepare('INSERT INTO factor_users (user_id) VALUES (?) ON CONFLICT (user_id) DO NOTHING');
    this.setTotp = db.prepare('UPDATE factor_users SET totp_enrolled_at = ? WHERE user_id = ?');
    this.setCodes = db.prepare(
      'UPDATE factor_users SET recovery_hashes = ?, recovery_generated_at = coalesce(?, recovery_generated_at) ' +
        'WHERE user_id = ?',
    );
    this.codesOf = db.prepare<[string], { recovery_hashes: string }>(
      'SELECT recovery_hashes FROM factor_users WHERE user_id = ?',
    );
    this.insertPasskey = db.prepare(
      'INSERT INTO passkeys (id, user_id, credential_id, transports, name, created_at) ' +
        'VALUES (@passkey_id, @user_id, @credential_id, @transports, @name, @created_at) ON CONFLICT DO NOTHING',
    );
    this.rename = db.prepare('UPDATE passkeys SET name = ? WHERE id = ?');
    this.used = db.prepare('UPDATE passkeys SET last_used_at = ? WHERE id = ?');
    this.remove = db.prepare('DELETE FROM passkeys WHERE id = ?');
    this.setPolicy = db.prepare(
      'INSERT INTO second_factor_policy VALUES (1, ?, ?) ' +
        'ON CONFLICT (id) DO UPDATE SET require = excluded.require, updated_at = excluded.updated_at',
    );
  }

  totpEnrolled(userId: string, at: string): void {
    this.ensureUser.run(userId);
    this.setTotp.run(at, userId);
  }
  totpRemoved(userId: string): void {
    this.setTotp.run(null, userId);
  }
  recoveryCodesGenerated(userId: string, codeHashes: readonly string[], at: string): void {
    this.ensureUser.run(userId);
    this.setCodes.run(JSON.stringify(codeHashes), at, userId);
  }
  recoveryCodeUsed(userId: string, codeHash: string): void {
    const row = this.codesOf.get(userId);
    if (!row) return;
    const left = (JSON.parse(row.recovery_hashes) as string[]).filter((h) => h !== codeHash);
    this.setCodes.run(JSON.stringify(left), null, userId);
  }
  passkeyRegistered(p: PasskeyCredential & { name: string; created_at: string }): void {
    this.insertPasskey.run({ ...p, transports: JSON.stringify(p.transports) });
  }
  passkeyRenamed(passkeyId: string, name: string): void {
    this.rename.run(name, passkeyId);
  }
  passkeyUsed(passkeyId: string, at: string): void {
    this.used.run(at, passkeyId);
  }
  passkeyRemoved(passkeyId: string): void {
    this.remove.run(passkeyId);
  }
  policySet(require: SecondFactorRequirement, at: string): void {
    this.setPolicy.run(require, at);
  }
}

class SqliteFactorsQueries implements FactorsQueries {
  private readonly user;
  private readonly passkeys;
  private readonly byCredential;
  private readonly policyRow;

  constructor(db: Database.Database) {
    this.user = db.prepare<[string], UserRow>('SELECT * FROM factor_users WHERE user_id = ?');
    this.passkeys = db.prepare<[string], PasskeyRow>(
      'SELECT * FROM passkeys WHERE user_id = ? ORDER BY created_at, id',
    );
    this.byCredential = db.prepare<[string], PasskeyRow>('SELECT * FROM passkeys WHERE credential_id = ?');
    this.policyRow = db.prepare<[], SecondFactorPolicy>('SELECT require, updated_at FROM second_factor_policy');
  }

  async factorsOf(userId: string): Promise<UserFactorsView> {
    const row = this.user.get(userId);
    const passkeys = this.passkeys
      .all(userId)
      .map(({ id, name, created_at, last_used_at }) => ({ id, name, created_at, last_used_at }));
    if (!row) return { ...emptyFactors(userId), passkeys };
    return {
      user_id: userId,
      totp_enrolled_at: row.totp_enrolled_at,
      recovery_codes_left: (JSON.parse(row.recovery_hashes) as string[]).length,
      recovery_codes_generated_at: row.recovery_generated_at,
      passkeys,
    };
  }
  async passkeyByCredentialId(credentialId: string): Promise<PasskeyCredential | null> {
    const row = this.byCredential.get(credentialId);
    return row ? toCredential(row) : null;
  }
  async credentialsOf(userId: string): Promise<PasskeyCredential[]> {
    return this.passkeys.all(userId).map(toCredential);
  }
  async policy(): Promise<SecondFactorPolicy> {
    return this.policyRow.get() ?? { require: 'none', updated_at: null };
  }
}

export const sqliteFactors: SqliteReadModel<FactorsWriter, FactorsQueries> = {
  schema: factorsSchema,
  writer: (db) => new SqliteFactorsWriter(db),
  queries: (db) => new SqliteFactorsQueries(db),
};
