import type Database from 'better-sqlite3';
import type { AgendaBackend, JobId } from 'agenda';
import { type ScheduleFields, SqliteJobRepository } from './repository.ts';

/** An Agenda backend on SQLite: storage only, so Agenda polls (processEvery) for due jobs. */
export class SqliteBackend implements AgendaBackend {
  readonly name = 'SQLite';
  readonly repository: SqliteJobRepository;
  readonly notificationChannel = undefined;

  /** A file path (opened on connect and closed on disconnect, also by agenda.stop()) or an open
   *  better-sqlite3 Database, which stays the caller's to configure and close. */
  constructor(database: string | Database.Database) {
    this.repository = new SqliteJobRepository(database);
  }

  get ownsConnection(): boolean {
    return this.repository.ownsConnection;
  }

  connect(): Promise<void> {
    return this.repository.connect();
  }

  disconnect(): Promise<void> {
    return this.repository.disconnect();
  }

  /** See SqliteJobRepository.ensureUniqueIndex. */
  ensureUniqueIndex(name: string, dataPath: string): Promise<void> {
    return this.repository.ensureUniqueIndex(name, dataPath);
  }

  /** See SqliteJobRepository.updateSchedule. */
  updateSchedule(id: JobId | string, changes: ScheduleFields): Promise<boolean> {
    return this.repository.updateSchedule(id, changes);
  }
}
