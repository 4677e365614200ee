import type { Logger } from 'pino';
import { batchDecoder, type Decoder } from '../../../projections/projector.ts';
import type { EgressPolicy } from '../../checks/egress.ts';
import type { CommandContext, CommandDeps } from '../../commands/handle.ts';
import { degradeSink, recoverSink } from '../../commands/sinks.ts';
import type { SinkTuning } from '../../domain/sink.ts';
import type { SinkRecord } from '../../domain/sink-format.ts';
import { comparePositions, type EventLog, type RecordedEvent } from '../../log/event-log.ts';
import type { SinkRow } from '../../views/sinks/port.ts';
import type { Reactor } from '../port.ts';
import { sinkRecordOf } from './records.ts';
import { sendBatch } from './send.ts';
import { sinkReactorName, type SinkStates } from './state/port.ts';

export interface SinkReactorDeps {
  log: EventLog;
  states: SinkStates;
  logger: Logger;
  egress: EgressPolicy;
  tuning: SinkTuning;
  now?: () => Date;
}

class Stopped extends Error {}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new Stopped('sink stopped'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(new Stopped('sink stopped'));
    };
    signal.addEventListener('abort', stop, { once: true });
  });

/** The records of a batch the sink takes, with where each is in the batch. */
const recordsOf = (
  row: SinkRow,
  batch: readonly RecordedEvent[],
  done: string | null,
  decode: Decoder,
): Array<{ at: number; record: SinkRecord }> => {
  const picked: Array<{ at: number; record: SinkRecord }> = [];
  batch.forEach((recorded, at) => {
    if (comparePositions(recorded.position, done) <= 0) return;
    const record = sinkRecordOf(row.view, recorded, decode);
    if (record !== null) picked.push({ at, record: { position: recorded.position, record } });
  });
  return picked;
};

/** One sink as a reactor (lease and checkpoint `sink-{id}`): it follows the log from its own
 *  checkpoint and sends the project's audit records it takes, in log order, in batches; a batch
 *  is tried again (backoff with jitter) until the destination takes all of it, and only then is
 *  the checkpoint moved past it, so a restart or a kill sends again at most what was in flight.
 *  A new sink starts after the record that created it. `current` is the sink as the read model
 *  has it now (its filter and target may change). */
export const sinkReactor = (deps: SinkReactorDeps, sinkId: string, current: () => SinkRow): Reactor => {
  const store = deps.states.store(sinkId);
  const now = deps.now ?? (() => new Date());
  const stopping = new AbortController();
  const commands: CommandDeps = { log: deps.log };
  const ctx: CommandContext = { actor: 'system:sinks', correlationId: sinkId, now };
  const log = deps.logger.child({ sink_id: sinkId });
  let failures = 0;

  /** Sends `records` until all are taken; throws only when stopped. */
  const deliver = async (records: readonly SinkRecord[]): Promise<void> => {
    let pending = records;
    for (;;) {
      const { target } = current();
      const outcome = await sendBatch(sinkId, target, pending, {
        egress: deps.egress,
        timeoutMs: deps.tuning.timeoutMs,
      });
      pending = pending.slice(outcome.taken);
      if (outcome.error === null || pending.length === 0) {
        if (failures > 0 || current().view.degraded) await recoverSink(commands, sinkId, ctx);
        failures = 0;
        return;
      }
      failures += 1;
      const error = outcome.error;
      log.warn({ failures, error, pending: pending.length }, 'sink batch failed; trying again');
      await deps.states.failed(sinkId, failures, error, now().toISOString());
      if (failures === deps.tuning.degradedAfter) await degradeSink(commands, sinkId, failures, error, ctx);
      const ceiling = Math.min(deps.tuning.backoffMaxMs, deps.tuning.backoffMinMs * 2 ** Math.min(failures - 1, 30));
      await pause(ceiling / 2 + (Math.random() * ceiling) / 2, stopping.signal);
    }
  };

  return {
    name: sinkReactorName(sinkId),
    checkpoint: () => store.checkpoint(),
    async migrate(lease) {
      await store.migrate(lease);
      if ((await store.checkpoint()) === null) {
        const [created] = await deps.log.readPositions([current().created_position]);
        if (created !== undefined) await store.commit([created], () => undefined, lease);
      }
      failures = (await deps.states.progress(sinkId))?.failures ?? 0;
    },
    async process(batch, lease, decode = batchDecoder()) {
      const done = await store.checkpoint();
      const picked = recordsOf(current(), batch, done, decode);
      for (let from = 0; from < picked.length; from += deps.tuning.batchSize) {
        const chunk = picked.slice(from, from + deps.tuning.batchSize);
        await deliver(chunk.map((c) => c.record));
        const last = chunk[chunk.length - 1]!;
        const lastRecorded = batch[last.at]!;
        await store.commit(
          batch.slice(0, last.at + 1),
          (recorded, writer) => {
            if (recorded === lastRecorded)
              writer.forwarded(sinkId, chunk.length, last.record.record.id, now().toISOString());
          },
          lease,
        );
      }
      await store.commit(batch, () => undefined, lease);
    },
    async stop() {
      stopping.abort();
    },
  };
};
