import test from 'ava';
import { isRecorded, isUnder, toPrefix } from '../src/match.ts';

const prefix = (s: string) => toPrefix(new URL(s));
const url = (s: string) => new URL(s);

test('an origin covers all of it; a prefix covers whole path segments only', (t) => {
  t.true(isUnder(url('https://api.example.com/orders/1?x=2'), prefix('https://api.example.com')));
  t.false(
    isUnder(url('http://api.example.com/orders'), prefix('https://api.example.com')),
    'scheme is part of the origin',
  );
  t.false(isUnder(url('https://api.example.com:8443/orders'), prefix('https://api.example.com')), 'so is the port');
  const api = prefix('https://example.com/api');
  t.true(isUnder(url('https://example.com/api'), api));
  t.true(isUnder(url('https://example.com/api/orders'), api));
  t.false(isUnder(url('https://example.com/apiary'), api));
  t.true(isUnder(url('https://example.com/api/x'), prefix('https://example.com/api/')));
  t.false(isUnder(url('https://example.com/api'), prefix('https://example.com/api/')));
});

test('calls to watchlog are never recorded, even on a backend origin; other origins are not either', (t) => {
  const backends = [prefix('https://example.com')];
  const watchlog = prefix('https://example.com/watchlog');
  t.true(isRecorded(url('https://example.com/api/orders'), backends, watchlog));
  t.false(isRecorded(url('https://example.com/watchlog/v1/audit/batch'), backends, watchlog));
  t.false(isRecorded(url('https://cdn.example.com/app.js'), backends, watchlog));
  t.false(isRecorded(url('data:text/plain,hi'), backends, watchlog));
});
