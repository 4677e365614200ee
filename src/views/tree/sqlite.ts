import type Database from 'better-sqlite3';
import { EMPTY_FRONTIER, appendLeaf, frontierRoot, nodeHash, type Frontier, type Hash } from '../../domain/merkle.ts';
import type { LatestCheckpoint, TreeHead, TreeLeaf, TreeQueries, TreeWriter } from './port.ts';
import type { BatchedWriter, SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

/** Each project's tree: its head (size and right edge, the only state an append reads), the
 *  roots of its complete subtrees (level 0: the leaves) but those of levels 1 to UNSTORED_LEVELS,
 *  and each leaf's record position. Rows are written once and never changed, except the head.
 *  Node and leaf rows name their project by its head's integer key: two rows a record would
 *  otherwise carry the 36-character id (70 bytes a record at 1M). */
const treeSchema: SqliteSchema = {
  version: 4,
  tables: ['tree_heads', 'tree_nodes', 'tree_leaves'],
  create: `
CREATE TABLE IF NOT EXISTS tree_heads (
  key INTEGER PRIMARY KEY, project_id TEXT NOT NULL UNIQUE, size INTEGER NOT NULL, frontier BLOB NOT NULL,
  checkpoint_size INTEGER NOT NULL DEFAULT 0, checkpoint TEXT
);
CREATE TABLE IF NOT EXISTS tree_nodes (
  project INTEGER NOT NULL, level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL,
  PRIMARY KEY (project, level, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tree_leaves (
  project INTEGER NOT NULL, position INTEGER NOT NULL, idx INTEGER NOT NULL,
  PRIMARY KEY (project, position)
) WITHOUT ROWID;
`,
};

const HASH_BYTES = 32;

/** Subtrees of up to 2^3 leaves are not stored but hashed from their leaves when a proof needs
 *  one (at most 7 hashes, from one range read): 7 rows in 8 of the interior ones, which every
 *  append wrote and few proofs read. (Files written before keep theirs; nothing reads them.) */
const UNSTORED_LEVELS = 3;

/** The right edge as one blob of 32-byte hashes, largest subtree first. */
const packFrontier = (f: Frontier): Buffer => Buffer.concat(f.nodes as Buffer[]);
const unpackFrontier = (size: number, blob: Buffer): Frontier => {
  const nodes: Hash[] = [];
  for (let i = 0; i < blob.length; i += HASH_BYTES) nodes.push(Buffer.from(blob.subarray(i, i + HASH_BYTES)));
  return { size, nodes };
};

/** A project's key, in a WHERE clause. */
const PROJECT = 'project = (SELECT key FROM tree_heads WHERE project_id = ?)';

interface HeadRow {
  project_id: string;
  size: number;
  frontier: Buffer;
  checkpoint_size: number;
  checkpoint: string | null;
}

const HEAD_COLUMNS = 'project_id, size, frontier, checkpoint_size, checkpoint';

const toHead = (r: HeadRow): TreeHead => {
  const frontier = unpackFrontier(r.size, r.frontier);
  return { project_id: r.project_id, frontier, root: frontierRoot(frontier), checkpoint_size: r.checkpoint_size };
};

/** Gathers a batch's leaves per project on top of each project's stored head (read once per
 *  batch, and made with its key on the project's first leaf), and writes them at the end of the
 *  batch, in its transaction. */
class SqliteTreeWriter implements TreeWriter, BatchedWriter {
  private readonly heads = new Map<string, { key: number; frontier: Frontier }>();
  private nodes: Array<[number, number, number, Hash]> = [];
  private leaves: Array<[number, number, number]> = [];
  private checkpoints = new Map<string, LatestCheckpoint>();
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      head: db.prepare<[string], { key: number; size: number; frontier: Buffer }>(
        'SELECT key, size, frontier FROM tree_heads WHERE project_id = ?',
      ),
      newHead: db.prepare<[string], { key: number }>(
        "INSERT INTO tree_heads (project_id, size, frontier) VALUES (?, 0, x'') RETURNING key",
      ),
      putHead: db.prepare(`INSERT INTO tree_heads (project_id, size, frontier) VALUES (?, ?, ?)
        ON CONFLICT (project_id) DO UPDATE SET size = excluded.size, frontier = excluded.frontier`),
      node: db.prepare('INSERT INTO tree_nodes (project, level, idx, hash) VALUES (?, ?, ?, ?)'),
      leaf: db.prepare('INSERT INTO tree_leaves (project, position, idx) VALUES (?, ?, ?)'),
      checkpoint: db.prepare(
        "INSERT INTO tree_heads (project_id, size, frontier, checkpoint_size, checkpoint) VALUES (?, 0, x'', ?, ?)" +
          `
        ON CONFLICT (project_id) DO UPDATE SET checkpoint_size = excluded.checkpoint_size, ` +
          'checkpoint = excluded.checkpoint',
      ),
    };
  }

  leaf(projectId: string, position: string, hash: Hash): void {
    let head = this.heads.get(projectId);
    if (head === undefined) {
      const row = this.stmts.head.get(projectId);
      head = row
        ? { key: row.key, frontier: unpackFrontier(row.size, row.frontier) }
        : { key: this.stmts.newHead.get(projectId)!.key, frontier: EMPTY_FRONTIER };
    }
    const { key, frontier } = head;
    const appended = appendLeaf(frontier, hash);
    this.heads.set(projectId, { key, frontier: appended.frontier });
    this.leaves.push([key, Number(position), frontier.size]);
    for (const n of appended.completed)
      if (n.level === 0 || n.level > UNSTORED_LEVELS) this.nodes.push([key, n.level, n.index, n.hash]);
  }

  checkpointSigned(checkpoint: LatestCheckpoint): void {
    this.checkpoints.set(checkpoint.project_id, checkpoint);
  }

  flush(): void {
    for (const row of this.nodes) this.stmts.node.run(...row);
    for (const row of this.leaves) this.stmts.leaf.run(...row);
    for (const [projectId, { frontier }] of this.heads)
      this.stmts.putHead.run(projectId, frontier.size, packFrontier(frontier));
    for (const c of this.checkpoints.values()) this.stmts.checkpoint.run(c.project_id, c.size, JSON.stringify(c));
    this.discard();
  }

  discard(): void {
    this.heads.clear();
    this.nodes = [];
    this.leaves = [];
    this.checkpoints = new Map();
  }
}

