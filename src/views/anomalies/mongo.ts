import type { Db } from 'mongodb';
import { RULES, type AnomalyOverrides, type RuleName } from '../../domain/anomaly-settings.ts';
import type { AnomaliesQueries, AnomaliesWriter, OpenAlertView, ProjectAnomalySettings } from './port.ts';
import { TOMBSTONE, live, type BulkOps, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

const SETTINGS = 'anomaly_settings';
const ALERTS = 'anomaly_open_alerts';

/** Settings keep each overridden field at its own path (`overrides.<rule>.<field>`), so every
 *  update is a plain $set/$unset: replaying a batch of them, in order, lands on the same
 *  document, with no read before the write. A rule whose fields were all unset stays as an empty
 *  object; reading drops it. */
interface SettingsDoc {
  _id: string;
  project_id: string;
  overrides?: Partial<Record<RuleName, Record<string, unknown>>>;
  updated_at: string;
}
interface AlertDoc {
  _id: string;
  project_id: string;
  rule: RuleName;
  subject: string;
  detected_at: string;
}

const anomaliesMongoSchema: MongoSchema = {
  version: 1,
  collections: [SETTINGS, ALERTS],
  async ensureIndexes(db) {
    await db.collection(ALERTS).createIndexes([{ key: { detected_at: 1, _id: 1 } }]);
  },
};

/** The overrides as applyPatch leaves them: rules in RULES order, none without fields. */
const toSettings = (d: SettingsDoc): ProjectAnomalySettings => {
  const overrides: Partial<Record<RuleName, Record<string, unknown>>> = {};
  for (const rule of RULES) {
    const fields = d.overrides?.[rule];
    if (fields && Object.keys(fields).length > 0) overrides[rule] = { ...fields };
  }
  return { project_id: d._id, overrides: overrides as AnomalyOverrides, updated_at: d.updated_at };
};

const toAlert = (d: AlertDoc): OpenAlertView => ({
  alert_id: d._id,
  project_id: d.project_id,
  rule: d.rule,
  subject: d.subject,
  detected_at: d.detected_at,
});

const mongoAnomaliesWriter = (ops: BulkOps): AnomaliesWriter => ({
  settingsUpdated(projectId, changes, updatedAt) {
    const set: Record<string, unknown> = { project_id: projectId, updated_at: updatedAt };
    const unset: Record<string, ''> = {};
    // Rule and field names are the codec's fixed identifiers: safe as path segments.
    for (const rule of RULES) {
      for (const [field, value] of Object.entries(changes[rule] ?? {})) {
        if (value === null) unset[`overrides.${rule}.${field}`] = '';
        else if (value !== undefined) set[`overrides.${rule}.${field}`] = value;
      }
    }
    ops.add(SETTINGS, {
      updateOne: {
        filter: { _id: projectId },
        update: Object.keys(unset).length > 0 ? { $set: set, $unset: unset } : { $set: set },
        upsert: true,
      },
    });
  },
  detected({ alert_id, project_id, rule, subject, detected_at }) {
    ops.add(ALERTS, {
      updateOne: {
        filter: { _id: alert_id },
        update: { $setOnInsert: { project_id, rule, subject, detected_at } },
        upsert: true,
      },
    });
  },
  cleared(projectId, alertId) {
    ops.add(ALERTS, { updateOne: { filter: { _id: alertId, project_id: projectId }, update: TOMBSTONE } });
  },
});

class MongoAnomaliesQueries implements AnomaliesQueries {
  constructor(private readonly db: Db) {}

  async allSettings(): Promise<ProjectAnomalySettings[]> {
    return (await this.db.collection<SettingsDoc>(SETTINGS).find().sort({ _id: 1 }).toArray()).map(toSettings);
  }

  async settingsOf(projectId: string): Promise<ProjectAnomalySettings | null> {
    const doc = await this.db.collection<SettingsDoc>(SETTINGS).findOne({ _id: projectId });
    return doc && toSettings(doc);
  }

  async openAlerts(): Promise<OpenAlertView[]> {
    return (await this.db.collection<AlertDoc>(ALERTS).find(live({})).sort({ detected_at: 1, _id: 1 }).toArray()).map(
      toAlert,
    );
  }
}

export const mongoAnomalies: MongoReadModel<AnomaliesWriter, AnomaliesQueries> = {
  schema: anomaliesMongoSchema,
  batchWriter: () => mongoAnomaliesWriter,
  queries: (db) => new MongoAnomaliesQueries(db),
};
