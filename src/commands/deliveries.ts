import { deliveryDecider, type DeliveryCommand } from '../domain/delivery.ts';
import { deliveryStream } from '../domain/streams.ts';
import { handle, load, type CommandContext, type CommandDeps } from './handle.ts';

/** A delivery's commands: its stream is small (a few tries), so each loads it whole. */

type Payload<K extends DeliveryCommand['type']> = Omit<Extract<DeliveryCommand, { type: K }>, 'type' | 'at'>;

export const loadDelivery = (deps: CommandDeps, id: string) => load(deps.log, deliveryStream(id), deliveryDecider);

/** Idempotent: a delivery already scheduled or skipped stays as it is. */
export const scheduleDelivery = (deps: CommandDeps, d: Payload<'ScheduleDelivery'>, ctx: CommandContext) =>
  handle(
    deps,
    deliveryStream(d.delivery_id),
    deliveryDecider,
    { type: 'ScheduleDelivery', ...d, at: ctx.now().toISOString() },
    ctx,
  );

/** A status page subscriber's delivery; idempotent as scheduleDelivery is. */
export const scheduleSubscriberDelivery = (
  deps: CommandDeps,
  d: Payload<'ScheduleSubscriberDelivery'>,
  ctx: CommandContext,
) =>
  handle(
    deps,
    deliveryStream(d.delivery_id),
    deliveryDecider,
    { type: 'ScheduleSubscriberDelivery', ...d, at: ctx.now().toISOString() },
    ctx,
  );

export const skipDelivery = (deps: CommandDeps, d: Payload<'SkipDelivery'>, ctx: CommandContext) =>
  handle(
    deps,
    deliveryStream(d.delivery_id),
    deliveryDecider,
    { type: 'SkipDelivery', ...d, at: ctx.now().toISOString() },
    ctx,
  );

/** Records a try, unless another sender recorded it first (then nothing is appended). */
export const recordAttempt = (deps: CommandDeps, id: string, attempt: Payload<'RecordAttempt'>, ctx: CommandContext) =>
  handle(
    deps,
    deliveryStream(id),
    deliveryDecider,
    { type: 'RecordAttempt', ...attempt, at: ctx.now().toISOString() },
    ctx,
  );

export const requestRetry = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(deps, deliveryStream(id), deliveryDecider, { type: 'RequestRetry', at: ctx.now().toISOString() }, ctx);

export const cancelDelivery = (deps: CommandDeps, id: string, reason: string, ctx: CommandContext) =>
  handle(
    deps,
    deliveryStream(id),
    deliveryDecider,
    { type: 'CancelDelivery', reason, at: ctx.now().toISOString() },
    ctx,
  );
