import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  EMPTY_FRONTIER,
  appendLeaf,
  consistencyProof,
  frontierRoot,
  inclusionProof,
  leafBytes,
  leafHash,
  type Frontier,
  type Hash,
  type LeafRecord,
} from '../../src/domain/merkle.ts';

/** Fixtures made the server's way (src/domain/merkle.ts builds the tree, node:crypto signs notes
 *  in the format of docs/auditors.md), for the independent verifier to check. */

export interface Signer {
  readonly name: string;
  /** `<name>+<key id>+<base64(0x01 ‖ key)>`. */
  readonly verifierKey: string;
  readonly publicKeyPem: string;
  /** The signed note of a text: text, blank line, `— <name> <base64(key id ‖ signature)>`. */
  sign(text: string): string;
}

export const newSigner = (name = 'watchlog.test'): Signer => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const typeAndKey = Buffer.concat([Buffer.from([0x01]), raw]);
  const keyId = createHash('sha256')
    .update(Buffer.concat([Buffer.from(name), Buffer.from([0x0a]), typeAndKey]))
    .digest()
    .subarray(0, 4);
  return {
    name,
    verifierKey: `${name}+${keyId.toString('hex')}+${typeAndKey.toString('base64')}`,
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    sign: (text) => {
      const signature = Buffer.concat([keyId, sign(null, Buffer.from(text), privateKey)]).toString('base64');
      return `${text}\n\u2014 ${name} ${signature}\n`;
    },
  };
};

export const checkpointText = (origin: string, size: number, root: Hash) =>
  `${origin}\n${size}\n${root.toString('base64')}\n`;

export const PROJECT = '0b7c2a4e-5d1f-4c3b-9a8e-1f2d3c4b5a69';
export const ORIGIN = `watchlog.test/projects/${PROJECT}`;

/** A project's i-th record: several event types, nested data with keys out of order, non-ASCII
 *  text, fractions, arrays, an empty object. */
export const makeRecord = (i: number): LeafRecord & { position: string; recorded_at: string } => {
  const recordedAt = new Date(Date.UTC(2026, 10, 24, 12) + i * 1000).toISOString();
  const common = {
    metadata: { recorded_at: recordedAt, actor: i % 3 === 0 ? 'api-key' : 'user', correlation: { z: i, a: null } },
    position: String(100 + i * 3),
    recorded_at: recordedAt,
  };
  if (i === 0)
    return {
      ...common,
      stream: `project-${PROJECT}`,
      revision: 0,
      type: 'ProjectCreated',
      id: `evt-${i}`,
      data: { project_id: PROJECT, name: 'Boutique Zoë — €', created_at: recordedAt },
    };
  if (i % 7 === 0) {
    return {
      ...common,
      stream: `monitor-m${i % 5}`,
      revision: Math.floor(i / 7),
      type: 'CheckRecorded',
      id: `evt-${i}`,
      data: { project_id: PROJECT, monitor_id: `m${i % 5}`, up: i % 2 === 0, latency_ms: 12.5 + i / 8, status: 200 },
    };
  }
  return {
    ...common,
    stream: `audit-${PROJECT}`,
    revision: i,
    type: 'AuditEventRecorded',
    id: `evt-${i}`,
    data: {
      project_id: PROJECT,
      event_type: 'http_request',
      timestamp: recordedAt,
      path: `/api/orders/${i}`,
      method: i % 4 === 0 ? 'DELETE' : 'POST',
      status_code: 200 + (i % 5),
      response_time: i / 3,
      identifier: `user-${i % 11}@example.com`,
      service_name: 'checkout-api',
      environment: 'production',
      source: 'server',
      user_roles: ['customer', i % 2 === 0 ? 'admin' : 'ŝtaff'],
      request_body: { zeta: 'ω', alpha: [1, 2.25, -0, 1e21, { y: true, x: 'emoji 😀' }], Beta: {} },
    },
  };
};

export interface BuiltLog {
  readonly records: ReturnType<typeof makeRecord>[];
  readonly leaves: Hash[];
  /** The root of the first n leaves, for every n from 0 to the size. */
  readonly roots: Hash[];
  /** The NDJSON lines of GET /v1/stream. */
  readonly lines: string[];
  checkpoint(size: number, signer: Signer, origin?: string): string;
  inclusion(index: number, size: number): Promise<{ index: number; size: number; leaf_hash: string; proof: string[] }>;
  consistency(from: number, to: number): Promise<{ from: number; to: number; proof: string[] }>;
}

export const streamLine = (index: number, r: ReturnType<typeof makeRecord>, leaf: Hash): string =>
  JSON.stringify({
    leaf_index: index,
    position: r.position,
    stream: r.stream,
    revision: r.revision,
    type: r.type,
    id: r.id,
    data: r.data,
    metadata: r.metadata,
    recorded_at: r.recorded_at,
    leaf_hash: leaf.toString('base64'),
  });

export const missingLine = (index: number, r: ReturnType<typeof makeRecord>, leaf: Hash): string =>
  JSON.stringify({ leaf_index: index, position: r.position, missing: true, leaf_hash: leaf.toString('base64') });

/** The server's tree of `leaves`, appended as the server appends them: the root of every size
 *  from 0, and a reader of the stored nodes for proofs. */
export const serverTreeOf = (leaves: readonly Hash[]) => {
  let frontier: Frontier = EMPTY_FRONTIER;
  const stored = new Map<string, Hash>();
  const roots = [frontierRoot(frontier)];
  for (const leaf of leaves) {
    const appended = appendLeaf(frontier, leaf);
    frontier = appended.frontier;
    for (const n of appended.completed) stored.set(`${n.level}:${n.index}`, n.hash);
    roots.push(frontierRoot(frontier));
  }
  return { roots, read: async (level: number, index: number) => stored.get(`${level}:${index}`)! };
};

/** A tree of `count` records, built by appending leaves as the server does. */
export const buildLog = (count: number): BuiltLog => {
  const records = Array.from({ length: count }, (_, i) => makeRecord(i));
  const leaves = records.map((r) => leafHash(leafBytes(r)));
  const { roots, read } = serverTreeOf(leaves);
  return {
    records,
    leaves,
    roots,
    lines: records.map((r, i) => streamLine(i, r, leaves[i]!)),
    checkpoint: (size, signer, origin = ORIGIN) => signer.sign(checkpointText(origin, size, roots[size]!)),
    inclusion: async (index, size) => ({
      index,
      size,
      leaf_hash: leaves[index]!.toString('base64'),
      proof: (await inclusionProof(read, index, size)).map((h) => h.toString('base64')),
    }),
    consistency: async (from, to) => ({
      from,
      to,
      proof: (await consistencyProof(read, from, to)).map((h) => h.toString('base64')),
    }),
  };
};

/** A temporary directory, removed when the test ends. */
export const tempFiles = (t: { teardown(fn: () => void): void }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'watchlog-verify-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return (name: string, content: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
  };
};
