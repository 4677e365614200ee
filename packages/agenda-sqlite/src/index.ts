export { SqliteBackend } from './backend.ts';
export { type JobScheduleChanges, SqliteJobRepository } from './repository.ts';
