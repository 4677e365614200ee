import test from 'ava';
import { DEFAULTS, resolveOptions } from '../src/options.ts';

const valid = {
  endpoint: 'https://watchlog.example.com/',
  apiKey: 'wl_public',
  serviceName: 'storefront',
  environment: 'production',
  backends: ['https://api.example.com', 'https://example.com/api/v2'],
};

test(
  'valid options resolve, with the defaults, ' + 'the endpoint without its trailing slash, backends as origin and path',
  (t) => {
    const o = resolveOptions(valid);
    t.is(o.endpoint, 'https://watchlog.example.com');
    t.deepEqual(o.watchlog, { origin: 'https://watchlog.example.com', path: '/' });
    t.deepEqual(o.backends, [
      { origin: 'https://api.example.com', path: '/' },
      { origin: 'https://example.com', path: '/api/v2' },
    ]);
    t.like(o, {
      apiKey: 'wl_public',
      serviceName: 'storefront',
      environment: 'production',
      identify: undefined,
      ...DEFAULTS,
    });
    t.deepEqual(DEFAULTS, { flushIntervalMs: 5000, maxBatch: 50, maxQueue: 1000, maxRetries: 5 });
  },
);

test('relative URLs resolve against the page; without a page address they are refused', (t) => {
  const o = resolveOptions(
    { ...valid, endpoint: '/watchlog', backends: ['/api'] },
    'https://shop.example.com/cart?x=1',
  );
  t.is(o.endpoint, 'https://shop.example.com/watchlog');
  t.deepEqual(o.backends, [{ origin: 'https://shop.example.com', path: '/api' }]);
  const e = t.throws(() => resolveOptions({ ...valid, backends: ['/api'] }), { instanceOf: TypeError });
  t.regex(
    e.message,
    /backends\[0\] must be an http\(s\) URL without query or fragment \(absolute: there is no page address\)/,
  );
});

test('one TypeError names every faulty option, each with its rule', (t) => {
  const e = t.throws(
    () =>
      resolveOptions({
        endpoint: 'ftp://x',
        apiKey: '',
        serviceName: 'x'.repeat(256),
        environment: 'prod',
        backends: ['https://ok.example.com', 'https://a.example.com/?q=1', 42],
        identify: 'me',
        flushIntervalMs: 120_000,
        maxBatch: 0,
        maxQueue: 1.5,
        maxRetries: '3',
        flushInterval: 100,
      }),
    { instanceOf: TypeError },
  );
  t.is(
    e.message,
    '@watchlog/browser: invalid options: ' +
      'flushInterval is not a known option; ' +
      'endpoint must be an http(s) URL without query or fragment (absolute: there is no page address); ' +
      'apiKey must be a string of 1 to 1000 characters; ' +
      'serviceName must be a string of 1 to 255 characters; ' +
      'environment must be one of production, staging, development; ' +
      'backends[1] must be an http(s) URL without query or fragment (absolute: there is no page address); ' +
      'backends[2] must be an http(s) URL without query or fragment (absolute: there is no page address); ' +
      'identify must be a function; ' +
      'flushIntervalMs must be an integer from 100 to 60000; ' +
      'maxBatch must be an integer from 1 to 1000; ' +
      'maxQueue must be an integer from 1 to 100000; ' +
      'maxRetries must be an integer from 0 to 20',
  );
});

test('missing options and non-objects are refused', (t) => {
  t.regex(
    t.throws(() => resolveOptions(undefined))!.message,
    /options must be an object;.*endpoint.*apiKey.*serviceName.*environment.*backends must be a non-empty array/,
  );
  t.regex(
    t.throws(() => resolveOptions({ ...valid, backends: [] }))!.message,
    /backends must be a non-empty array of origins or URL prefixes$/,
  );
});
