import test from 'ava';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MASK, maskValue } from '../src/index.ts';

/** packages/conformance/masking.json: the cases every implementation of these rules passes. */

interface MaskingFile {
  mask: string;
  cases: { name: string; input: unknown; output: unknown }[];
}

const vectors = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../conformance/masking.json', import.meta.url)), 'utf8'),
) as MaskingFile;

test('the vectors mask with MASK', (t) => {
  t.is(vectors.mask, MASK);
});

for (const c of vectors.cases) {
  test(`masking.json: ${c.name}`, (t) => {
    t.deepEqual(maskValue(c.input), c.output);
    t.deepEqual(maskValue(c.output), c.output, 'masking twice is masking once');
  });
}
