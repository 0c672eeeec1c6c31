/**
 * Change windows (Argo CD's sync windows): at an instant, a target is held (its writes are not made) when a matching
 * `deny` window is open, or when at least one `allow` window matches it and none of them is open. Weekly windows are
 * read on the wall clock of their time zone (Intl, zoned-time.ts), so they follow DST; absolute ones are instants.
 * Pure: the caller gives the instant (the Clock's: a plan's start, an apply's writes' start).
 */
import { type ChangeWindow, DEFAULT_WINDOW_TIME_ZONE, type TargetRef, type WindowHold } from './model.ts';
import { localTime, steadyOffset, WEEKDAYS, wallInstant, weekdayOf, zonedInstants } from './zoned-time.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Most eight-day steps the search for the end of a hold takes before it is said to be unknown. */
const HORIZON_STEPS = 200;
/**
 * Eight-day steps walked past the last absolute edge while weekly windows take part: a year, so every DST change of
 * their zones is met once. Weekly windows repeat week after week only between two such changes: an allow window in one
 * zone covered by a deny window in another (or the same) can come free after one, weeks ahead.
 */
const YEAR_STEPS = 46;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))$/i;

/** The instant of an RFC 3339 date-time with `Z` or an offset, or undefined (no offset, or no such day or time). */
export function parseInstant(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return undefined;
  if (h > 23 || mi > 59 || s > 59) return undefined;
  const oh = m[10] === undefined ? 0 : Number(m[10]);
  const om = m[11] === undefined ? 0 : Number(m[11]);
  if (oh > 23 || om > 59) return undefined;
  const offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * MINUTE_MS;
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  return day.getTime() + ((h * 60 + mi) * 60 + s) * 1000 + fraction - offset;
}

/** Minutes since midnight of `HH:MM` (00:00-23:59), or undefined. */
export function parseClock(text: string): number | undefined {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return m === null ? undefined : Number(m[1]) * 60 + Number(m[2]);
}

/** True when the window applies to the target: no `projects` list (every target), or one naming this project. */
export function windowMatches(window: ChangeWindow, target: TargetRef): boolean {
  if (window.projects === undefined) return true;
  return target.type === 'project' && window.projects.includes(target.id);
}

/**
 * True when the window is open at `ms`: absolute, from <= ms < until; weekly, during one of its occurrences. An
 * occurrence runs from the first instant the wall clock of its zone shows `start` on a listed day to the last instant
 * it shows `end` (that day, or the next when end <= start): one interval, also when the autumn change repeats an hour
 * (02:00-03:00 every Sunday is open two hours that night, not twice). A time the spring change skips counts from the
 * first minute after the gap.
 */
export function windowOpen(window: ChangeWindow, ms: number): boolean {
  if (window.from !== undefined && window.until !== undefined) {
    const from = parseInstant(window.from);
    const until = parseInstant(window.until);
    return from !== undefined && until !== undefined && from <= ms && ms < until;
  }
  const start = parseClock(window.start ?? '');
  const end = parseClock(window.end ?? '');
  if (start === undefined || end === undefined || window.days === undefined) return false;
  const tz = window.timeZone ?? DEFAULT_WINDOW_TIME_ZONE;
  const local = localTime(ms, tz);
  const on = (day: number) => window.days?.includes(WEEKDAYS[weekdayOf(day)] as (typeof WEEKDAYS)[number]) === true;
  // The occurrences that can contain `ms` lie within two days of it. Without a DST change there, wall time is UTC
  // shifted by one offset and the occurrences read directly off the clock (the common case, and 4x cheaper).
  if (steadyOffset(ms, tz, 2 * DAY_MS)) {
    if (end > start) return on(local.day) && local.minute >= start && local.minute < end;
    return (on(local.day) && local.minute >= start) || (on(local.day - 1) && local.minute < end);
  }
  const today = local.day;
  // end <= start: the occurrence ends on the next day (end == start: a whole day). With a repeated hour an occurrence
  // can reach past its end day's wall-clock date by that hour, so two days back and one ahead are looked at.
  const endDay = end > start ? 0 : 1;
  for (let day = today - 2; day <= today + 1; day++) {
    if (!on(day)) continue;
    if (wallInstant(day, start, tz, 'first') <= ms && ms < wallInstant(day + endDay, end, tz, 'last')) return true;
  }
  return false;
}

/** Instants in (after, before] at which the window may open or close (a superset: callers test the predicate). */
function windowEdges(window: ChangeWindow, after: number, before: number): number[] {
  if (window.from !== undefined && window.until !== undefined) {
    return [parseInstant(window.from), parseInstant(window.until)].filter(
      (t): t is number => t !== undefined && t > after && t <= before,
    );
  }
  const tz = window.timeZone ?? DEFAULT_WINDOW_TIME_ZONE;
  const minutes = [parseClock(window.start ?? ''), parseClock(window.end ?? '')].filter(
    (m): m is number => m !== undefined,
  );
  const first = localTime(after, tz).day - 1;
  const last = first + Math.ceil((before - after) / DAY_MS) + 3;
  const edges: number[] = [];
  for (let day = first; day <= last; day++) {
    for (const minute of minutes) {
      // Around a skipped hour these fall on either side of the gap; the bisection in holdEnd finds the jump.
      for (const t of zonedInstants(day, minute, tz)) if (t > after && t <= before) edges.push(t);
    }
  }
  return edges;
}

