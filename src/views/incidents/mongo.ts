import type { Db } from 'mongodb';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../domain/page.ts';
import { inScope, projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import type { IncidentView, IncidentsQueries, IncidentsWriter } from './port.ts';
import {
  TOMBSTONE,
  inProjects,
  live,
  unfenced,
  type BulkOps,
  type MongoReadModel,
  type MongoSchema,
} from '../store/mongo.ts';

/** Incidents keyed by id, their updates in the document. The opening is an insert-only upsert;
 *  an update is pushed only by a write that finds no update of its id, so a replayed batch adds
 *  nothing; a deletion is a tombstone. An open incident has `resolved_at` null. */
const INCIDENTS = 'incidents';

type IncidentDoc = Omit<IncidentView, 'id'> & { _id: string };

const incidentsMongoSchema: MongoSchema = {
  version: 1,
  collections: [INCIDENTS],
  async ensureIndexes(db) {
    await db
      .collection(INCIDENTS)
      .createIndexes([
        { key: { project_id: 1, created_at: -1, _id: -1 } },
        { key: { project_id: 1, resolved_at: 1, created_at: -1, _id: -1 } },
        { key: { created_at: -1, _id: -1 } },
        { key: { 'auto.monitor_id': 1 }, partialFilterExpression: { 'auto.monitor_id': { $exists: true } } },
      ]);
  },
};

const toView = (doc: IncidentDoc): IncidentView => {
  const { _id, ...rest } = unfenced(doc);
  return { id: _id, ...rest };
};

const NEWEST_FIRST = { created_at: -1, _id: -1 } as const;

const mongoIncidentsWriter = (ops: BulkOps): IncidentsWriter => ({
  opened: ({ id, ...view }) =>
    ops.add(INCIDENTS, { updateOne: { filter: { _id: id }, update: { $setOnInsert: view }, upsert: true } }),
  // A step after the batch's bulk writes (so after an opening in the same batch): what it pushes
  // is typed against the document, which a bulk operation's loose schema cannot check.
  updated: (id, update) =>
    ops.defer(async (db, fence) => {
      await db.collection<IncidentDoc>(INCIDENTS).updateOne(
        fence.filter(live({ _id: id, 'updates.id': { $ne: update.id } })),
        fence.update({
          $push: { updates: update },
          $set: {
            status: update.status,
            ...(update.impact === null ? {} : { impact: update.impact }),
            updated_at: update.at,
            resolved_at: update.status === 'resolved' ? update.at : null,
          },
        }),
      );
    }),
  deleted: (id) => ops.add(INCIDENTS, { updateOne: { filter: { _id: id }, update: TOMBSTONE } }),
});

class MongoIncidentsQueries implements IncidentsQueries {
  constructor(private readonly db: Db) {}

  private get incidents() {
    return this.db.collection<IncidentDoc>(INCIDENTS);
  }

  async list(scope: Scope, request: PageRequest & { projectId?: string; open?: boolean }): Promise<Page<IncidentView>> {
    const projects = projectsInScope(scope, request.projectId);
    if (seesNothing(projects)) return pageOf([], request, 0);
    const filter = live({ ...inProjects(projects), ...(request.open === true ? { resolved_at: null } : {}) });
    const [total, docs] = await Promise.all([
      this.incidents.countDocuments(filter),
      this.incidents.find(filter).sort(NEWEST_FIRST).skip(offsetOf(request)).limit(request.limit).toArray(),
    ]);
    return pageOf(docs.map(toView), request, total);
  }

  async get(id: string, scope: Scope): Promise<IncidentView | null> {
    const doc = await this.incidents.findOne(live({ _id: id }));
    return doc && inScope(scope, doc.project_id) ? toView(doc) : null;
  }

  async shownSince(projectId: string, since: string, limit: number): Promise<IncidentView[]> {
    const filter = live({ project_id: projectId, $or: [{ resolved_at: null }, { resolved_at: { $gte: since } }] });
    return (await this.incidents.find(filter).sort(NEWEST_FIRST).limit(limit).toArray()).map(toView);
  }

  async openAuto(monitorId: string): Promise<IncidentView[]> {
    const filter = live({ 'auto.monitor_id': monitorId, resolved_at: null });
    return (await this.incidents.find(filter).sort({ created_at: 1, _id: 1 }).toArray()).map(toView);
  }
}

export const mongoIncidents: MongoReadModel<IncidentsWriter, IncidentsQueries> = {
  schema: incidentsMongoSchema,
  batchWriter: () => mongoIncidentsWriter,
  queries: (db) => new MongoIncidentsQueries(db),
};
