import fs from 'node:fs';
import path from 'node:path';

/** The slowest test files, slowest first (each took 11 s or more in a full run): ava starts them
 *  first, so that the two workers end together rather than one running a long file alone at the
 *  end. The others follow in name order. A file that grows slow belongs here. */
const SLOWEST = [
  'test/compose/faults.test.ts',
  'test/reactors/sinks.test.ts',
  'test/e2e/server.test.ts',
  'test/compose/tamper.test.ts',
  'test/compose/admin-cli.test.ts',
  'test/compose/workers.test.ts',
  'test/http/export.test.ts',
  'test/http/anomaly-detection.test.ts',
  'test/web/overview.test.ts',
  'test/web/channels.test.ts',
  'test/web/monitors.test.ts',
  'test/web/monitor-kinds.test.ts',
  'test/web/events.test.ts',
  'test/web/docs.test.ts',
  'test/compose/shutdown.test.ts',
  'test/compose/demo.test.ts',
  'test/web/login.test.ts',
  'test/web/public-status-page.test.ts',
  'test/http/public/page-browser.test.ts',
  'test/web/incidents-maintenance.test.ts',
  'test/web/status-pages.test.ts',
  'test/http/limits.test.ts',
  'test/compose/online-rebuild.test.ts',
  'test/http/openapi/answers.test.ts',
  'test/web/settings.test.ts',
  'test/compose/self-monitor.test.ts',
  'test/compose/metrics-cli.test.ts',
  'test/web/anomalies-users.test.ts',
  'test/compose/readiness-process.test.ts',
  'test/http/monitor-restart.test.ts',
  'test/verify/stream.test.ts',
  'test/http/monitor-checks.test.ts',
  'test/http/monitor-kinds.test.ts',
  'test/e2e/startup.test.ts',
  'test/sdk/outage.test.ts',
  'test/docker-compose.test.ts',
  'test/compose/retention.test.ts',
  'test/sdk/exactly-once/express.test.ts',
  'test/sdk/exactly-once/fastify.test.ts',
  'test/sdk/exactly-once/koa.test.ts',
  'test/e2e/jobs.test.ts',
  'test/log/sqlite.test.ts',
];

/** A test file's place in the repository as its TypeScript: `test/x.test.ts` for itself and for
 *  its compiled twin `dist/test/x.test.js`. */
const sourceOf = (file) => {
  const relative = path
    .relative(import.meta.dirname, file)
    .split(path.sep)
    .join('/');
  return relative.startsWith('dist/') ? relative.slice('dist/'.length).replace(/\.js$/, '.ts') : relative;
};

const rank = (file) => {
  const at = SLOWEST.indexOf(sourceOf(file));
  return at === -1 ? SLOWEST.length : at;
};

/** `npx ava test/x.test.ts` runs tests from their TypeScript through tsx. `npm test` runs them
 *  compiled (`WATCHLOG_TESTS=compiled`, after its tsc has emitted dist/test/): a test process then
 *  starts, and starts its threads, in about half the CPU time. Only the files whose TypeScript is
 *  still there run, so a test deleted or renamed since an older build does not run from dist/. */
const compiled = process.env.WATCHLOG_TESTS === 'compiled';
const TEST_FILES = 'test/**/*.test.ts';
const testSources = () =>
  fs
    .readdirSync(path.join(import.meta.dirname, 'test'), { recursive: true })
    .map((file) => `test/${String(file).split(path.sep).join('/')}`)
    .filter((file) => file.endsWith('.test.ts'));

export default {
  extensions: compiled ? ['js'] : { ts: 'module' },
  nodeArguments: compiled ? [] : ['--import=tsx'],
  files: compiled ? testSources().map((file) => `dist/${file.replace(/\.ts$/, '.js')}`) : [TEST_FILES],
  timeout: '2m',
  workerThreads: false,
  sortTestFiles: (a, b) => rank(a) - rank(b) || sourceOf(a).localeCompare(sourceOf(b), [], { numeric: true }),
};
