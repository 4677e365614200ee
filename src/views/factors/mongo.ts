import type { Db } from 'mongodb';
import type { SecondFactorRequirement } from '../../domain/factors.ts';
import {
  emptyFactors,
  type FactorsQueries,
  type FactorsWriter,
  type PasskeyCredential,
  type SecondFactorPolicy,
  type UserFactorsView,
} from './port.ts';
import type { BulkOps, MongoReadModel, MongoSchema } from '../store/mongo.ts';

const USERS = 'factor_users';
const PASSKEYS = 'passkeys';
const POLICY = 'second_factor_policy';

/** Every write is idempotent, so a replayed batch lands on the same documents: codes are set
 *  whole and removed by hash, passkeys keyed by their id. */
interface UserDoc {
  _id: string;
  totp_enrolled_at?: string | null;
  /** The unused codes' hashes as keys (hex: no dots or dollars), so a use unsets its own. */
  recovery?: Record<string, true>;
  recovery_generated_at?: string;
}
interface PasskeyDoc {
  _id: string;
  user_id: string;
  credential_id: string;
  transports: string[];
  name: string;
  created_at: string;
  last_used_at: string | null;
}
interface PolicyDoc {
  _id: 'policy';
  require: SecondFactorRequirement;
  updated_at: string;
}

const factorsMongoSchema: MongoSchema = {
  version: 1,
  collections: [USERS, PASSKEYS, POLICY],
  async ensureIndexes(db) {
    await db.collection(PASSKEYS).createIndexes([
      { key: { credential_id: 1 }, name: 'credential', unique: true },
      { key: { user_id: 1, created_at: 1 }, name: 'user' },
    ]);
  },
};

const mongoFactorsWriter = (ops: BulkOps): FactorsWriter => ({
  totpEnrolled(userId, at) {
    ops.add(USERS, {
      updateOne: { filter: { _id: userId }, update: { $set: { totp_enrolled_at: at } }, upsert: true },
    });
  },
  totpRemoved(userId) {
    ops.add(USERS, { updateOne: { filter: { _id: userId }, update: { $set: { totp_enrolled_at: null } } } });
  },
  recoveryCodesGenerated(userId, codeHashes, at) {
    ops.add(USERS, {
      updateOne: {
        filter: { _id: userId },
        update: { $set: { recovery: Object.fromEntries(codeHashes.map((h) => [h, true])), recovery_generated_at: at } },
        upsert: true,
      },
    });
  },
  recoveryCodeUsed(userId, codeHash) {
    ops.add(USERS, {
      updateOne: { filter: { _id: userId }, update: { $unset: { [`recovery.${codeHash}`]: '' } } },
    });
  },
  passkeyRegistered({ passkey_id, user_id, credential_id, transports, name, created_at }) {
    ops.add(PASSKEYS, {
      updateOne: {
        filter: { _id: passkey_id },
        update: { $setOnInsert: { user_id, credential_id, transports, name, created_at, last_used_at: null } },
        upsert: true,
      },
    });
  },
  passkeyRenamed(passkeyId, name) {
    ops.add(PASSKEYS, { updateOne: { filter: { _id: passkeyId }, update: { $set: { name } } } });
  },
  passkeyUsed(passkeyId, at) {
    ops.add(PASSKEYS, { updateOne: { filter: { _id: passkeyId }, update: { $set: { last_used_at: at } } } });
  },
  passkeyRemoved(passkeyId) {
    ops.add(PASSKEYS, { deleteOne: { filter: { _id: passkeyId } } });
  },
  policySet(require, at) {
    ops.add(POLICY, {
      replaceOne: { filter: { _id: 'policy' }, replacement: { require, updated_at: at }, upsert: true },
    });
  },
});

const toCredential = (d: PasskeyDoc): PasskeyCredential => ({
  passkey_id: d._id,
  user_id: d.user_id,
  credential_id: d.credential_id,
  transports: d.transports,
});

class MongoFactorsQueries implements FactorsQueries {
  constructor(private readonly db: Db) {}

  private passkeysOf(userId: string) {
    return this.db.collection<PasskeyDoc>(PASSKEYS).find({ user_id: userId }).sort({ created_at: 1, _id: 1 }).toArray();
  }

  async factorsOf(userId: string): Promise<UserFactorsView> {
    const [doc, passkeys] = await Promise.all([
      this.db.collection<UserDoc>(USERS).findOne({ _id: userId }),
      this.passkeysOf(userId),
    ]);
    const listed = passkeys.map(({ _id, name, created_at, last_used_at }) => ({
      id: _id,
      name,
      created_at,
      last_used_at,
    }));
    if (!doc) return { ...emptyFactors(userId), passkeys: listed };
    return {
      user_id: userId,
      totp_enrolled_at: doc.totp_enrolled_at ?? null,
      recovery_codes_left: Object.keys(doc.recovery ?? {}).length,
      recovery_codes_generated_at: doc.recovery_generated_at ?? null,
      passkeys: listed,
    };
  }
  async passkeyByCredentialId(credentialId: string): Promise<PasskeyCredential | null> {
    const doc = await this.db.collection<PasskeyDoc>(PASSKEYS).findOne({ credential_id: credentialId });
    return doc && toCredential(doc);
  }
  async credentialsOf(userId: string): Promise<PasskeyCredential[]> {
    return (await this.passkeysOf(userId)).map(toCredential);
  }
  async policy(): Promise<SecondFactorPolicy> {
    const doc = await this.db.collection<PolicyDoc>(POLICY).findOne({ _id: 'policy' });
    return doc ? { require: doc.require, updated_at: doc.updated_at } : { require: 'none', updated_at: null };
  }
}

export const mongoFactors: MongoReadModel<FactorsWriter, FactorsQueries> = {
  schema: factorsMongoSchema,
  batchWriter: () => mongoFactorsWriter,
  queries: (db) => new MongoFactorsQueries(db),
};
