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

/**
 * An IANA zone name: letters first, then letters, digits and `/_+-` (`Europe/Paris`, `Etc/GMT+5`, and the POSIX-style
 * names of the IANA database, `EST5EDT`, `PST8PDT`, `GMT0`). Not an offset (`+05:30`), which newer Intl accepts.
 */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9]*(?:[/_+-][A-Za-z0-9_+-]+)*$/;

/**
 * True when the runtime's ICU knows the IANA time zone (change windows, and infra/settings.ts for the schedules'
 * zone): `Europe/Pariss` is not one.
 */
export function knownTimeZone(timeZone: string): boolean {
  if (!ZONE_NAME.test(timeZone)) return false;
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
  return { day, weekday: weekdayOf(day), minute: (parts.hour ?? 0) * 60 + (parts.minute ?? 0) };
}

/** The weekday (0 = Monday ... 6 = Sunday) of a local date given as days since 1970-01-01. */
export function weekdayOf(day: number): number {
  // 1970-01-01 was a Thursday (index 3 with Monday as 0).
  return (((day + 3) % 7) + 7) % 7;
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

/**
 * True when the zone's offset is the same `spanMs` before and after `instantMs` as at it: no DST change near it (two
 * changes that cancel out within the span would pass unseen; no zone changes its offset twice in a few days).
 */
export function steadyOffset(instantMs: number, timeZone: string, spanMs: number): boolean {
  const at = offsetAt(instantMs, timeZone);
  return offsetAt(instantMs - spanMs, timeZone) === at && offsetAt(instantMs + spanMs, timeZone) === at;
}

/** Local date and time of an instant as one number: minutes since local 1970-01-01 00:00 (no zone). */
function wallMinute(instantMs: number, timeZone: string): number {
  const local = localTime(instantMs, timeZone);
  return local.day * 1440 + local.minute;
}

/**
 * The instant at which local `day` and `minute` begin or end in `timeZone`: `first`, the first instant showing it (the
 * earlier one in the hour an autumn change repeats); `last`, the last one (the later one). A time a spring change skips
 * is shown by no instant: both give the first instant after the gap, when the clock has passed it.
 */
export function wallInstant(day: number, minute: number, timeZone: string, which: 'first' | 'last'): number {
  const wall = day * 1440 + minute;
  const candidates = zonedInstants(day, minute, timeZone);
  const exact = candidates.filter((t) => wallMinute(t, timeZone) === wall);
  const pick = which === 'first' ? exact[0] : exact[exact.length - 1];
  if (pick !== undefined) return pick;
  // In a gap the candidates straddle it (the clock reads before `wall` at the first, after it at the last), and the
  // clock only moves forward in between: bisect to the first minute past it.
  let lo = Math.floor((candidates[0] ?? 0) / MINUTE_MS);
  let hi = Math.ceil((candidates[candidates.length - 1] ?? 0) / MINUTE_MS);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallMinute(mid * MINUTE_MS, timeZone) >= wall) hi = mid;
    else lo = mid;
  }
  return hi * MINUTE_MS;
}
