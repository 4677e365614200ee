import test from 'ava';
import { readFileSync } from 'node:fs';
import { eventMasker, maskValue } from '../../src/domain/masking.ts';
import { repoPath } from '../helpers/root.ts';

/** packages/conformance/masking.json, the built-in rules every implementation shares, through
 *  the server's masking with no project rules: what it stores is what the SDKs send. */

interface MaskingFile {
  mask: string;
  cases: { name: string; input: unknown; output: unknown }[];
}

const vectors = JSON.parse(readFileSync(repoPath('packages/conformance/masking.json'), 'utf8')) as MaskingFile;

/** An event's masking takes objects: a case's input, whatever it is, sits under a plain key. */
const HOLDER = 'value';
const noProjectRules = eventMasker({ keys: new Set(), values: null });

for (const c of vectors.cases) {
  test(`masking.json: ${c.name}`, (t) => {
    t.deepEqual(maskValue(c.input), c.output);
    t.deepEqual(eventMasker(null)({ [HOLDER]: c.input }), { [HOLDER]: c.output });
    t.deepEqual(noProjectRules({ [HOLDER]: c.input }), { [HOLDER]: c.output });
  });
}

test('masking.json has a case for every rule it is meant to pin', (t) => {
  t.is(vectors.mask, '********');
  t.true(vectors.cases.length >= 15);
  t.is(new Set(vectors.cases.map((c) => c.name)).size, vectors.cases.length, 'names are unique');
});
