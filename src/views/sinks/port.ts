import type { SinkFilter, SinkTarget, SinkType } from '../../domain/sink.ts';

/** A sink as the API shows it: its settings with every secret masked. Its forwarding state (the
 *  checkpoint, lag, last error) is the sink reactor's, not this read model's. */
export interface SinkView {
  id: string;
  project_id: string;
  type: SinkType;
  name: string | null;
  active: boolean;
  filter: SinkFilter;
  settings: Record<string, unknown>;
  /** Forwarding kept failing; the sink keeps trying. */
  degraded: boolean;
  degraded_reason: string | null;
  degraded_since: string | null;
  created_at: string;
  updated_at: string;
}

export type SinkChanges = { active?: boolean; name?: string | null; filter?: SinkFilter };

export interface SinksWriter {
  /** `position`: the SinkCreated record's; the sink forwards the records after it. */
  created(view: SinkView, target: SinkTarget, position: string): void;
  updated(id: string, changes: SinkChanges, updatedAt: string): void;
  degraded(id: string, reason: string, at: string): void;
  recovered(id: string): void;
  deleted(id: string): void;
}

/** A sink with what forwarding needs. */
export interface SinkRow {
  view: SinkView;
  target: SinkTarget;
  created_position: string;
}

export interface SinksQueries {
  /** The project's sinks, oldest first. */
  list(projectId: string): Promise<SinkView[]>;
  get(projectId: string, id: string): Promise<SinkView | null>;
  /** Every sink of every project with its target, for the reactors. */
  all(): Promise<SinkRow[]>;
}
