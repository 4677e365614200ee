import test from 'ava';
import { BRUTE_FORCE, dailyWeight, demoTraffic, type DemoEvent } from '../../src/cli/demo-traffic.ts';
import { AuditEventInput } from '../../src/domain/audit-event.ts';

const NOW = Date.parse('2026-11-23T18:00:00Z');
const projects = { shop: 'shop', backoffice: 'office' };
const day = (total: number, batchSize?: number): DemoEvent[][] => [
  ...demoTraffic({ now: NOW, total, projects }, batchSize),
];

test('a day of traffic: the exact count, in the last 24 h, valid ingest payloads, batches in time order', (t) => {
  const batches = day(20_000, 4000);
  const events = batches.flat();
  t.is(events.length, 20_000);
  t.true(batches.every((b) => b.length <= 4000 + 40 && b.every((e, i) => i === 0 || b[i - 1]!.at <= e.at)));
  t.true(events.every((e) => e.at <= NOW && e.at >= NOW - 86_400_000));
  t.true(
    events.every((e) => AuditEventInput.is(e.input)),
    'every event is what POST /v1/audit accepts',
  );
  t.deepEqual(day(500), day(500), 'seeded: the same day twice');
});

test('its shape: services, error proportions, a latency tail, sessions, orphans, the daily curve', (t) => {
  const events = day(30_000).flat();
  const services = new Set(events.map((e) => e.input.service_name));
  t.deepEqual([...services].sort(), ['auth', 'billing', 'catalog', 'checkout-api', 'reports', 'storefront']);
  t.true(events.some((e) => e.projectId === 'office') && events.some((e) => e.projectId === 'shop'));
  const withStatus = events.filter((e) => e.input.status_code !== undefined);
  const share = (test: (s: number) => boolean) =>
    withStatus.filter((e) => test(e.input.status_code!)).length / withStatus.length;
  const clientErrors = share((s) => s >= 400 && s < 500);
  const serverErrors = share((s) => s >= 500);
  t.true(clientErrors > 0.01 && clientErrors < 0.1, `4xx ${clientErrors}`);
  t.true(serverErrors > 0.001 && serverErrors < 0.02, `5xx ${serverErrors}`);
  const times = events.map((e) => e.input.response_time ?? 0).sort((a, b) => a - b);
  t.true(
    times[Math.floor(times.length * 0.99)]! > 5 * times[Math.floor(times.length / 2)]!,
    'p99 well above the median',
  );
  t.true(events.filter((e) => e.input.session_id !== undefined).length > events.length / 3, 'explicit sessions');
  const backendIds = new Set(events.filter((e) => e.input.source === 'backend').map((e) => e.input.request_id));
  const browser = events.filter((e) => e.input.source === 'browser');
  const orphans = browser.filter((e) => !backendIds.has(e.input.request_id));
  t.true(orphans.length > 0 && orphans.length < browser.length / 20, `orphans ${orphans.length} of ${browser.length}`);
  const hourOf = (h: number) => events.filter((e) => new Date(e.at).getUTCHours() === h).length;
  t.true(hourOf(15) > 3 * hourOf(3), 'busier in the afternoon than at night');
  t.true(dailyWeight(Date.parse('2026-11-23T15:00:00Z')) > dailyWeight(Date.parse('2026-11-23T03:00:00Z')));
});

test('the brute force: one identifier, ten 401s or more within a minute, in the last 90 seconds', (t) => {
  const attack = day(1000)
    .flat()
    .filter((e) => e.input.identifier === BRUTE_FORCE.identifier && e.input.status_code === 401);
  t.is(attack.length, BRUTE_FORCE.attempts);
  t.true(attack.every((e) => e.at >= NOW - 90_000));
  const inAMinute = attack.filter((e) => e.at >= attack[0]!.at && e.at < attack[0]!.at + 60_000).length;
  t.true(inAMinute >= 10);
});