class SqliteTreeQueries implements TreeQueries {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      head: db.prepare<[string], HeadRow>(`SELECT ${HEAD_COLUMNS} FROM tree_heads WHERE project_id = ?`),
      heads: db.prepare<[], HeadRow>(`SELECT ${HEAD_COLUMNS} FROM tree_heads ORDER BY project_id`),
      node: db.prepare<[string, number, number], { hash: Buffer }>(
        `SELECT hash FROM tree_nodes WHERE ${PROJECT} AND level = ? AND idx = ?`,
      ),
      leafRange: db.prepare<[string, number, number], { hash: Buffer }>(
        `SELECT hash FROM tree_nodes WHERE ${PROJECT} AND level = 0 AND idx >= ? AND idx < ? ORDER BY idx`,
      ),
      leaves: db.prepare<[string, number, number], { position: number; idx: number; hash: Buffer }>(
        'SELECT l.position, l.idx, n.hash FROM tree_leaves l ' +
          `JOIN tree_nodes n ON n.project = l.project AND n.level = 0 AND n.idx = l.idx
         WHERE l.${PROJECT} AND l.position >= ? ORDER BY l.position LIMIT ?`,
      ),
      checkpoint: db.prepare<[string], { checkpoint: string | null }>(
        'SELECT checkpoint FROM tree_heads WHERE project_id = ?',
      ),
      after: db.prepare<[string, number, number], { position: number }>(
        `SELECT position FROM tree_leaves WHERE ${PROJECT} AND position >= ? ORDER BY position LIMIT 1 OFFSET ?`,
      ),
    };
  }

  async head(projectId: string): Promise<TreeHead | null> {
    const row = this.stmts.head.get(projectId);
    return row ? toHead(row) : null;
  }

  async heads(): Promise<TreeHead[]> {
    return this.stmts.heads.all().map(toHead);
  }

  async node(projectId: string, level: number, index: number): Promise<Hash> {
    if (level >= 1 && level <= UNSTORED_LEVELS) {
      const width = 2 ** level;
      let hashes = this.stmts.leafRange.all(projectId, index * width, (index + 1) * width).map((r) => r.hash);
      if (hashes.length !== width) throw new Error(`project ${projectId}: no subtree ${level}:${index} in the tree`);
      while (hashes.length > 1)
        hashes = Array.from({ length: hashes.length / 2 }, (_, i) => nodeHash(hashes[2 * i]!, hashes[2 * i + 1]!));
      return hashes[0]!;
    }
    const row = this.stmts.node.get(projectId, level, index);
    if (!row) throw new Error(`project ${projectId}: no subtree ${level}:${index} in the tree`);
    return row.hash;
  }

  async leavesFrom(projectId: string, fromPosition: string, limit: number): Promise<TreeLeaf[]> {
    return this.stmts.leaves
      .all(projectId, Number(fromPosition), limit)
      .map((r) => ({ index: r.idx, position: String(r.position), hash: r.hash }));
  }

  async positionAfter(projectId: string, fromPosition: string, skip: number): Promise<string | null> {
    const row = this.stmts.after.get(projectId, Number(fromPosition), skip);
    return row ? String(row.position) : null;
  }

  async latestCheckpoint(projectId: string): Promise<LatestCheckpoint | null> {
    const json = this.stmts.checkpoint.get(projectId)?.checkpoint ?? null;
    return json === null ? null : (JSON.parse(json) as LatestCheckpoint);
  }
}

export const sqliteTree: SqliteReadModel<TreeWriter, TreeQueries> = {
  schema: treeSchema,
  writer: (db) => new SqliteTreeWriter(db),
  queries: (db) => new SqliteTreeQueries(db),
};
