import test from 'ava';
import { applyServerHeapSettings } from '../../src/compose/heap.ts';

test("the server's heap growth is set unless the node command line sets its own", (t) => {
  t.false(applyServerHeapSettings(['--heap-growing-percent=40']), "the operator's flag is kept");
  t.false(applyServerHeapSettings(['--inspect', '--heap_growing_percent=10']), 'in either spelling');
  t.true(applyServerHeapSettings(['--max-old-space-size=512']), 'other flags do not count');
});
