import { parentPort } from 'node:worker_threads';
import { checkBatch } from './leaf.ts';

/** A worker thread of stream verification: checks the batches stream.ts sends it, in the order
 *  they come, and sends each result back with its arrays transferred rather than copied. */

export interface BatchRequest {
  readonly bytes: Uint8Array;
  readonly allowMissing: boolean;
}

parentPort!.on('message', ({ bytes, allowMissing }: BatchRequest) => {
  const result = checkBatch(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), allowMissing);
  parentPort!.postMessage(result, [result.codes.buffer, result.indexes.buffer, result.hashes.buffer]);
});
