import * as t from 'io-ts';
import { Uuid } from '../../domain/codecs.ts';
import { withSchema } from '../../domain/json-schema.ts';
import { IntFromString } from '../middleware/query.ts';
import { CheckpointKey, ConsistencyProof, InclusionProof, LatestCheckpoint } from './answers.ts';
import { NOT_VISIBLE } from './common.ts';
import { json, operation } from './operation.ts';

/** The auditors' endpoints (docs/auditors.md): a project's raw records with their leaves, a live
 *  tail of them, its latest signed checkpoint and the key that signs, and Merkle proofs. Read
 *  only: every role that sees the project, auditors included. */

export const DEFAULT_STREAM_LIMIT = 10_000;
export const MAX_STREAM_LIMIT = 100_000;

const Position = withSchema(
  new t.Type<string, string, unknown>(
    'a log position (a decimal integer)',
    (u): u is string => typeof u === 'string' && /^\d{1,20}$/.test(u),
    (u, c) => (typeof u === 'string' && /^\d{1,20}$/.test(u) ? t.success(BigInt(u).toString()) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'string', pattern: '^\\d{1,20}$' },
);

const ProjectQuery = t.type({ project_id: Uuid });
export const CheckpointQuery = t.exact(ProjectQuery);
export const StreamQuery = t.exact(
  t.intersection([
    ProjectQuery,
    t.partial({
      from: Position,
      limit: IntFromString(1, MAX_STREAM_LIMIT),
      follow: t.keyof({ true: null, false: null }),
    }),
  ]),
);
export const InclusionQuery = t.exact(
  t.intersection([
    ProjectQuery,
    t.type({ index: IntFromString(0, Number.MAX_SAFE_INTEGER), size: IntFromString(1, Number.MAX_SAFE_INTEGER) }),
  ]),
);
export const ConsistencyQuery = t.exact(
  t.intersection([
    ProjectQuery,
    t.type({ from: IntFromString(1, Number.MAX_SAFE_INTEGER), to: IntFromString(1, Number.MAX_SAFE_INTEGER) }),
  ]),
);

export const auditorOperations = {
  stream: operation({
    method: 'get',
    path: '/v1/stream',
    tag: 'Auditors',
    auth: 'jwt',
    keyScope: 'stream',
    query: StreamQuery,
    summary: "A project's records, with their leaves",
    description:
      `NDJSON: the project's raw records in log order, each with its leaf index and hash, from ` +
      `\`from\` (a log position), at most \`limit\` (default 10,000, at most ${MAX_STREAM_LIMIT}); ` +
      `\`Watchlog-Next-From\` is the next page's \`from\`. With \`Accept: text/event-stream\` or ` +
      `\`follow=true\`, server-sent events that go on with new records (\`Last-Event-ID\` resumes). ` +
      `Every record acknowledged before the request began is in the answer: it waits for the tree's ` +
      `projection to reach the log (\`503 not_yet_visible\` after 5 s).`,
    headers: {
      'Last-Event-ID': {
        description: 'with a live tail: the last position received, to resume after it',
        codec: t.string,
      },
    },
    responses: {
      200: {
        description: 'the records',
        text: {
          mediaTypes: ['application/x-ndjson', 'text/event-stream'],
          description: 'one JSON record a line (docs/auditors.md), or server-sent events of the same',
        },
        headers: {
          'Watchlog-Tree-Size': { description: "the project's tree size now", codec: t.string, required: true },
          'Watchlog-Next-From': { description: 'the `from` of the next page, when there is one', codec: t.string },
          'Cache-Control': { description: 'a live tail: `no-cache`' },
          'X-Accel-Buffering': { description: 'a live tail: `no`, so that proxies pass events on at once' },
        },
      },
    },
    errors: [NOT_VISIBLE],
  }),
  key: operation({
    method: 'get',
    path: '/v1/checkpoints/key',
    tag: 'Auditors',
    auth: 'jwt',
    keyScope: 'stream',
    summary: "The checkpoints' signing key",
    responses: { 200: json('the Ed25519 public key', CheckpointKey) },
  }),
  latestCheckpoint: operation({
    method: 'get',
    path: '/v1/checkpoints/latest',
    tag: 'Auditors',
    auth: 'jwt',
    keyScope: 'stream',
    query: CheckpointQuery,
    summary: 'The latest signed checkpoint',
    description: "404 before the project's first checkpoint (signed within a second of its first record).",
    responses: { 200: json('the checkpoint', LatestCheckpoint) },
    errors: [NOT_VISIBLE],
  }),
  inclusionProof: operation({
    method: 'get',
    path: '/v1/proofs/inclusion',
    tag: 'Auditors',
    auth: 'jwt',
    keyScope: 'stream',
    query: InclusionQuery,
    summary: 'An inclusion proof (RFC 9162)',
    description: "That leaf `index` is in the tree of `size` leaves (at most the tree's size).",
    responses: { 200: json('the proof', InclusionProof) },
    errors: [NOT_VISIBLE],
  }),
  consistencyProof: operation({
    method: 'get',
    path: '/v1/proofs/consistency',
    tag: 'Auditors',
    auth: 'jwt',
    keyScope: 'stream',
    query: ConsistencyQuery,
    summary: 'A consistency proof (RFC 9162)',
    description: 'That the tree of `to` leaves extends the tree of `from` leaves.',
    responses: { 200: json('the proof', ConsistencyProof) },
    errors: [NOT_VISIBLE],
  }),
};
