/** Wall times in an IANA time zone, by the platform's Intl alone (no date library in the initial
 *  bundle): what a `datetime-local` input shows of an instant there, and back. */

const pad = (n: number) => String(n).padStart(2, '0');

const formats = new Map<string, Intl.DateTimeFormat>();
const formatIn = (zone: string): Intl.DateTimeFormat => {
  let f = formats.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, f);
  }
  return f;
};

/** The browser's own zone (the default of a recurring window's). */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

export const isZone = (zone: string): boolean => {
  try {
    formatIn(zone);
    return true;
  } catch {
    return false;
  }
};

/** The zone's wall clock at `ms`, as epoch milliseconds read as if UTC. */
const wallOf = (ms: number, zone: string): number => {
  const parts = Object.fromEntries(
    formatIn(zone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  return Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
};

/** The zone's offset from UTC at `ms`, in milliseconds (+02:00 is 7,200,000). */
export const offsetAt = (ms: number, zone: string): number =>
  wallOf(Math.floor(ms / 1000) * 1000, zone) - Math.floor(ms / 1000) * 1000;

/** `2026-09-06T02:00` as `datetime-local` shows it, for the instant `iso` in `zone`. */
export const isoToWall = (iso: string, zone: string): string => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || !isZone(zone)) return '';
  const d = new Date(wallOf(ms, zone));
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`
  );
};

/** The instant at which `zone`'s clocks read `wall` (`2026-09-06T02:00`), as ISO; undefined when
 *  the text or the zone is not one. A wall time skipped by a daylight-saving change is read with
 *  the offset before it. */
export const wallToIso = (wall: string, zone: string): string | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(wall);
  if (m === null || !isZone(zone)) return undefined;
  const asUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  let ms = asUtc - offsetAt(asUtc, zone);
  ms = asUtc - offsetAt(ms, zone);
  return new Date(ms).toISOString();
};

/** `+02:00` for an offset in milliseconds. */
export const offsetText = (offsetMs: number): string => {
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  return `${offsetMs < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
};

/** RFC 9557 text of the instant in the zone (`2026-09-06T02:00:00+02:00[Europe/Berlin]`): what a
 *  Temporal.ZonedDateTime is read from. */
export const zonedText = (iso: string, zone: string): string => {
  const ms = Date.parse(iso);
  const d = new Date(wallOf(ms, zone));
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${date}T${time}${offsetText(offsetAt(ms, zone))}[${zone}]`;
};
