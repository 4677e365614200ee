import type { Db } from 'mongodb';
import { coversMonitor } from '../../domain/maintenance.ts';
import { inScope, type Scope } from '../../domain/scope.ts';
import type { MaintenancesQueries, MaintenancesWriter, MaintenanceView } from './port.ts';
import {
  TOMBSTONE,
  listInScope,
  live,
  unfenced,
  type BulkOps,
  type MongoReadModel,
  type MongoSchema,
} from '../store/mongo.ts';

/** Maintenance windows keyed by id; every write is an idempotent upsert or a keyed `$set`, so a
 *  replayed batch ends where the first run did. */
const MAINTENANCES = 'maintenances';

type MaintenanceDoc = Omit<MaintenanceView, 'id'> & { _id: string };

const maintenancesMongoSchema: MongoSchema = {
  version: 1,
  collections: [MAINTENANCES],
  async ensureIndexes(db) {
    await db.collection(MAINTENANCES).createIndexes([{ key: { project_id: 1, created_at: 1 } }]);
  },
};

/** A null may be left out of an upserted document by stores that speak MongoDB's protocol
 *  (FerretDB drops it from `$setOnInsert`): absent reads as null. */
const toView = (doc: MaintenanceDoc): MaintenanceView => {
  const { _id, ...rest } = unfenced(doc);
  return { id: _id, ...rest, description: rest.description ?? null, open: rest.open ?? null };
};

const ORDER = { created_at: 1, _id: 1 } as const;

const mongoMaintenancesWriter = (ops: BulkOps): MaintenancesWriter => {
  const set = (id: string, fields: Partial<MaintenanceView>) =>
    ops.add(MAINTENANCES, { updateOne: { filter: { _id: id }, update: { $set: fields } } });
  return {
    scheduled: ({ id, ...view }) =>
      ops.add(MAINTENANCES, { updateOne: { filter: { _id: id }, update: { $setOnInsert: view }, upsert: true } }),
    updated: (id, changes, updatedAt) => set(id, { ...changes, updated_at: updatedAt }),
    deleted: (id) => ops.add(MAINTENANCES, { updateOne: { filter: { _id: id }, update: TOMBSTONE } }),
    started: (id, open) => set(id, { open }),
    ended: (id) => set(id, { open: null }),
  };
};

class MongoMaintenancesQueries implements MaintenancesQueries {
  constructor(private readonly db: Db) {}

  private get maintenances() {
    return this.db.collection<MaintenanceDoc>(MAINTENANCES);
  }

  async list(scope: Scope, projectId?: string): Promise<MaintenanceView[]> {
    return (await listInScope(this.maintenances, scope, projectId)).map(toView);
  }

  async get(id: string, scope: Scope): Promise<MaintenanceView | null> {
    const doc = await this.maintenances.findOne(live({ _id: id }));
    return doc && inScope(scope, doc.project_id) ? toView(doc) : null;
  }

  async all(): Promise<MaintenanceView[]> {
    return (await this.maintenances.find(live({})).sort(ORDER).toArray()).map(toView);
  }

  async ofProject(projectId: string): Promise<MaintenanceView[]> {
    return (
      await this.maintenances
        .find(live({ project_id: projectId }))
        .sort(ORDER)
        .toArray()
    ).map(toView);
  }

  /** A project has few windows: those open are picked from its index, and "all" or the list of
   *  ids is judged here rather than by an `$or` over an array field. */
  async openFor(projectId: string, monitorId: string): Promise<MaintenanceView[]> {
    const open = await this.maintenances
      .find(live({ project_id: projectId, open: { $ne: null } }))
      .sort(ORDER)
      .toArray();
    return open.map(toView).filter((view) => coversMonitor(view.monitor_ids, monitorId));
  }
}

export const mongoMaintenances: MongoReadModel<MaintenancesWriter, MaintenancesQueries> = {
  schema: maintenancesMongoSchema,
  batchWriter: () => mongoMaintenancesWriter,
  queries: (db) => new MongoMaintenancesQueries(db),
};
