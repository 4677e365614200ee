import test from 'ava';
import { RRuleTemporal } from 'rrule-temporal';
import { occurrencesBetween } from '../../src/domain/maintenance-schedule.ts';
import { isoToWall, offsetAt, wallToIso, zonedText } from '../../web/src/pages/maintenance/zoned.ts';

/** The maintenance calendar's wall times (web/src/pages/maintenance/zoned.ts): the platform's Intl
 *  alone, checked across daylight-saving changes, and its DTSTART given to rrule-temporal as the
 *  calendar gives it, against the server's expansion of the same window. */

test('a wall time in a zone and back, on both sides of a daylight-saving change', (t) => {
  t.is(wallToIso('2026-03-28T02:00', 'Europe/Berlin'), '2026-03-28T01:00:00.000Z', 'winter: +01:00');
  t.is(wallToIso('2026-03-30T02:00', 'Europe/Berlin'), '2026-03-30T00:00:00.000Z', 'summer: +02:00');
  t.is(wallToIso('2026-11-02T09:30', 'America/New_York'), '2026-11-02T14:30:00.000Z');
  t.is(isoToWall('2026-03-30T00:00:00.000Z', 'Europe/Berlin'), '2026-03-30T02:00');
  t.is(isoToWall('2026-07-01T12:00:00Z', 'Asia/Kolkata'), '2026-07-01T17:30');
  t.is(offsetAt(Date.parse('2026-07-01T12:00:00Z'), 'Asia/Kolkata'), 5.5 * 3_600_000);
  t.is(zonedText('2026-09-06T00:00:00Z', 'Europe/Berlin'), '2026-09-06T02:00:00+02:00[Europe/Berlin]');
  t.is(wallToIso('2026-03-30T02:00', 'Not/AZone'), undefined);
  t.is(wallToIso('yesterday', 'UTC'), undefined);
  for (const wall of ['2026-01-15T08:45', '2026-06-15T23:59', '2026-10-25T01:30'])
    t.is(isoToWall(wallToIso(wall, 'Europe/London')!, 'Europe/London'), wall, wall);
});

test('the calendar expands a rule as the server does, across a daylight-saving change', (t) => {
  const schedule = {
    kind: 'recurring' as const,
    rrule: 'FREQ=WEEKLY;BYDAY=SU,WE',
    starts_at: wallToIso('2026-03-01T02:30', 'Europe/Berlin')!,
    duration_minutes: 60,
    timezone: 'Europe/Berlin',
  };
  const from = Date.parse('2026-03-01T00:00:00Z');
  const to = Date.parse('2026-04-30T00:00:00Z');
  const server = occurrencesBetween(schedule, from, to).map((o) => o.start);
  const rule = new RRuleTemporal({
    rruleString: schedule.rrule,
    dtstart: { timeZoneId: schedule.timezone, toString: () => zonedText(schedule.starts_at, schedule.timezone) },
  });
  const calendar = rule.between(new Date(from - 3_600_000), new Date(to), true).map((z) => z.epochMilliseconds);
  t.true(server.length > 10);
  t.deepEqual(calendar, server);
  t.true(
    calendar.map((ms) => isoToWall(new Date(ms).toISOString(), 'Europe/Berlin').slice(11)).every((w) => w === '02:30'),
    '02:30 Berlin time before and after the change',
  );
});
