import type Database from 'better-sqlite3';
import { applyPatch, type AnomalyOverrides, type AnomalySettingsPatch } from '../../domain/anomaly-settings.ts';
import type { AnomaliesQueries, AnomaliesWriter, OpenAlertView, ProjectAnomalySettings } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

/** Per-project settings (what the project changed from the defaults, as JSON) and the open
 *  alerts. */
const anomaliesSchema: SqliteSchema = {
  version: 1,
  tables: ['anomaly_settings', 'anomaly_open_alerts'],
  create:
    '\n' +
    'CREATE TABLE IF NOT EXISTS anomaly_settings ' +
    '(project_id TEXT PRIMARY KEY, overrides TEXT NOT NULL, updated_at TEXT NOT NULL);\n' +
    'CREATE TABLE IF NOT EXISTS anomaly_open_alerts (\n' +
    '  alert_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, rule TEXT NOT NULL, subject TEXT NOT NULL, ' +
    'detected_at TEXT NOT NULL\n' +
    ');',
};

interface SettingsRow {
  project_id: string;
  overrides: string;
  updated_at: string;
}
const toSettings = (r: SettingsRow): ProjectAnomalySettings => ({
  project_id: r.project_id,
  overrides: JSON.parse(r.overrides) as AnomalyOverrides,
  updated_at: r.updated_at,
});

class SqliteAnomaliesWriter implements AnomaliesWriter {
  private readonly getSettings;
  private readonly putSettings;
  private readonly insertAlert;
  private readonly deleteAlert;

  constructor(db: Database.Database) {
    this.getSettings = db.prepare<[string], SettingsRow>('SELECT * FROM anomaly_settings WHERE project_id = ?');
    this.putSettings = db.prepare(`INSERT INTO anomaly_settings VALUES (@project_id, @overrides, @updated_at)
      ON CONFLICT (project_id) DO UPDATE SET overrides = excluded.overrides, updated_at = excluded.updated_at`);
    this.insertAlert = db.prepare(
      'INSERT OR IGNORE INTO anomaly_open_alerts VALUES (@alert_id, @project_id, @rule, @subject, @detected_at)',
    );
    this.deleteAlert = db.prepare('DELETE FROM anomaly_open_alerts WHERE project_id = ? AND alert_id = ?');
  }

  settingsUpdated(projectId: string, changes: AnomalySettingsPatch, updatedAt: string): void {
    const current = this.getSettings.get(projectId);
    const overrides = applyPatch(current ? toSettings(current).overrides : {}, changes);
    this.putSettings.run({ project_id: projectId, overrides: JSON.stringify(overrides), updated_at: updatedAt });
  }

  detected(alert: OpenAlertView): void {
    this.insertAlert.run(alert);
  }

  cleared(projectId: string, alertId: string): void {
    this.deleteAlert.run(projectId, alertId);
  }
}

class SqliteAnomaliesQueries implements AnomaliesQueries {
  private readonly all;
  private readonly one;
  private readonly open;

  constructor(db: Database.Database) {
    this.all = db.prepare<[], SettingsRow>('SELECT * FROM anomaly_settings');
    this.one = db.prepare<[string], SettingsRow>('SELECT * FROM anomaly_settings WHERE project_id = ?');
    this.open = db.prepare<[], OpenAlertView>(
      'SELECT alert_id, project_id, rule, subject, detected_at FROM anomaly_open_alerts ORDER BY detected_at, alert_id',
    );
  }

  async allSettings(): Promise<ProjectAnomalySettings[]> {
    return this.all.all().map(toSettings);
  }

  async settingsOf(projectId: string): Promise<ProjectAnomalySettings | null> {
    const row = this.one.get(projectId);
    return row ? toSettings(row) : null;
  }

  async openAlerts(): Promise<OpenAlertView[]> {
    return this.open.all();
  }
}

export const sqliteAnomalies: SqliteReadModel<AnomaliesWriter, AnomaliesQueries> = {
  schema: anomaliesSchema,
  writer: (db) => new SqliteAnomaliesWriter(db),
  queries: (db) => new SqliteAnomaliesQueries(db),
};
