import test from 'ava';
import Database from 'better-sqlite3';
import { READ_MODELS } from '../../src/compose/read-models.ts';
import { GROWING } from '../helpers/query-plans.ts';

/** The projections' own lookups, as each read model's writer prepares them: the projector runs
 *  them for every event, so each must go straight to the rows it names. A statement that finds
 *  rows by `column = ?` on a growing table must search an index that constrains every such column,
 *  not one that only narrows the rows down (a range over a project's last minutes instead of its
 *  request id cost a backend event's match 4 ms once 10,000 browser calls were unmatched). */

const statementsOf = (db: Database.Database, build: (db: Database.Database) => unknown): string[] => {
  const seen: string[] = [];
  const recording = new Proxy(db, {
    get(target, property, receiver) {
      if (property === 'prepare') {
        return (sql: string) => {
          seen.push(sql);
          return target.prepare(sql);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  build(recording);
  return seen;
};

/** The columns a statement's WHERE sets equal to a parameter. */
const equalities = (sql: string): string[] => {
  const where = /\bWHERE\b([\s\S]*)$/i.exec(sql)?.[1] ?? '';
  return [...where.matchAll(/\b(\w+)\s*=\s*(?:\?|[@:$]\w+)/g)].map((m) => m[1]!);
};

/** A table's columns, and the one that is its rowid (an INTEGER PRIMARY KEY), which plans name
 *  `rowid`. */
const columnsOf = (db: Database.Database, table: string): { columns: Set<string>; rowid: string | undefined } => {
  const info = db
    .prepare<[], { name: string; type: string; pk: number }>(`SELECT name, type, pk FROM pragma_table_info('${table}')`)
    .all();
  const keys = info.filter((c) => c.pk > 0);
  return {
    columns: new Set(info.map((c) => c.name)),
    rowid: keys.length === 1 && keys[0]!.type === 'INTEGER' ? keys[0]!.name : undefined,
  };
};

/** Nulls for a statement's parameters (its plan does not depend on their values). */
const nullsFor = (sql: string): unknown[] => {
  const code = sql.replace(/'(?:[^']|'')*'/g, "''");
  const named = [...new Set([...code.matchAll(/[@:$](\w+)/g)].map((m) => m[1]!))];
  if (named.length > 0) return [Object.fromEntries(named.map((name) => [name, null]))];
  return Array.from({ length: [...code.matchAll(/\?/g)].length }, () => null);
};

const problemsOf = (db: Database.Database, sql: string): string[] => {
  if (/^\s*(INSERT|REPLACE)\b/i.test(sql)) return [];
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...nullsFor(sql)) as Array<{ detail: string }>;
  const asked = equalities(sql);
  const problems: string[] = [];
  for (const { detail } of plan) {
    const step =
      /^(SCAN|SEARCH) (\w+)(?: USING (?:COVERING )?(?:INDEX \w+|INTEGER PRIMARY KEY|PRIMARY KEY) \(([^)]*)\))?/.exec(
        detail,
      );
    if (!step || !GROWING.has(step[2]!)) continue;
    if (step[1] === 'SCAN') {
      if (!/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/.test(detail)) problems.push(`full scan: ${detail}`);
      continue;
    }
    const { columns, rowid } = columnsOf(db, step[2]!);
    const constrained = new Set(
      [...(step[3] ?? '').matchAll(/(\w+)=\?/g)].map((m) => (m[1] === 'rowid' ? rowid : m[1])),
    );
    const missed = asked.filter((column) => columns.has(column) && !constrained.has(column));
    if (missed.length > 0) problems.push(`${detail} leaves ${missed.join(', ')} to a scan of the rows it finds`);
  }
  return problems.map((p) => `${p}\n  in: ${sql.replace(/\s+/g, ' ').trim()}`);
};

for (const [key, entry] of Object.entries(READ_MODELS)) {
  test(`${entry.name}: every lookup its writer makes goes straight to the rows it names`, (t) => {
    const db = new Database(':memory:');
    t.teardown(() => db.close());
    const { schema } = entry.sqlite;
    db.exec(schema.create + (schema.queryIndexes ?? ''));
    const statements = statementsOf(db, (recording) =>
      (entry.sqlite.writer as (db: Database.Database) => unknown)(recording),
    );
    t.true(statements.length > 0, `${key}: its writer prepares its statements when made`);
    t.deepEqual(
      statements.flatMap((sql) => problemsOf(db, sql)),
      [],
    );
  });
}
