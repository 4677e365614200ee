import type { Document } from 'mongodb';

/** The embedded read models' tables that grow with the events (audit events, sessions,
 *  statistics, orphans, checks, deliveries, the Merkle tree, the anomaly windows): no query may
 *  read one from end to end. Tables that grow with configuration (projects, users, keys, monitors,
 *  channels, settings) and the alerts open now are small by nature. */
export const GROWING: ReadonlySet<string> = new Set([
  'audit_events',
  'derived_sessions',
  'stats_minute',
  'stats_hour',
  'browser_requests',
  'backend_requests',
  'monitor_checks',
  'monitor_uptime',
  'delivery_log',
  'tree_heads',
  'tree_nodes',
  'tree_leaves',
  'anomaly_service_10s',
  'anomaly_auth_10s',
]);

/** How a database will run a query, as its planner says (the query is not run). */
export interface QueryPlan {
  /** Whether it sorts the matching rows itself (a blocking sort) instead of reading them in an
   *  index's order. */
  sortsInMemory: boolean;
  readsIndex: boolean;
  /** The plan in one line, for failure messages. */
  text: string;
}

/** The keys under which an explain nests the stages of a plan: classic `inputStage(s)`, the
 *  slot-based engine's `queryPlan`, a sharded cluster's `shards` and their `winningPlan`. */
const NESTED = ['inputStage', 'inputStages', 'queryPlan', 'shards', 'winningPlan'];

const stagesOf = (node: unknown): string[] => {
  if (Array.isArray(node)) return node.flatMap(stagesOf);
  if (typeof node !== 'object' || node === null) return [];
  const doc = node as Record<string, unknown>;
  const own = typeof doc.stage === 'string' ? [doc.stage] : [];
  return [...own, ...NESTED.flatMap((key) => stagesOf(doc[key]))];
};

/** The winning plan of a MongoDB explain (`FindCursor.explain('queryPlanner')`). */
export const mongoPlan = (explained: Document): QueryPlan => {
  const queryPlanner = (explained as { queryPlanner?: { winningPlan?: unknown } }).queryPlanner;
  const stages = stagesOf(queryPlanner?.winningPlan);
  return {
    sortsInMemory: stages.includes('SORT'),
    readsIndex: stages.some((stage) => stage.endsWith('IXSCAN')),
    text: stages.join(' < ') || JSON.stringify(explained),
  };
};

/** An SQLite `EXPLAIN QUERY PLAN`'s rows. A temporary B-tree for the ORDER BY (or its last
 *  terms) is a sort of the matching rows. */
export const sqlitePlan = (rows: ReadonlyArray<{ detail: string }>): QueryPlan => {
  const details = rows.map((r) => r.detail);
  return {
    sortsInMemory: details.some((d) => d.startsWith('USE TEMP B-TREE FOR') && d.includes('ORDER BY')),
    readsIndex: details.some((d) => /USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/.test(d)),
    text: details.join(' ; '),
  };
};
