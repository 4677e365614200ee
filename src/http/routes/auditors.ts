import type Router from '@koa/router';
import * as t from 'io-ts';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { Uuid } from '../../domain/codecs.ts';
import { withSchema } from '../../domain/json-schema.ts';
import { consistencyProof, inclusionProof, type NodeReader } from '../../domain/merkle.ts';
import { streamPages } from '../../views/tree/port.ts';
import { principalOf, visibleProjectFilter } from '../middleware/auth.ts';
import { HttpError, validationError } from '../middleware/errors.ts';
import { IntFromString, NoParameters, readQuery } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

/** The auditors' endpoints (docs/auditors.md): a project's raw records with their leaves, a live
 *  tail of them, its latest signed checkpoint and the key that signs, and Merkle proofs. Read
 *  only: every role that sees the project, auditors included. */

export const DEFAULT_STREAM_LIMIT = 10_000;
export const MAX_STREAM_LIMIT = 100_000;
/** Records read from the log at a time: a replay of millions holds one page in memory (256
 *  replayed faster than 1,000: less alive at each scavenge). */
const PAGE = 256;
/** How often a live tail looks for new records, and sends a comment when there are none, so
 *  proxies keep the connection open. */
const TAIL_POLL_MS = 250;
const TAIL_HEARTBEAT_MS = 15_000;

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

const nextOf = (position: string) => (BigInt(position) + 1n).toString();

export const auditorRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const { tree } = deps.readModels;

  const project = async (ctx: Context & { state: AppState }, projectId: string) => {
    await visibleProjectFilter(deps.readModels.access, principalOf(ctx.state).scope, projectId);
    return projectId;
  };

  const pages = (projectId: string, from: string, limit: number) =>
    streamPages(tree, (positions) => deps.commands.log.readPositions(positions), projectId, from, limit, PAGE);

  /** Server-sent events: what there is, then what comes, until the client or the server leaves. */
  async function* tail(ctx: Context, projectId: string, from: string): AsyncGenerator<string> {
    let cursor = from;
    let quietSince = Date.now();
    const closed = () => ctx.req.destroyed || ctx.res.writableEnded || deps.draining?.aborted === true;
    while (!closed()) {
      let sent = false;
      for await (const page of pages(projectId, cursor, PAGE)) {
        yield page.map((line) => `id: ${line.position}\ndata: ${line.text}\n\n`).join('');
        cursor = nextOf(page[page.length - 1]!.position);
        sent = true;
      }
      if (sent) quietSince = Date.now();
      else {
        if (Date.now() - quietSince >= TAIL_HEARTBEAT_MS) {
          yield ': keep-alive\n\n';
          quietSince = Date.now();
        }
        await new Promise((r) => setTimeout(r, TAIL_POLL_MS));
      }
    }
  }

  router.get('/v1/stream', ...deps.jwt, async (ctx) => {
    const q = readQuery(ctx.query, StreamQuery);
    const projectId = await project(ctx, q.project_id);
    const head = await tree.head(projectId);
    ctx.set('Watchlog-Tree-Size', String(head?.frontier.size ?? 0));
    if (q.follow === 'true' || ctx.accepts('application/x-ndjson', 'text/event-stream') === 'text/event-stream') {
      const lastEventId = ctx.get('Last-Event-ID');
      const from = /^\d{1,20}$/.test(lastEventId) ? nextOf(lastEventId) : (q.from ?? '0');
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('X-Accel-Buffering', 'no');
      ctx.type = 'text/event-stream';
      ctx.req.socket.setTimeout(0);
      ctx.body = Readable.from(tail(ctx, projectId, from));
      return;
    }
    const from = q.from ?? '0';
    const limit = q.limit ?? DEFAULT_STREAM_LIMIT;
    const next = await tree.positionAfter(projectId, from, limit);
    if (next !== null) ctx.set('Watchlog-Next-From', next);
    ctx.type = 'application/x-ndjson';
    if (ctx.method === 'HEAD') {
      ctx.status = 200;
      return;
    }
    // Chunks of 64 lines (~80 KB) and one chunk buffered: each stays below V8's large-object size
    // and dies young, where whole pages of text filled the old generation between collections.
    ctx.body = Readable.from(
      (async function* () {
        for await (const page of pages(projectId, from, limit)) {
          for (let i = 0; i < page.length; i += 64)
            yield `${page
              .slice(i, i + 64)
              .map((line) => line.text)
              .join('\n')}\n`;
        }
      })(),
      { highWaterMark: 1 },
    );
  });

  router.get('/v1/checkpoints/key', ...deps.jwt, (ctx) => {
    readQuery(ctx.query, NoParameters);
    const key = deps.checkpointKey;
    ctx.body = {
      key_name: key.keyName,
      key_id: key.keyId.toString('hex'),
      verifier_key: key.verifierKey,
      public_key: key.publicKey.toString('base64'),
      public_key_pem: key.publicKeyPem,
    };
  });

  router.get('/v1/checkpoints/latest', ...deps.jwt, async (ctx) => {
    const { project_id } = readQuery(ctx.query, CheckpointQuery);
    const latest = await tree.latestCheckpoint(await project(ctx, project_id));
    if (latest === null)
      throw new HttpError(
        404,
        'not_found',
        'no checkpoint of this project yet: the first is signed within a second of its first record',
      );
    ctx.body = latest;
  });

  const readerOf =
    (projectId: string): NodeReader =>
    (level, index) =>
      tree.node(projectId, level, index);
  const treeSize = async (projectId: string) => (await tree.head(projectId))?.frontier.size ?? 0;
  const tooLarge = (field: string, size: number, treeSizeNow: number) =>
    validationError('query', [
      { path: field, message: `must be at most the tree's size, ${treeSizeNow} (asked ${size})` },
    ]);

  router.get('/v1/proofs/inclusion', ...deps.jwt, async (ctx) => {
    const q = readQuery(ctx.query, InclusionQuery);
    const projectId = await project(ctx, q.project_id);
    const size = await treeSize(projectId);
    if (q.size > size) throw tooLarge('size', q.size, size);
    if (q.index >= q.size)
      throw validationError('query', [{ path: 'index', message: `must be smaller than size (${q.size})` }]);
    const read = readerOf(projectId);
    ctx.body = {
      index: q.index,
      size: q.size,
      leaf_hash: (await read(0, q.index)).toString('base64'),
      proof: (await inclusionProof(read, q.index, q.size)).map((h) => h.toString('base64')),
    };
  });

  router.get('/v1/proofs/consistency', ...deps.jwt, async (ctx) => {
    const q = readQuery(ctx.query, ConsistencyQuery);
    const projectId = await project(ctx, q.project_id);
    const size = await treeSize(projectId);
    if (q.to > size) throw tooLarge('to', q.to, size);
    if (q.from > q.to) throw validationError('query', [{ path: 'from', message: `must be at most to (${q.to})` }]);
    ctx.body = {
      from: q.from,
      to: q.to,
      proof: (await consistencyProof(readerOf(projectId), q.from, q.to)).map((h) => h.toString('base64')),
    };
  });
};
