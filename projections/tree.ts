import { catalogue, type DomainEvent, type EventType } from '../src/domain/events.ts';
import { recordLeafHash } from '../src/domain/merkle.ts';
import type { TreeWriter } from '../src/views/tree/port.ts';
import type { Projection } from './projection.ts';
import { FACTOR_EVENT_TYPES } from '../src/domain/factors.ts';

/** Event types that are not a project's records: users, their factors and sessions, and the
 *  sign-on providers belong to no project, a checkpoint signs the tree rather than being a leaf
 *  of it, and a monitor's check results are kept 200 at a time and a key's uses one at a time
 *  (the log drops older ones, so a rebuild could not give their leaves back); the transitions
 *  checks cause are records. */
const NOT_RECORDS = [
  'UserRegistered',
  'UserAccessChanged',
  'UserDisabled',
  'UserEnabled',
  'UserPasswordChanged',
  'UserPasswordRehashed',
  ...FACTOR_EVENT_TYPES,
  'CheckpointSigned',
  'CheckRecorded',
  'ApiKeyUsed',
  'SessionStarted',
  'SessionRefreshed',
  'SessionEnded',
  'SsoProviderSaved',
  'SsoProviderDeleted',
] as const satisfies readonly EventType[];

type RecordType = Exclude<EventType, (typeof NOT_RECORDS)[number]>;
/** Every record names its project: a type without `data.project_id` fails to compile here. */
const projectOf = (event: Extract<DomainEvent, { type: RecordType }>): string => event.data.project_id;

const isRecord = (event: DomainEvent): event is Extract<DomainEvent, { type: RecordType }> =>
  !(NOT_RECORDS as readonly string[]).includes(event.type);

export const PROJECT_RECORD_TYPES = (Object.keys(catalogue) as EventType[]).filter(
  (type): type is RecordType => !(NOT_RECORDS as readonly string[]).includes(type),
);

/** Each project's Merkle tree (docs/auditors.md): one leaf per record, in log order, hashing the
 *  record as stored (its raw data and metadata, not the decoded form, which a codec may trim).
 *  A record retention or erasure replaced carries the leaf hash it had. Deterministic: a rebuild
 *  gives the same roots. */
export const treeProjection: Projection<TreeWriter> = {
  name: 'tree',
  handles: [...PROJECT_RECORD_TYPES, 'CheckpointSigned'],
  apply(event, recorded, writer) {
    if (event.type === 'CheckpointSigned') {
      const { project_id, size, root, note, signed_at } = event.data;
      writer.checkpointSigned({ project_id, size, root, note, signed_at, position: recorded.position });
    } else if (event.type === 'RecordRedacted') {
      writer.leaf(event.data.project_id, recorded.position, Buffer.from(event.data.leaf_hash, 'base64'));
    } else if (isRecord(event)) {
      writer.leaf(projectOf(event), recorded.position, recordLeafHash(recorded));
    }
  },
};
