import test from 'ava';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import {
  EMPTY_FRONTIER,
  EMPTY_ROOT,
  appendLeaf,
  consistencyProof,
  frontierRoot,
  inclusionProof,
  leafBytes,
  leafHash,
  nodeHash,
  recordLeafHash,
  subtreeRoot,
  type Frontier,
  type Hash,
  type StoredNode,
} from '../../src/domain/merkle.ts';
import { verifyConsistency, verifyInclusion } from '../helpers/rfc9162.ts';

/** RFC 6962's MTH, written from the RFC's recursion, as the reference. */
const mth = (leaves: readonly Hash[]): Hash => {
  if (leaves.length === 0) return createHash('sha256').digest();
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
};

const build = (count: number) => {
  const leaves = Array.from({ length: count }, (_, i) => leafHash(Buffer.from(`leaf ${i}`)));
  let frontier: Frontier = EMPTY_FRONTIER;
  const stored = new Map<string, Hash>();
  for (const leaf of leaves) {
    const appended = appendLeaf(frontier, leaf);
    frontier = appended.frontier;
    for (const n of appended.completed as StoredNode[]) stored.set(`${n.level}:${n.index}`, n.hash);
  }
  const read = async (level: number, index: number) => {
    const hash = stored.get(`${level}:${index}`);
    if (!hash) throw new Error(`no node ${level}:${index}`);
    return hash;
  };
  return { leaves, frontier, read };
};

test("leaf and node hashes are RFC 6962's; the empty tree's root is SHA-256 of nothing", (t) => {
  t.is(EMPTY_ROOT.toString('hex'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  t.is(leafHash(Buffer.alloc(0)).toString('hex'), '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
  t.is(
    leafBytes({ stream: 's', revision: 0, id: 'i', type: 'T', data: { b: 1, a: 2 }, metadata: { z: true } }).toString(),
    '{"data":{"a":2,"b":1},"id":"i","metadata":{"z":true},"revision":0,"stream":"s","type":"T"}',
  );
});

test(
  'a node hashes 0x01 and its two children; ' + "a record's leaf hash in one step is the leaf hash of its leaf bytes",
  (t) => {
    const left = leafHash(Buffer.from('l'));
    const right = leafHash(Buffer.from('r'));
    t.deepEqual(
      nodeHash(left, right),
      createHash('sha256')
        .update(Buffer.from([1]))
        .update(left)
        .update(right)
        .digest(),
    );
    const record = fc.record({
      stream: fc.string(),
      revision: fc.nat(),
      id: fc.uuid(),
      type: fc.string(),
      // Keys JSON.parse gives, integer-like ones (which objects list first) and non-ASCII among them.
      data: fc.jsonValue(),
      metadata: fc.dictionary(fc.oneof(fc.string(), fc.nat().map(String), fc.constant('__proto__')), fc.jsonValue()),
    });
    fc.assert(
      fc.property(record, (r) => {
        const parsed = JSON.parse(JSON.stringify(r)) as typeof r;
        return recordLeafHash(parsed).equals(leafHash(leafBytes(parsed)));
      }),
      { numRuns: 500 },
    );
    t.pass();
  },
);

test("the frontier's root and every stored subtree agree with the RFC's recursion, for every size to 70", async (t) => {
  for (let n = 0; n <= 70; n += 1) {
    const { leaves, frontier, read } = build(n);
    t.deepEqual(frontierRoot(frontier), mth(leaves), `size ${n}`);
    t.deepEqual(await subtreeRoot(read, 0, n), mth(leaves), `size ${n} from stored nodes`);
    t.is(
      frontier.nodes.length,
      n
        .toString(2)
        .split('')
        .filter((b) => b === '1').length,
    );
  }
});

test('inclusion and consistency proofs verify by RFC 9162, and fail for an altered hash', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 300 }), fc.nat(), fc.nat(), async (size, a, b) => {
      const { leaves, read } = build(size);
      const root = mth(leaves);
      const index = a % size;
      const proof = await inclusionProof(read, index, size);
      t.true(verifyInclusion(index, size, leaves[index]!, proof, root));
      if (proof.length > 0) {
        const altered = proof.map((h, i) =>
          i === b % proof.length ? Buffer.from(h.map((x, j) => (j === 0 ? x ^ 1 : x))) : h,
        );
        t.false(verifyInclusion(index, size, leaves[index]!, altered, root));
      }
      const from = 1 + (b % size);
      const consistency = await consistencyProof(read, from, size);
      t.true(verifyConsistency(from, size, mth(leaves.slice(0, from)), root, consistency));
      if (consistency.length > 0) {
        const altered = consistency.map((h, i) =>
          i === a % consistency.length ? Buffer.from(h.map((x, j) => (j === 31 ? x ^ 0x80 : x))) : h,
        );
        t.false(verifyConsistency(from, size, mth(leaves.slice(0, from)), root, altered));
      }
    }),
    { numRuns: 150 },
  );
});
