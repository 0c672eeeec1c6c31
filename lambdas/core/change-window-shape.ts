/**
 * The shape check of change windows read back from somewhere this run did not validate them (a desired-state cache
 * entry, a saved plan): what window evaluation relies on, so a malformed one is refused by path, never evaluated.
 */
import { isRecord } from '../../shared/is-record.ts';
import { parseClock, parseInstant } from './change-windows.ts';
import { knownTimeZone, WEEKDAYS } from './zoned-time.ts';

const DAYS: ReadonlySet<string> = new Set(WEEKDAYS);

function windowProblem(w: unknown, at: string): string | undefined {
  if (!isRecord(w)) return `${at} is not an object`;
  if (typeof w.name !== 'string' || w.name === '') return `${at}.name is not a name`;
  if (w.kind !== 'allow' && w.kind !== 'deny') return `${at}.kind is not allow or deny`;
  if (w.projects !== undefined && (!Array.isArray(w.projects) || !w.projects.every((p) => typeof p === 'string')))
    return `${at}.projects is not a list of project ids`;
  if (w.from !== undefined || w.until !== undefined) {
    const from = typeof w.from === 'string' ? parseInstant(w.from) : undefined;
    const until = typeof w.until === 'string' ? parseInstant(w.until) : undefined;
    if (from === undefined || until === undefined || from >= until) return `${at} has no from before until`;
    if (w.days !== undefined || w.start !== undefined || w.end !== undefined || w.timeZone !== undefined)
      return `${at} is both absolute and weekly`;
    return undefined;
  }
  if (!Array.isArray(w.days) || w.days.length === 0 || !w.days.every((d) => typeof d === 'string' && DAYS.has(d)))
    return `${at}.days is not a list of days`;
  if (typeof w.start !== 'string' || parseClock(w.start) === undefined) return `${at}.start is not HH:MM`;
  if (typeof w.end !== 'string' || parseClock(w.end) === undefined) return `${at}.end is not HH:MM`;
  if (typeof w.timeZone !== 'string' || !knownTimeZone(w.timeZone)) return `${at}.timeZone is not a known time zone`;
  return undefined;
}

/** The first problem of `v` as a list of change windows (`at` names it), or undefined. */
export function changeWindowsProblem(v: unknown, at: string): string | undefined {
  if (!Array.isArray(v)) return `${at} is not a list`;
  for (const [i, w] of v.entries()) {
    const problem = windowProblem(w, `${at}[${i}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