/** Whether `target` is held at `ms` by these (matching) windows, and by which. */
function heldBy(windows: readonly ChangeWindow[], ms: number): Pick<WindowHold, 'kind' | 'windows'> | undefined {
  const denies = windows.filter((w) => w.kind === 'deny' && windowOpen(w, ms));
  if (denies.length > 0) return { kind: 'deny', windows: denies.map((w) => w.name) };
  const allows = windows.filter((w) => w.kind === 'allow');
  if (allows.length > 0 && !allows.some((w) => windowOpen(w, ms)))
    return { kind: 'allow', windows: allows.map((w) => w.name) };
  return undefined;
}

/**
 * The first instant after `ms` at which the windows no longer hold, to the minute, or undefined when none is found
 * (an allow window that never opens again, or a hold beyond the horizon). Edges are walked in order; between two
 * edges the state is constant except at a DST jump, so the first free edge is refined by bisection on minutes.
 */
function holdEnd(windows: readonly ChangeWindow[], ms: number): number | undefined {
  const absolute = windows.filter((w) => w.from !== undefined && w.until !== undefined);
  const weekly = absolute.length < windows.length;
  let from = ms;
  let sinceAbsolute = 0;
  for (let step = 0; step < HORIZON_STEPS; step++) {
    const to = from + 8 * DAY_MS;
    const edges = [...new Set(windows.flatMap((w) => windowEdges(w, from, to)))].sort((a, b) => a - b);
    let previous = from;
    for (const edge of edges) {
      if (heldBy(windows, edge) === undefined) {
        let lo = Math.floor(previous / MINUTE_MS);
        let hi = Math.ceil(edge / MINUTE_MS);
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          if (heldBy(windows, mid * MINUTE_MS) === undefined) hi = mid;
          else lo = mid;
        }
        return hi * MINUTE_MS;
      }
      previous = edge;
    }
    if (absolute.some((w) => windowEdges(w, from, to).length > 0)) {
      from = to;
      sinceAbsolute = 0;
      continue;
    }
    // Weekly windows repeat between DST changes only: walked on for a year before the state is taken as settled.
    if (weekly && sinceAbsolute < YEAR_STEPS) {
      from = to;
      sinceAbsolute++;
      continue;
    }
    // Settled: no end until the next absolute edge.
    const later = absolute.flatMap((w) => windowEdges(w, to, Number.MAX_SAFE_INTEGER)).sort((a, b) => a - b)[0];
    if (later === undefined) return undefined;
    from = later - MINUTE_MS;
    sinceAbsolute = 0;
  }
  return undefined;
}

/**
 * Whether `target` is held at `ms`: the windows that hold it and, when it can be computed, the instant the hold ends.
 * Undefined when it may be written.
 */
export function windowHold(windows: readonly ChangeWindow[], target: TargetRef, ms: number): WindowHold | undefined {
  const matching = windows.filter((w) => windowMatches(w, target));
  const held = heldBy(matching, ms);
  if (held === undefined) return undefined;
  const end = holdEnd(matching, ms);
  return end === undefined ? held : { ...held, until: new Date(end).toISOString() };
}

/** The target a target key (`project:<id>`, `organization:<id>`, `global:global`) names, enough to match windows. */
export function targetOfKey(key: string): TargetRef {
  const at = key.indexOf(':');
  return { type: key.slice(0, at) as TargetRef['type'], id: key.slice(at + 1), name: key };
}

/** The holds of the targets with these keys at instant `at` (ISO); only held targets appear. */
export function windowHolds(
  windows: readonly ChangeWindow[] | undefined,
  keys: Iterable<string>,
  at: string,
): Record<string, WindowHold> {
  const holds: Record<string, WindowHold> = {};
  if (windows === undefined || windows.length === 0) return holds;
  const ms = Date.parse(at);
  // Targets matching the same windows share a hold: computed once per set (thousands of projects, a few sets).
  const bySet = new Map<string, WindowHold | undefined>();
  for (const key of keys) {
    const target = targetOfKey(key);
    const set = windows.flatMap((w, i) => (windowMatches(w, target) ? [i] : [])).join(',');
    if (!bySet.has(set)) bySet.set(set, windowHold(windows, target, ms));
    const hold = bySet.get(set);
    if (hold !== undefined) holds[key] = hold;
  }
  return holds;
}

/** How a hold is said: `held by change window year-end-freeze (deny) until 2027-01-04T08:00:00.000Z`. */
export function holdText(hold: WindowHold): string {
  const names = hold.windows.join(', ');
  const until = hold.until === undefined ? 'with no end in sight' : `until ${hold.until}`;
  return hold.kind === 'deny'
    ? `held by change window ${names} (deny) ${until}`
    : `held outside allow window${hold.windows.length > 1 ? 's' : ''} ${names} ${until}`;
}
