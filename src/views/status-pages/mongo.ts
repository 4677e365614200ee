import type { Db } from 'mongodb';
import { inScope, type Scope } from '../../domain/scope.ts';
import { monitorIdsOf } from '../../domain/status-page.ts';
import type { StatusPageView, StatusPagesQueries, StatusPagesWriter } from './port.ts';
import {
  TOMBSTONE,
  listInScope,
  live,
  unfenced,
  type BulkOps,
  type MongoReadModel,
  type MongoSchema,
} from '../store/mongo.ts';

/** Pages keyed by id, with the monitors they show (`monitor_ids`, from their groups: what the
 *  lookups by monitor read), and each page's version in a collection of its own, so that a failed
 *  check rewrites a small document rather than a page with its groups. A version is its log
 *  position zero-padded to 20 digits (a u64 has at most 20): string order is then the positions'
 *  order, and every write moves it forward only, which makes each one safe to replay or to run
 *  after later ones. */
const PAGES = 'status_pages';
const VERSIONS = 'status_page_versions';

type PageDoc = Omit<StatusPageView, 'id'> & { _id: string; monitor_ids: string[] };
interface VersionDoc {
  _id: string;
  project_id: string;
  monitor_ids: string[];
  version: string;
}

const statusPagesMongoSchema: MongoSchema = {
  version: 1,
  collections: [PAGES, VERSIONS],
  async ensureIndexes(db) {
    await db
      .collection(PAGES)
      .createIndexes([
        { key: { project_id: 1, created_at: 1 } },
        { key: { slug: 1 } },
        { key: { custom_domain: 1 }, partialFilterExpression: { custom_domain: { $type: 'string' } } },
        { key: { monitor_ids: 1 } },
      ]);
    await db.collection(VERSIONS).createIndexes([{ key: { project_id: 1 } }, { key: { monitor_ids: 1 } }]);
  },
};

const versionKey = (position: string): string => position.padStart(20, '0');
const positionOf = (key: string): string => key.replace(/^0+(?=\d)/, '');

const toView = (doc: PageDoc): StatusPageView => {
  const { _id, monitor_ids: _, ...rest } = unfenced(doc);
  return { id: _id, ...rest };
};

interface Touch {
  project_id: string;
  monitor_id: string | null;
  version: string;
}

/** The versions a touch moves: the project's pages, or those of them that show the monitor. */
const touchedBy = ({ project_id, monitor_id, version }: Touch) =>
  live({ project_id, ...(monitor_id === null ? {} : { monitor_ids: monitor_id }), version: { $lt: version } });

const mongoStatusPagesWriter = (ops: BulkOps): StatusPagesWriter => {
  // A batch's touches, one per project and monitor, written after its page writes (as deferred
  // tasks run): a version moves forward only, so a page created or changed later in the batch
  // keeps its own, later version.
  const touches = new Map<string, Touch>();
  return {
    created({ id, ...view }, position) {
      const monitor_ids = monitorIdsOf(view.groups);
      ops.add(PAGES, {
        updateOne: { filter: { _id: id }, update: { $setOnInsert: { ...view, monitor_ids } }, upsert: true },
      });
      ops.add(VERSIONS, {
        updateOne: {
          filter: { _id: id },
          update: { $setOnInsert: { project_id: view.project_id, monitor_ids, version: versionKey(position) } },
          upsert: true,
        },
      });
    },
    updated(id, changes, updatedAt, position) {
      const shown = changes.groups === undefined ? {} : { monitor_ids: monitorIdsOf(changes.groups) };
      ops.add(PAGES, {
        updateOne: { filter: live({ _id: id }), update: { $set: { ...changes, ...shown, updated_at: updatedAt } } },
      });
      const version = { $max: { version: versionKey(position) } };
      ops.add(VERSIONS, {
        updateOne: {
          filter: live({ _id: id }),
          update: changes.groups === undefined ? version : { ...version, $set: shown },
        },
      });
    },
    deleted(id) {
      ops.add(PAGES, { updateOne: { filter: { _id: id }, update: TOMBSTONE } });
      ops.add(VERSIONS, { updateOne: { filter: { _id: id }, update: TOMBSTONE } });
    },
    touched(projectId, monitorId, position) {
      if (touches.size === 0) {
        ops.defer(async (db, fence) => {
          const writes = [...touches.values()].map((touch) => ({
            updateMany: {
              filter: fence.filter(touchedBy(touch)),
              update: fence.update({ $set: { version: touch.version } }),
            },
          }));
          await db.collection<VersionDoc>(VERSIONS).bulkWrite(writes, { ordered: true });
        });
      }
      touches.set(`${projectId} ${monitorId ?? ''}`, {
        project_id: projectId,
        monitor_id: monitorId,
        version: versionKey(position),
      });
    },
  };
};

class MongoStatusPagesQueries implements StatusPagesQueries {
  constructor(private readonly db: Db) {}

  private get pages() {
    return this.db.collection<PageDoc>(PAGES);
  }

  async list(scope: Scope, projectId?: string): Promise<StatusPageView[]> {
    return (await listInScope(this.pages, scope, projectId)).map(toView);
  }

  async get(id: string, scope: Scope): Promise<StatusPageView | null> {
    const doc = await this.pages.findOne(live({ _id: id }));
    return doc && inScope(scope, doc.project_id) ? toView(doc) : null;
  }

  async bySlug(slug: string): Promise<StatusPageView | null> {
    const [doc] = await this.pages.find(live({ slug })).sort({ created_at: 1, _id: 1 }).limit(1).toArray();
    return doc ? toView(doc) : null;
  }

  async byDomain(host: string): Promise<StatusPageView | null> {
    const [doc] = await this.pages
      .find(live({ custom_domain: host.toLowerCase() }))
      .sort({ created_at: 1, _id: 1 })
      .limit(1)
      .toArray();
    return doc ? toView(doc) : null;
  }

  async version(id: string): Promise<string | null> {
    const doc = await this.db
      .collection<VersionDoc>(VERSIONS)
      .findOne(live({ _id: id }), { projection: { _id: 0, version: 1 } });
    return doc ? positionOf(doc.version) : null;
  }

  async autoIncidentPages(monitorId: string): Promise<StatusPageView[]> {
    const filter = live({ monitor_ids: monitorId, auto_incidents: true });
    return (await this.pages.find(filter).sort({ created_at: 1, _id: 1 }).toArray()).map(toView);
  }

  async publishedShowing(monitorId: string): Promise<number> {
    return this.pages.countDocuments(live({ monitor_ids: monitorId, published: true }));
  }
}

export const mongoStatusPages: MongoReadModel<StatusPagesWriter, StatusPagesQueries> = {
  schema: statusPagesMongoSchema,
  batchWriter: () => mongoStatusPagesWriter,
  queries: (db) => new MongoStatusPagesQueries(db),
};
