import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { type NodeReader, consistencyProof, inclusionProof } from '../../domain/merkle.ts';
import { streamPages } from '../../views/tree/port.ts';
import type { RouteDeps } from '../deps.ts';
import { HttpError, validationError } from '../middleware/errors.ts';
import { DEFAULT_STREAM_LIMIT, type auditorOperations } from '../operations/auditors.ts';
import { type Handlers, ok } from '../operations/operation.ts';

/** Records read from the log at a time: a replay of millions holds one page in memory (256
 *  replayed faster than 1,000: less alive at each scavenge). */
const PAGE = 256;
/** How often a live tail looks for new records, and sends a comment when there are none, so
 *  proxies keep the connection open. */
const TAIL_POLL_MS = 250;
const TAIL_HEARTBEAT_MS = 15_000;

const nextOf = (position: string) => (BigInt(position) + 1n).toString();

const pages = (deps: RouteDeps, projectId: string, from: string, limit: number) =>
  streamPages(
    deps.readModels.tree,
    (positions) => deps.commands.log.readPositions(positions),
    projectId,
    from,
    limit,
    PAGE,
  );

/** Server-sent events: what there is, then what comes, until the client or the server leaves. */
async function* tail(deps: RouteDeps, ctx: Context, projectId: string, from: string): AsyncGenerator<string> {
  let cursor = from;
  let quietSince = Date.now();
  const closed = () => ctx.req.destroyed || ctx.res.writableEnded || deps.draining?.aborted === true;
  while (!closed()) {
    let sent = false;
    for await (const page of pages(deps, projectId, cursor, PAGE)) {
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

const readerOf =
  (deps: RouteDeps, projectId: string): NodeReader =>
  (level, index) =>
    deps.readModels.tree.node(projectId, level, index);
const treeSize = async (deps: RouteDeps, projectId: string) =>
  (await deps.readModels.tree.head(projectId))?.frontier.size ?? 0;
const tooLarge = (field: string, size: number, treeSizeNow: number) =>
  validationError('query', [
    { path: field, message: `must be at most the tree's size, ${treeSizeNow} (asked ${size})` },
  ]);

/** The auditors' endpoints: `mount` has checked that the caller sees `project_id`. */
export const auditorHandlers: Handlers<typeof auditorOperations, RouteDeps> = {
  stream: async ({ query: q, ctx }, deps) => {
    const projectId = q.project_id;
    // The tree's projection lags the log by a batch: without this wait, a replay right after an
    // acknowledged ingest could end before that record (503 not_yet_visible when it stays behind).
    await deps.caughtUp(['tree'], null);
    const head = await deps.readModels.tree.head(projectId);
    ctx.set('Watchlog-Tree-Size', String(head?.frontier.size ?? 0));
    if (q.follow === 'true' || ctx.accepts('application/x-ndjson', 'text/event-stream') === 'text/event-stream') {
      const lastEventId = ctx.get('Last-Event-ID');
      const from = /^\d{1,20}$/.test(lastEventId) ? nextOf(lastEventId) : (q.from ?? '0');
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('X-Accel-Buffering', 'no');
      ctx.type = 'text/event-stream';
      ctx.req.socket.setTimeout(0);
      return ok(Readable.from(tail(deps, ctx, projectId, from)));
    }
    const from = q.from ?? '0';
    const limit = q.limit ?? DEFAULT_STREAM_LIMIT;
    const next = await deps.readModels.tree.positionAfter(projectId, from, limit);
    if (next !== null) ctx.set('Watchlog-Next-From', next);
    ctx.type = 'application/x-ndjson';
    if (ctx.method === 'HEAD') return { status: 200 };
    // Chunks of 64 lines (~80 KB) and one chunk buffered: each stays below V8's large-object size
    // and dies young, where whole pages of text filled the old generation between collections.
    return ok(
      Readable.from(
        (async function* () {
          for await (const page of pages(deps, projectId, from, limit)) {
            for (let i = 0; i < page.length; i += 64)
              yield `${page
                .slice(i, i + 64)
                .map((line) => line.text)
                .join('\n')}\n`;
          }
        })(),
        { highWaterMark: 1 },
      ),
    );
  },

  key: (_, { checkpointKey: key }) =>
    ok({
      key_name: key.keyName,
      key_id: key.keyId.toString('hex'),
      verifier_key: key.verifierKey,
      public_key: key.publicKey.toString('base64'),
      public_key_pem: key.publicKeyPem,
    }),

  latestCheckpoint: async ({ query: { project_id } }, deps) => {
    const latest = await deps.readModels.tree.latestCheckpoint(project_id);
    if (latest === null)
      throw new HttpError(
        404,
        'not_found',
        'no checkpoint of this project yet: the first is signed within a second of its first record',
      );
    return ok(latest);
  },

  inclusionProof: async ({ query: q }, deps) => {
    const size = await treeSize(deps, q.project_id);
    if (q.size > size) throw tooLarge('size', q.size, size);
    if (q.index >= q.size)
      throw validationError('query', [{ path: 'index', message: `must be smaller than size (${q.size})` }]);
    const read = readerOf(deps, q.project_id);
    return ok({
      index: q.index,
      size: q.size,
      leaf_hash: (await read(0, q.index)).toString('base64'),
      proof: (await inclusionProof(read, q.index, q.size)).map((h) => h.toString('base64')),
    });
  },

  consistencyProof: async ({ query: q }, deps) => {
    const size = await treeSize(deps, q.project_id);
    if (q.to > size) throw tooLarge('to', q.to, size);
    if (q.from > q.to) throw validationError('query', [{ path: 'from', message: `must be at most to (${q.to})` }]);
    return ok({
      from: q.from,
      to: q.to,
      proof: (await consistencyProof(readerOf(deps, q.project_id), q.from, q.to)).map((h) => h.toString('base64')),
    });
  },
};
