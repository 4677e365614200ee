import test from 'ava';
import fc from 'fast-check';
import { consistencyProof, inclusionProof, leafHash as serverLeafHash } from '../../src/domain/merkle.ts';
import { serverTreeOf } from './fixtures.ts';
import {
  EMPTY_ROOT,
  StreamingRoot,
  leafHash,
  leafHashOfText,
  nodeHash,
  verifyConsistency,
  verifyInclusion,
} from '../../src/verify/tree.ts';

/** The hashing and proof checks, against RFC 6962's test vectors (as Certificate Transparency and
 *  transparency-dev/merkle publish them) and against the server's tree for random sizes. */

const h = (hex: string) => Buffer.from(hex, 'hex');
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(
  h,
);
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
].map(h);

test('RFC 6962 test vectors: the empty root, leaf hashes and the roots of 1 to 8 leaves', (t) => {
  t.is(EMPTY_ROOT.toString('hex'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  const tree = new StreamingRoot();
  t.deepEqual(tree.root(), EMPTY_ROOT);
  LEAVES.forEach((leaf, i) => {
    tree.append(leafHash(leaf));
    t.deepEqual(tree.root(), ROOTS[i], `size ${i + 1}`);
  });
  t.deepEqual(leafHashOfText('\u00e9'), leafHash(Buffer.from('\u00e9', 'utf8')), 'a text is hashed as its UTF-8 bytes');
});

test('RFC 6962 test vectors: inclusion and consistency proofs', (t) => {
  const path = [
    'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  ].map(h);
  t.true(verifyInclusion(5, 8, leafHash(LEAVES[5]!), path, ROOTS[7]!));
  t.false(verifyInclusion(4, 8, leafHash(LEAVES[5]!), path, ROOTS[7]!));
  t.true(verifyInclusion(2, 3, leafHash(LEAVES[2]!), [ROOTS[1]!], ROOTS[2]!));
  t.true(verifyInclusion(0, 1, leafHash(LEAVES[0]!), [], ROOTS[0]!));
  const consistency = [
    '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
    'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  ].map(h);
  t.true(verifyConsistency(6, 8, ROOTS[5]!, ROOTS[7]!, consistency));
  t.false(verifyConsistency(6, 8, ROOTS[4]!, ROOTS[7]!, consistency));
  t.true(
    verifyConsistency(
      2,
      5,
      ROOTS[1]!,
      ROOTS[4]!,
      [
        '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
        'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      ].map(h),
    ),
  );
  t.true(verifyConsistency(8, 8, ROOTS[7]!, ROOTS[7]!, []), 'a tree is consistent with itself');
  t.false(verifyConsistency(8, 8, ROOTS[7]!, ROOTS[6]!, []), 'not with another root of its size');
  t.true(verifyConsistency(0, 8, EMPTY_ROOT, ROOTS[7]!, []), 'the empty tree is a prefix of any');
  t.false(verifyConsistency(7, 6, ROOTS[6]!, ROOTS[5]!, consistency), 'no tree is a prefix of a smaller one');
});

/** The server's tree of `count` leaves: leaf hashes, roots per size, stored nodes for proofs. */
const serverTree = (count: number) => {
  const leaves = Array.from({ length: count }, (_, i) => serverLeafHash(Buffer.from(`leaf ${i}`)));
  return { leaves, ...serverTreeOf(leaves) };
};

test("the streaming root is the server's root at every size to 300, in O(log n) subtrees", (t) => {
  const { leaves, roots } = serverTree(300);
  const tree = new StreamingRoot();
  t.deepEqual(tree.root(), roots[0]);
  leaves.forEach((leaf, i) => {
    tree.append(leaf);
    t.deepEqual(tree.root(), roots[i + 1], `size ${i + 1}`);
  });
  t.is(tree.size, 300);
});

const TREE = serverTree(260);

/** A copy of the hash with one bit flipped. */
const flip = (hash: Uint8Array, bit: number): Buffer => {
  const copy = Buffer.from(hash);
  copy[Math.floor(bit / 8) % copy.length]! ^= 1 << (bit % 8);
  return copy;
};

test('property: every inclusion proof of the server verifies, and fails once any hash in it is altered', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 260 }).chain((size) => fc.tuple(fc.constant(size), fc.nat(size - 1), fc.nat(255))),
      async ([size, index, bit]) => {
        const proof = await inclusionProof(TREE.read, index, size);
        const leaf = TREE.leaves[index]!;
        const root = TREE.roots[size]!;
        if (!verifyInclusion(index, size, leaf, proof, root)) return false;
        if (verifyInclusion(index, size, flip(leaf, bit), proof, root)) return false;
        if (verifyInclusion(index, size, leaf, proof, flip(root, bit))) return false;
        for (let i = 0; i < proof.length; i += 1) {
          if (
            verifyInclusion(
              index,
              size,
              leaf,
              proof.map((p, j) => (j === i ? flip(p, bit) : p)),
              root,
            )
          )
            return false;
        }
        // Another leaf's hash, a shorter or a longer path, an index past the end: none verifies.
        if (size > 1 && verifyInclusion(index, size, TREE.leaves[(index + 1) % size]!, proof, root)) return false;
        if (proof.length > 0 && verifyInclusion(index, size, leaf, proof.slice(0, -1), root)) return false;
        if (verifyInclusion(index, size, leaf, [...proof, leaf], root)) return false;
        return !verifyInclusion(size, size, leaf, proof, root);
      },
    ),
    { numRuns: 400 },
  );
  t.pass();
});

test(
  'property: every consistency proof of the server verifies, ' + 'and fails once any hash in it is altered',
  async (t) => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 260 })
          .chain((to) => fc.tuple(fc.integer({ min: 1, max: to }), fc.constant(to), fc.nat(255))),
        async ([from, to, bit]) => {
          const proof = await consistencyProof(TREE.read, from, to);
          const [older, newer] = [TREE.roots[from]!, TREE.roots[to]!];
          if (!verifyConsistency(from, to, older, newer, proof)) return false;
          if (verifyConsistency(from, to, flip(older, bit), newer, proof)) return false;
          if (verifyConsistency(from, to, older, flip(newer, bit), proof)) return false;
          for (let i = 0; i < proof.length; i += 1) {
            if (
              verifyConsistency(
                from,
                to,
                older,
                newer,
                proof.map((p, j) => (j === i ? flip(p, bit) : p)),
              )
            )
              return false;
          }
          if (proof.length > 0 && verifyConsistency(from, to, older, newer, proof.slice(0, -1))) return false;
          if (verifyConsistency(from, to, older, newer, [...proof, older])) return false;
          // The proof of another pair of sizes does not pass for this one.
          if (from > 1 && from < to && verifyConsistency(from - 1, to, TREE.roots[from - 1]!, newer, proof))
            return false;
          return true;
        },
      ),
      { numRuns: 400 },
    );
    t.pass();
  },
);

test('node hashes are SHA-256(0x01 ‖ left ‖ right), which the second-preimage attack on leaves cannot reuse', (t) => {
  const [a, b] = [leafHash(LEAVES[0]!), leafHash(LEAVES[1]!)];
  t.deepEqual(nodeHash(a, b), ROOTS[1]);
  // The bytes of a node as a leaf hash to something else: leaves and nodes are told apart.
  t.notDeepEqual(leafHash(Buffer.concat([a, b])), ROOTS[1]);
});
