import { Readable } from 'node:stream';
import { loadConfig } from '../config.ts';
import { checkpointSigner } from '../domain/checkpoint.ts';
import { checkpointsStream } from '../domain/streams.ts';
import { streamLines } from '../views/tree/port.ts';
import type { Output } from '../verify/cli.ts';
import { NoteError, openCheckpoint, parseVerifierKey, type Checkpoint } from '../verify/note.ts';
import { verifyStream } from '../verify/stream.ts';
import { loadOrCreateCheckpointSeed } from '../compose/secrets.ts';
import { openStoppedDeployment } from '../compose/stores.ts';

/** `watchlog verify --data-dir DIR`: the server's own check of a stopped embedded deployment.
 *  Each project's records, read from `log.db`, with the leaves the tree read model holds for them
 *  (`views.db`), are checked by the offline verifier (src/verify/) as an auditor's replay would
 *  be, against the latest checkpoint the log holds for the project, signed by this deployment's
 *  key. It finds records edited, deleted, reordered or cut off in the log, a tree altered to
 *  match them, and checkpoints not signed by the key. It cannot tell a history rewritten by
 *  someone who also holds the key: that is what witnesses are for. */
export const verifyDataDir = async (dir: string, io: Output): Promise<number> => {
  const deployment = openStoppedDeployment(dir);
  if (deployment === null) {
    io.err(`watchlog verify: ${dir} holds no embedded deployment (log.db and views.db)`);
    return 2;
  }
  const { log, tree } = deployment;
  try {
    const config = loadConfig({ ...process.env, WATCHLOG_DATA_DIR: dir });
    const signer = checkpointSigner(
      config.checkpoints.logOrigin,
      config.checkpoints.seed ?? loadOrCreateCheckpointSeed(dir),
    );
    const key = parseVerifierKey(signer.verifierKey);
    let failed = 0;
    const heads = await tree.heads();
    for (const head of heads) {
      const project = head.project_id;
      const checkpoints = (await log.readStream(checkpointsStream(project))).filter(
        (e) => e.type === 'CheckpointSigned',
      );
      const latest = checkpoints[checkpoints.length - 1];
      if (latest === undefined) {
        io.out(`project ${project}: no checkpoint yet (${head.frontier.size} leaves not signed)`);
        continue;
      }
      let checkpoint: Checkpoint;
      try {
        checkpoint = openCheckpoint((latest.data as { note: string }).note, [key]);
      } catch (error) {
        if (!(error instanceof NoteError)) throw error;
        failed += 1;
        io.err(
          `project ${project}: FAILED: its latest checkpoint (log position ${latest.position}) is not ` +
            `signed by this deployment's key: ${error.message}`,
        );
        continue;
      }
      const lines = streamLines(tree, (positions) => log.readPositions(positions), project, '0', checkpoint.size);
      // A record retention or an erasure replaced is accepted by the leaf hash its tombstone
      // keeps; a record that is simply gone (a deleted row) is not.
      let deleted: { index: number; position: string } | null = null;
      const input = Readable.from(
        (async function* () {
          for await (const line of lines) {
            // The text test only picks the lines worth parsing: a record's own data may say it too.
            if (deleted === null && line.text.includes('"missing":true')) {
              const gone = JSON.parse(line.text) as {
                leaf_index: number;
                position: string;
                missing?: unknown;
                reason?: string;
              };
              if (gone.missing === true && gone.reason === undefined)
                deleted = { index: gone.leaf_index, position: gone.position };
            }
            yield `${line.text}\n`;
          }
        })(),
      );
      const result = await verifyStream(input, [checkpoint], { allowMissing: true, threads: 0 });
      const removed = result.ok ? result.report.missing : 0;
      if (result.ok && deleted !== null) {
        failed += 1;
        const { index, position } = deleted as { index: number; position: string };
        io.err(
          `project ${project}: FAILED (missing): leaf ${index} (position ${position}) is missing: the log ` +
            `has neither the record nor a retention or erasure tombstone in its place`,
        );
      } else if (result.ok) {
        io.out(
          `project ${project}: verified ${checkpoint.size} leaves against its checkpoint of ` +
            `${latest.data && (latest.data as { signed_at: string }).signed_at}${
              removed > 0
                ? ` (${removed} removed by retention or erasure, verified by the leaf hashes their tombstones keep)`
                : ''
            }`,
        );
      } else {
        failed += 1;
        io.err(`project ${project}: FAILED (${result.failure.kind}): ${result.failure.message}`);
      }
    }
    if (heads.length === 0) io.out('no project has records yet');
    return failed === 0 ? 0 : 1;
  } finally {
    await deployment.close();
  }
};
