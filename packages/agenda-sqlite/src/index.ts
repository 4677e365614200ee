export { SqliteBackend } from './backend.ts';
export { SqliteJobRepository } from './repository.ts';
