/**
 * Wall-clock time in an IANA time zone, with Intl only (no time-zone database of our own): the local date, weekday
 * and minute of an instant, and the instants a local date and time may name (none, one or two around a DST change).
 */

/** Weekday names, Monday first, as change windows spell them. */
export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
/** One weekday name. */
export type Weekday = (typeof WEEKDAYS)[number];

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The local calendar date and time of an instant in a time zone. */
export interface LocalTime {
  /** Days since 1970-01-01 of the local date (a plain day count: no zone). */
  day: number;
  /** 0 = Monday ... 6 = Sunday. */
  weekday: number;
  /** Minutes since local midnight, 0-1439. */
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when the runtime's ICU knows the IANA time zone (as infra/settings.ts checks it): `Europe/Pariss` is not one. */
export function knownTimeZone(timeZone: string): boolean {
  if (!/^[A-Za-z]+(?:[/_+-][A-Za-z0-9_+-]+)*$/.test(timeZone)) return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The local date and time of `instantMs` (seconds dropped) in `timeZone`. */
export function localTime(instantMs: number, timeZone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(instantMs))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const day = Math.floor(Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1) / DAY_MS);
  // 1970-01-01 was a Thursday (index 3 with Monday as 0).
  const weekday = (((day + 3) % 7) + 7) % 7;
  return { day, weekday, minute: (parts.hour ?? 0) * 60 + (parts.minute ?? 0) };
}

/** The zone's offset from UTC at `instantMs`, in ms (local minus UTC). */
function offsetAt(instantMs: number, timeZone: string): number {
  const floored = Math.floor(instantMs / MINUTE_MS) * MINUTE_MS;
  const local = localTime(floored, timeZone);
  return local.day * DAY_MS + local.minute * MINUTE_MS - floored;
}

/**
 * Every instant that could show local `day` (days since the epoch) and `minute` in `timeZone`: the one it names, two
 * in the hour a DST change repeats, and around one that skips it, the instants on either side of the gap. Callers
 * test each against what they need (a candidate list, not an answer).
 */
export function zonedInstants(day: number, minute: number, timeZone: string): number[] {
  const wall = day * DAY_MS + minute * MINUTE_MS;
  const offsets = new Set<number>();
  for (const probe of [wall - DAY_MS, wall, wall + DAY_MS]) offsets.add(offsetAt(probe, timeZone));
  for (const o of [...offsets]) offsets.add(offsetAt(wall - o, timeZone));
  return [...offsets].map((o) => wall - o).sort((a, b) => a - b);
}
