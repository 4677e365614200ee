import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { Logger } from 'pino';
import pino from 'pino';
import { Projector } from '../../projections/projector.ts';
import { createChannel } from '../../src/commands/channels.ts';
import type { CommandContext } from '../../src/commands/handle.ts';
import { createMonitor, recordCheck } from '../../src/commands/monitors.ts';
import { createProject } from '../../src/commands/projects.ts';
import { loadOrCreateVapidKeys } from '../../src/compose/secrets.ts';
import { openStores, type StoreConfig, type Stores } from '../../src/compose/stores.ts';
import { deliveryIdOf } from '../../src/domain/delivery.ts';
import { channelStream, deliveryStream, monitorStream } from '../../src/domain/streams.ts';
import type { RecordedEvent } from '../../src/log/event-log.ts';
import { NOTIFICATIONS, notificationsReactor, type RetryOptions } from '../../src/reactors/notifications/reactor.ts';
import { defaultEgress } from '../helpers/egress.ts';
import { providerReceiver, type Answer, type Received } from '../helpers/provider-receiver.ts';
import { capturingLogger, eventually, tempDir } from '../helpers/server.ts';

/** The notification reactor on its own, as a worker runs it: a real embedded log and real
 *  embedded stores in a data dir, the channels projection it waits for, the reactor in a
 *  projector of its own under its lease, and a webhook receiver on 127.0.0.1. Commands are
 *  appended through a handle of their own, as the API's process would append them. */

const LEASE_MS = 900;

const storeConfig = (dataDir: string): StoreConfig => ({
  dataDir,
  eventStoreUrl: undefined,
  eventStoreNamespace: 'watchlog',
  mongoUrl: undefined,
});

const ctx = (at: Date): CommandContext => ({ actor: 'test', correlationId: randomUUID(), now: () => at });

interface ReactorOptions {
  retry?: Partial<RetryOptions>;
  degradedAfter?: number;
  logger?: Logger;
}

/** A reactor with handles of its own on the data dir, stopped at teardown (or before). */
const startReactor = async (t: ExecutionContext, dataDir: string, options: ReactorOptions = {}) => {
  const stores = await openStores(storeConfig(dataDir), { writerThread: false });
  const logger = options.logger ?? pino({ level: 'silent' });
  const timing = { leaseTtlMs: LEASE_MS, liveBatchDelayMs: 5 };
  const channels = new Projector(
    stores.log,
    stores.runners.filter((r) => r.name === 'channels'),
    stores.readModels.leases,
    logger,
    timing,
  );
  const reactor = notificationsReactor({
    log: stores.log,
    readModels: stores.readModels,
    reactorStates: stores.reactorStates,
    logger,
    vapid: loadOrCreateVapidKeys(dataDir),
    vapidSubject: 'mailto:ops@example.com',
    egress: defaultEgress,
    publicUrl: null,
    degradedAfter: options.degradedAfter ?? 5,
    retry: { attempts: 3, minTimeoutMs: 0, maxTimeoutMs: 0, ...options.retry },
    timeoutMs: 2000,
  });
  const follower = new Projector(stores.log, [reactor], stores.reactorStates.leases, logger, timing);
  channels.start();
  follower.start();
  let stopped: Promise<void> | null = null;
  const stop = () => {
    stopped ??= (async () => {
      await reactor.stop();
      await follower.stop();
      await channels.stop();
      await stores.close();
    })();
    return stopped;
  };
  t.teardown(stop);
  return { holder: follower.holder, stop };
};

/** A data dir with a project, a webhook channel to a receiver answering as `answer` says, and a
 *  monitor whose checks the test records. */
