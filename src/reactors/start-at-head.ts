import type { EventLog } from '../log/event-log.ts';
import type { Lease } from '../views/store/port.ts';
import type { ReactorStore } from './port.ts';

/** A reactor with no state of its own (a new deployment, a data dir copied without its state)
 *  starts at the log's head: replaying side effects would mail, notify or open incidents about
 *  everything that came before it, or record a "stale" skip for each. Its checkpoint is set to the
 *  last record, with nothing written beside it. */
export async function startAtHeadWhenNew<W>(
  store: ReactorStore<W>,
  log: Pick<EventLog, 'headPosition' | 'readPositions'>,
  held: Lease,
): Promise<void> {
  if ((await store.checkpoint()) !== null) return;
  const head = await log.headPosition();
  const [last] = head === null ? [] : await log.readPositions([head]);
  if (last !== undefined) await store.commit([last], () => undefined, held);
}
