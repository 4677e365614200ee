import test from 'ava';
import { createWatchlog, DEFAULTS, WatchlogConfigError, type WatchlogOptions } from '../src/index.ts';
import { backoffDelay, parseRetryAfter } from '../src/backoff.ts';
import { startReceiver } from './helpers/receiver.ts';
import { captureLogger, testOptions } from './helpers/setup.ts';

const valid: WatchlogOptions = {
  endpoint: 'https://watchlog.example.com',
  apiKey: 'wl_live_abc',
  serviceName: 'shop',
  environment: 'production',
};

const problemsOf = (options: unknown): Record<string, string> => {
  const error = (() => {
    try {
      createWatchlog(options as WatchlogOptions);
    } catch (e) {
      return e;
    }
    return undefined;
  })();
  if (!(error instanceof WatchlogConfigError)) throw new Error('expected a WatchlogConfigError');
  return Object.fromEntries(error.problems.map((p) => [p.option, p.message]));
};

test('valid options give a client with zeroed stats', async (t) => {
  const watchlog = createWatchlog(valid);
  t.deepEqual(watchlog.stats(), {
    queued: 0,
    sent: 0,
    replayed: 0,
    rejected: 0,
    dropped: 0,
    skippedMethods: 0,
    retries: 0,
    failures: 0,
    pending: 0,
  });
  await watchlog.close({ timeoutMs: 10 });
});

test('one error lists every faulty option, and never echoes the API key', (t) => {
  const problems = problemsOf({
    endpoint: 'ftp://watchlog.example.com',
    apiKey: 'has space secret',
    serviceName: '',
    environment: 'prod',
    batchMaxEvents: 5000,
    maxQueueEvents: -1,
    flushIntervalMs: 1.5,
    captureBodies: 'yes',
    unsupportedMethods: 'map',
    logger: {},
    identify: () => 'x',
    servcieName: 'typo',
  });
  t.deepEqual(
    Object.keys(problems).sort(),
    [
      'apiKey',
      'batchMaxEvents',
      'captureBodies',
      'endpoint',
      'environment',
      'flushIntervalMs',
      'identify',
      'logger',
      'maxQueueEvents',
      'serviceName',
      'servcieName',
      'unsupportedMethods',
    ].sort(),
  );
  t.regex(problems.environment!, /one of production, staging, development \(got "prod"\)/);
  t.regex(problems.endpoint!, /http or https/);
  t.regex(problems.batchMaxEvents!, /from 1 to 1000 \(got 5000\)/);
  t.regex(problems.identify!, /watchlog\.express\(\{ identify \}\)/);
  t.is(problems.servcieName, 'unknown option');
  t.false(JSON.stringify(problems).includes('secret'));
  const error = t.throws(() => createWatchlog({ ...valid, environment: 'prod' as 'production' }), {
    instanceOf: WatchlogConfigError,
  });
  t.is(
    error?.message,
    'invalid watchlog options:\n  - environment: must be one of production, staging, development (got "prod")',
  );
});

test(
  'missing options are named; ' + 'so are an endpoint with credentials or a query, and a retry range upside down',
  (t) => {
    t.deepEqual(Object.keys(problemsOf({})).sort(), ['apiKey', 'endpoint', 'environment', 'serviceName']);
    t.regex(problemsOf({ ...valid, endpoint: 'https://user:pw@h.example' }).endpoint!, /credentials/);
    t.regex(problemsOf({ ...valid, endpoint: 'https://h.example/?a=1' }).endpoint!, /without a query/);
    t.regex(problemsOf({ ...valid, endpoint: 'not a url' }).endpoint!, /http\(s\) URL/);
    t.regex(
      problemsOf({ ...valid, retryInitialDelayMs: 1000, retryMaxDelayMs: 500 }).retryMaxDelayMs!,
      /at least retryInitialDelayMs/,
    );
    t.regex(problemsOf(null).options!, /must be an object/);
  },
);

test('the documented defaults', (t) => {
  t.like(DEFAULTS, {
    maxBodyBytes: { default: 16384 },
    batchMaxEvents: { default: 500 },
    batchMaxBytes: { default: 1048576 },
    flushIntervalMs: { default: 1000 },
    maxQueueEvents: { default: 10000 },
    retryInitialDelayMs: { default: 500 },
    retryMaxDelayMs: { default: 30000 },
    requestTimeoutMs: { default: 10000 },
  });
});

test('an endpoint with a path prefix keeps it', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const watchlog = createWatchlog(testOptions(`${receiver.url}/watchlog/`, { logger: captureLogger().logger }));
  watchlog.record({ path: '/x', method: 'GET' });
  await watchlog.close();
  t.is(receiver.requests[0]!.path, '/watchlog/v1/audit/batch');
});

test('backoff: full jitter under a doubling cap; Retry-After in seconds or as a date', (t) => {
  t.is(
    backoffDelay(0, 500, 30_000, () => 0.999),
    499,
  );
  t.is(
    backoffDelay(3, 500, 30_000, () => 0.5),
    2000,
  );
  t.is(
    backoffDelay(20, 500, 30_000, () => 0.999),
    29_970,
  );
  t.is(
    backoffDelay(5, 500, 30_000, () => 0),
    0,
  );
  t.is(parseRetryAfter('3'), 3000);
  t.is(parseRetryAfter(undefined), undefined);
  t.is(parseRetryAfter('soon'), undefined);
  t.is(parseRetryAfter('99999'), 300_000, 'capped at five minutes');
  const inTwo = parseRetryAfter(new Date(Date.now() + 2000).toUTCString())!;
  t.true(inTwo > 500 && inTwo <= 2000);
});