const setUp = async (t: ExecutionContext, answer: (n: number, request: Received) => Answer) => {
  const dataDir = tempDir();
  const receiver = await providerReceiver(answer);
  const service = await openStores(storeConfig(dataDir), { writerThread: false });
  t.teardown(async () => {
    await service.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const deps = { log: service.log };
  const project = await createProject(deps, 'notified', ctx(new Date()));
  const channel = await createChannel(
    deps,
    { project_id: project.id, type: 'webhook', url: `${receiver.base}/hook` },
    ctx(new Date()),
  );
  const monitorOf = async (name: string) =>
    (
      await createMonitor(
        { log: service.log, monitorsInProject: async () => 0, monitorsPerProject: 10 },
        { project_id: project.id, name, url: 'http://127.0.0.1:9/' },
        ctx(new Date()),
      )
    ).id;
  const monitor = await monitorOf('orders');
  let clock = Date.now();
  /** Records a check (a second after the last one, unless `at` says when) and returns the
   *  transition it made, as the log holds it. */
  const check = async (
    ok: boolean,
    { id = monitor, at }: { id?: string; at?: number } = {},
  ): Promise<RecordedEvent> => {
    if (at === undefined) clock += 1000;
    const when = new Date(at ?? clock);
    await recordCheck(
      deps,
      id,
      { checked_at: when.toISOString(), ok, response_ms: 5, status_code: ok ? 200 : 503 },
      ctx(when),
    );
    const transition = (await service.log.readStream(monitorStream(id))).at(-1)!;
    t.is(transition.type, ok ? 'MonitorCameUp' : 'MonitorWentDown', 'the check made a transition');
    return transition;
  };
  return { dataDir, receiver, service, channelId: channel.id, monitor, monitorOf, check };
};

const deliveryOf = (service: Stores, transition: RecordedEvent, channelId: string) =>
  service.log.readStream(deliveryStream(deliveryIdOf(transition.id, channelId)));

/** The delivery's tries, once `done` says the stream is complete. */
const triesOf = async (
  service: Stores,
  transition: RecordedEvent,
  channelId: string,
  done: (events: RecordedEvent[]) => boolean,
) =>
  eventually(async () => {
    const events = await deliveryOf(service, transition, channelId);
    return done(events) ? events.filter((e) => e.type === 'DeliveryAttempted').map((e) => e.data) : undefined;
  }, 15_000);

const delivered = (events: RecordedEvent[]) =>
  events.some((e) => e.type === 'DeliveryAttempted' && (e.data as { outcome: string }).outcome === 'delivered');

/** Resolves once the reactor's checkpoint (in its state) has reached the log's head. */
const reactorAtHead = async (service: Stores) => {
  const head = await service.log.headPosition();
  await eventually(
    async () => ((await service.reactorStates.stores.notifications.checkpoint()) === head ? true : undefined),
    15_000,
  );
};

test('lease: it sends only while holding it; its retry waits for the next holder', async (t) => {
  let steal: () => void = () => undefined;
  const { dataDir, receiver, service, channelId, check } = await setUp(t, (n) => {
    // The lease moves while the first try is in flight: the reactor learns it when it retries.
    if (n === 0) steal();
    return { status: n === 0 ? 503 : 200 };
  });
  const { logger, lines } = capturingLogger('warn');
  const first = await startReactor(t, dataDir, { logger });
  await eventually(async () =>
    (await service.reactorStates.leases.holderOf(NOTIFICATIONS))?.holder === first.holder ? true : undefined,
  );
  steal = () => {
    // Both run their statement before they return: the lease is the thief's before the answer.
    void service.reactorStates.leases.release(NOTIFICATIONS, first.holder);
    void service.reactorStates.leases.acquire(NOTIFICATIONS, 'thief', 60_000);
  };

  const down = await check(false);
  // The first try is recorded (its retry, with no backoff, follows at once), and the reactor's
  // projector has found the lease gone.
  await triesOf(service, down, channelId, (events) => events.some((e) => e.type === 'DeliveryAttempted'));
  await eventually(async () => (lines.some((l) => l.msg === 'projection lease lost') ? true : undefined));
  t.is((await service.reactorStates.leases.holderOf(NOTIFICATIONS))?.holder, 'thief');
  await first.stop();

  const releasedAt = Date.now();
  await service.reactorStates.leases.release(NOTIFICATIONS, 'thief');
  await startReactor(t, dataDir);
  const tries = await triesOf(service, down, channelId, delivered);
  t.like(tries, [
    { attempt: 1, outcome: 'failed', final: false, status: 503 },
    { attempt: 2, outcome: 'delivered', final: true, status: 200 },
  ]);
  t.is(tries.length, 2);
  t.is(receiver.received.length, 2, 'one request per try: none while another held the lease');
  t.true(receiver.received[1]!.at >= releasedAt, 'the retry went out once the lease was free to take');
  t.is((receiver.received[1]!.json as { id: string }).id, down.id);
});

test('catch-up: with no state it starts at the head; behind, it sends what is due, skips what is stale', async (t) => {
  const { dataDir, receiver, service, channelId, monitorOf, check } = await setUp(t, () => ({ status: 200 }));
  const before = await check(false);
  const fresh = await startReactor(t, dataDir);
  await reactorAtHead(service);
  t.deepEqual(await deliveryOf(service, before, channelId), [], 'what came before it is neither sent nor skipped');
  t.is(receiver.received.length, 0);
  await fresh.stop();

  // While no reactor runs: a recovery (due), and a DOWN of another monitor two hours ago (stale:
  // older than the delivery window, an hour, when the reactor reaches it).
  const up = await check(true);
  const other = await monitorOf('billing');
  const stale = await check(false, { id: other, at: Date.now() - 2 * 3_600_000 });
  await startReactor(t, dataDir);
  t.like(await triesOf(service, up, channelId, delivered), [{ attempt: 1, outcome: 'delivered' }]);
  const skipped = await eventually(async () => {
    const events = await deliveryOf(service, stale, channelId);
    return events.length > 0 ? events : undefined;
  });
  t.deepEqual(
    skipped.map((e) => [e.type, (e.data as { reason?: string }).reason]),
    [['DeliverySkipped', 'stale']],
  );
  await reactorAtHead(service);
  t.deepEqual(
    receiver.received.map((r) => (r.json as { type: string; id: string }).id),
    [up.id],
    'only the recovery went out',
  );
});

test('re-queueing: a delivery left pending by a stop is sent by the next holder', async (t) => {
  const { dataDir, receiver, service, channelId, check } = await setUp(t, (n) => ({ status: n === 0 ? 503 : 200 }));
  // A minute between tries: the stop finds the delivery waiting for its second.
  const first = await startReactor(t, dataDir, { retry: { minTimeoutMs: 60_000, maxTimeoutMs: 60_000 } });
  const down = await check(false);
  await triesOf(service, down, channelId, (events) => events.some((e) => e.type === 'DeliveryAttempted'));
  await first.stop();
  t.deepEqual(await service.reactorStates.notifications.pending(), [
    { delivery_id: deliveryIdOf(down.id, channelId), channel_id: channelId },
  ]);
  t.is(receiver.received.length, 1);

  await startReactor(t, dataDir);
  t.like(await triesOf(service, down, channelId, delivered), [
    { attempt: 1, outcome: 'failed', final: false },
    { attempt: 2, outcome: 'delivered', final: true },
  ]);
  await reactorAtHead(service);
  t.deepEqual(await service.reactorStates.notifications.pending(), []);
  t.is(receiver.received.length, 2);
});

test('degraded: N failures in a row degrade the channel; the next delivery to get through recovers it', async (t) => {
  const { dataDir, service, channelId, check } = await setUp(t, (n) => ({ status: n < 2 ? 500 : 200 }));
  await startReactor(t, dataDir, { degradedAfter: 2, retry: { attempts: 1 } });
  const channelEvents = async () => (await service.log.readStream(channelStream(channelId))).map((e) => e.type);
  const failed = (events: RecordedEvent[]) => events.some((e) => e.type === 'DeliveryAttempted');

  const firstDown = await check(false);
  t.like(await triesOf(service, firstDown, channelId, failed), [{ outcome: 'failed', final: true }]);
  await reactorAtHead(service);
  t.is(await service.reactorStates.notifications.failuresInARow(channelId), 1);
  t.deepEqual(await channelEvents(), ['ChannelCreated'], 'one failure is not degraded');

  const up = await check(true);
  t.like(await triesOf(service, up, channelId, failed), [{ outcome: 'failed', final: true }]);
  const degraded = await eventually(async () => {
    const events = await service.log.readStream(channelStream(channelId));
    return events.find((e) => e.type === 'ChannelDegraded');
  });
  t.like(degraded.data, { channel_id: channelId, failures: 2 });

  const secondDown = await check(false);
  t.like(await triesOf(service, secondDown, channelId, delivered), [{ outcome: 'delivered' }]);
  await eventually(async () => ((await channelEvents()).includes('ChannelRecovered') ? true : undefined));
  await reactorAtHead(service);
  t.deepEqual(await channelEvents(), ['ChannelCreated', 'ChannelDegraded', 'ChannelRecovered']);
  t.is(await service.reactorStates.notifications.failuresInARow(channelId), 0);
});
