import type { Logger } from 'pino';
import { FULL_BATCH, Projector, type ProjectorOptions } from '../../../projections/projector.ts';
import type { EgressPolicy } from '../../checks/egress.ts';
import type { EventLog } from '../../log/event-log.ts';
import type { ReadModels } from '../../views/read-models.ts';
import type { SinkRow } from '../../views/sinks/port.ts';
import type { Reactor, ReactorStates } from '../port.ts';
import type { SinkTuning } from '../../domain/sink.ts';
import { sinkReactor } from './reactor.ts';

export interface SinkSupervisorDeps {
  log: EventLog;
  readModels: Pick<ReadModels, 'sinks'>;
  reactorStates: Pick<ReactorStates, 'leases' | 'sinks'>;
  logger: Logger;
  egress: EgressPolicy;
  tuning: SinkTuning;
  projector: ProjectorOptions;
  /** How often the sinks read model is read for sinks created, changed, paused or deleted. */
  pollMs?: number;
}

interface Running {
  row: SinkRow;
  reactor: Reactor;
  projector: Projector<Reactor>;
}

/** Runs each active sink's reactor in a projector of its own, so a slow or unreachable
 *  destination holds up only its sink, and several workers share the sinks by their leases. It
 *  follows the sinks read model: a new or resumed sink starts, a paused or deleted one stops (its
 *  checkpoint stays), a change of filter applies from the next batch. */
export class SinkSupervisor {
  private readonly running = new Map<string, Running>();
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: SinkSupervisorDeps) {}

  start(): void {
    const tick = () => {
      this.round = this.round
        .then(() => this.reconcile())
        .catch((err: unknown) => {
          this.deps.logger.error({ err }, 'sinks could not be read; trying again');
        });
    };
    tick();
    this.timer = setInterval(tick, this.deps.pollMs ?? 1000);
    this.timer.unref();
  }

  private async reconcile(): Promise<void> {
    if (this.stopped) return;
    const rows = await this.deps.readModels.sinks.all();
    const active = new Map(rows.filter((r) => r.view.active).map((r) => [r.view.id, r]));
    for (const [id, running] of this.running) {
      if (active.has(id)) continue;
      this.running.delete(id);
      await running.reactor.stop();
      await running.projector.stop();
    }
    for (const [id, row] of active) {
      const known = this.running.get(id);
      if (known) {
        known.row = row;
        continue;
      }
      const entry = { row } as Running;
      entry.reactor = sinkReactor(
        {
          log: this.deps.log,
          states: this.deps.reactorStates.sinks,
          logger: this.deps.logger,
          egress: this.deps.egress,
          tuning: this.deps.tuning,
        },
        id,
        () => entry.row,
      );
      entry.projector = new Projector(
        this.deps.log,
        [entry.reactor],
        this.deps.reactorStates.leases,
        this.deps.logger,
        this.readsFor(),
      );
      this.running.set(id, entry);
      entry.projector.start();
    }
  }

  /** A sink sends at most the records of one log read a request: reads of at least its batch
   *  size let a backlog go out in requests as large as configured. */
  private readsFor(): ProjectorOptions {
    const fullBatch = Math.max(this.deps.projector.fullBatch ?? FULL_BATCH, this.deps.tuning.batchSize);
    return { ...this.deps.projector, fullBatch };
  }

  /** Tries in flight end; each sink's checkpoint stays where its destination last took a batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.round;
    for (const running of this.running.values()) await running.reactor.stop();
    await Promise.all([...this.running.values()].map((r) => r.projector.stop()));
    this.running.clear();
  }
}
