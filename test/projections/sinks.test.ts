import { sinksProjection } from '../../projections/sinks.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { SinkTarget } from '../../src/domain/sink.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(sinksProjection, (m) => m.stores.sinks);

const P = 'e1ad8f5b-d6e7-490a-9f7a-8b9c0d1e2f01';
const Q = 'e1ad8f5b-d6e7-490a-9f7a-8b9c0d1e2f02';
const [HEC, ES, GONE, OTHER] = [1, 2, 3, 4].map((i) => `f3be9a6c-e7f8-4a1b-8a8b-9c0d1e2f3a0${i}`) as [
  string,
  string,
  string,
  string,
];
const at = (minute: number) => new Date(Date.UTC(2026, 11, 6, 9, minute)).toISOString();
const hec: SinkTarget = {
  type: 'splunk_hec',
  url: 'https://splunk.example.com/services/collector/event',
  token: 'hec-s3cret',
};
const es: SinkTarget = { type: 'elastic', url: 'https://es.example.com', index: 'audit', api_key: 'es-s3cret' };

const created = (sink_id: string, target: SinkTarget, minute: number, project_id = P): DomainEvent => ({
  type: 'SinkCreated',
  data: { sink_id, project_id, target, name: null, active: true, filter: {}, created_at: at(minute) },
});
const events = [
  created(HEC, hec, 0),
  created(ES, es, 1),
  created(GONE, hec, 2),
  created(OTHER, es, 3, Q),
  {
    type: 'SinkUpdated',
    data: {
      sink_id: HEC,
      project_id: P,
      changes: { name: 'siem', filter: { event_type: ['http'] } },
      updated_at: at(4),
    },
  },
  {
    type: 'SinkDegraded',
    data: { sink_id: ES, project_id: P, failures: 5, reason: 'answered 429', degraded_at: at(5) },
  },
  { type: 'SinkDeleted', data: { sink_id: GONE, project_id: P, deleted_at: at(6) } },
] satisfies DomainEvent[];

const read = async (m: ReadModels) => ({
  list: await m.sinks.list(P),
  all: (await m.sinks.all()).map((r) => ({ id: r.view.id, target: r.target, from: r.created_position })),
});

scenarioTests(it, {
  projectId: P,
  events: () => events,
  read,
  expected: (recorder) => {
    const view = (id: string, minute: number, over: object) => ({
      id,
      project_id: P,
      name: null,
      active: true,
      filter: {},
      degraded: false,
      degraded_reason: null,
      degraded_since: null,
      created_at: at(minute),
      updated_at: at(minute),
      ...over,
    });
    return {
      list: [
        view(HEC, 0, {
          type: 'splunk_hec',
          name: 'siem',
          filter: { event_type: ['http'] },
          settings: { url: hec.url, token: '********' },
          updated_at: at(4),
        }),
        view(ES, 1, {
          type: 'elastic',
          settings: { url: es.url, index: 'audit', api_key: '********' },
          degraded: true,
          degraded_reason: 'answered 429',
          degraded_since: at(5),
        }),
      ],
      all: [
        { id: HEC, target: hec, from: recorder.recordOf(events[0]!).position },
        { id: ES, target: es, from: recorder.recordOf(events[1]!).position },
        { id: OTHER, target: es, from: recorder.recordOf(events[3]!).position },
      ],
    };
  },
});
