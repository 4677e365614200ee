import path from 'node:path';

/** The slowest test files, slowest first (their time on an idle 2-core machine): ava starts them
 *  first, so that the two workers end together rather than one running a long file alone at the
 *  end. The others follow in name order. */
const SLOWEST = [
  'test/web/overview.test.ts',
  'test/compose/workers.test.ts',
  'test/web/channels.test.ts',
  'test/compose/faults.test.ts',
  'test/web/monitors.test.ts',
  'test/compose/tamper.test.ts',
  'test/e2e/server.test.ts',
];

const rank = (file) => {
  const at = SLOWEST.indexOf(
    path
      .relative(import.meta.dirname, file)
      .split(path.sep)
      .join('/'),
  );
  return at === -1 ? SLOWEST.length : at;
};

export default {
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  files: ['test/**/*.test.ts'],
  timeout: '2m',
  workerThreads: false,
  sortTestFiles: (a, b) => rank(a) - rank(b) || a.localeCompare(b, [], { numeric: true }),
};
