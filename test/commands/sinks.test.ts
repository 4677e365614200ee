import test from 'ava';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { SinkTarget } from '../../src/domain/sink.ts';
import { sinkDecider, type SinkCommand } from '../../src/domain/sink-decider.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

const spec = deciderSpec(sinkDecider);

const [S, P, T0, T1] = [
  '5c1d2e3f-4444-4d4d-8e8e-000000000001',
  '0b7c2a4e-1111-4a4a-8a8a-000000000001',
  '2026-12-06T10:00:00.000Z',
  '2026-12-06T10:05:00.000Z',
];
const ids = { sink_id: S, project_id: P };
const target: SinkTarget = { type: 'http', url: 'https://siem.example.com/in', secret: 'sh4r3d-s3cret' };
const create: SinkCommand = { type: 'CreateSink', ...ids, target, name: null, active: true, filter: {}, at: T0 };
const created: DomainEvent = {
  type: 'SinkCreated',
  data: { ...ids, target, name: null, active: true, filter: {}, created_at: T0 },
};
const degraded: DomainEvent = {
  type: 'SinkDegraded',
  data: { ...ids, failures: 5, reason: 'answered 503', degraded_at: T1 },
};
const deleted: DomainEvent = { type: 'SinkDeleted', data: { ...ids, deleted_at: T1 } };

test('CreateSink creates it once', (t) => {
  spec(t).given([]).when(create).then([created]);
  spec(t).given([created]).when(create).thenThrows({ code: 'conflict', message: 'sink already exists' });
});

test('UpdateSink records what changes, and nothing when nothing does', (t) => {
  const update = (changes: object): SinkCommand => ({ type: 'UpdateSink', changes, at: T1 });
  spec(t)
    .given([created])
    .when(update({ active: false, filter: { event_type: ['http'] }, name: null }))
    .then([
      {
        type: 'SinkUpdated',
        data: { ...ids, changes: { active: false, filter: { event_type: ['http'] } }, updated_at: T1 },
      },
    ]);
  spec(t)
    .given([created])
    .when(update({ active: true, filter: { service_name: [] } }))
    .thenNothing();
  spec(t)
    .given([created, deleted])
    .when(update({ active: false }))
    .thenThrows({ code: 'not_found' });
});

test('DegradeSink once until RecoverSink; neither on a deleted sink', (t) => {
  const degrade: SinkCommand = { type: 'DegradeSink', failures: 5, reason: 'answered 503', at: T1 };
  const recover: SinkCommand = { type: 'RecoverSink', at: T1 };
  spec(t).given([created]).when(degrade).then([degraded]);
  spec(t).given([created, degraded]).when(degrade).thenNothing();
  spec(t).given([created]).when(recover).thenNothing();
  spec(t)
    .given([created, degraded])
    .when(recover)
    .then([{ type: 'SinkRecovered', data: { ...ids, recovered_at: T1 } }]);
  spec(t).given([created, deleted]).when(degrade).thenNothing();
  spec(t).given([created, deleted]).when({ type: 'DeleteSink', at: T1 }).thenThrows({ code: 'not_found' });
});
