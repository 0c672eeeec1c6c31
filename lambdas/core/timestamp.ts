/**
 * Ops Manager's timestamps (`created`, `updated`: "ISO 8601 UTC" in the spec) read as instants. `Date.parse` is too
 * lenient for an answer's text: it reads a timestamp without a zone in the local time zone (the spec says UTC), takes
 * `5` or `Mon, 1` for a date of 2001, and rolls 30 February over into March.
 */

/**
 * An ISO 8601 date and time: `T` (or `t`, or a space, as RFC 3339 allows), seconds optional, any number of fractional
 * digits (Java emits micro- and nanoseconds; read to the millisecond), and `Z`/`z`, `+HH:MM`, `+HHMM`, `+HH` or no
 * zone at all.
 */
const TIMESTAMP =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})[Tt ](?<hour>\d{2}):(?<minute>\d{2})(?::(?<second>\d{2})(?:[.,](?<fraction>\d+))?)?(?<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * The instant (ms since the epoch) of an ISO 8601 timestamp, or null when `text` is not one: a date alone, a day the
 * month does not have, hour 24, an offset beyond 18 hours. Without a zone it is UTC, as the spec describes the API's
 * timestamps.
 */
export function parseTimestamp(text: string): number | null {
  const groups = TIMESTAMP.exec(text)?.groups;
  if (groups === undefined) return null;
  const year = Number(groups.year);
  const month = Number(groups.month);
  const day = Number(groups.day);
  const hour = Number(groups.hour);
  const minute = Number(groups.minute);
  const second = Number(groups.second ?? '0');
  const millis = Number((groups.fraction ?? '').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 60)
    return null;
  const offset = offsetMinutes(groups.zone);
  if (offset === null) return null;
  const utc = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, millis);
  return utc.getTime() - offset * 60_000;
}

/** Days of a month (1-12) in the proleptic Gregorian calendar. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Minutes east of UTC of a zone designator (none and `Z` are 0); null beyond ±18:00 or with minutes over 59. */
function offsetMinutes(zone: string | undefined): number | null {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  if (minutes > 59 || hours * 60 + minutes > 18 * 60) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

/** The instant of an Ops Manager `created`, for ordering; one absent or not a time sorts after every dated one. */
function createdInstant(created: string | undefined): number {
  return (created === undefined ? null : parseTimestamp(created)) ?? Number.POSITIVE_INFINITY;
}

/**
 * The order of creation of Ops Manager objects: oldest `created` first, by instant (the text does not sort: Java's
 * `Instant` writes `…44Z` at a whole second and `…44.500Z` half a second later, which sorts first as text), then
 * lowest id; one without a readable `created` after every dated one. `export` numbers the keys of one event type in
 * this order and adoption hands equal unowned configs out in it, so the two must be this one function.
 */
export function creationOrder(a: { id: string; created?: string }, b: { id: string; created?: string }): number {
  const x = createdInstant(a.created);
  const y = createdInstant(b.created);
  if (x !== y) return x < y ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
