/**
 * The months the usage archive covers, in UTC: the current month up to today, and the month before it, which a run
 * completes ("closes") with a read of the whole month once the month is over.
 */

/** A month (`YYYY-MM`) and the dates (ISO, inclusive at both ends, as Ops Manager takes them) a read covers. */
export interface MonthRange {
  month: string;
  startDate: string;
  endDate: string;
}

/** The month of `now` (UTC) and its date range up to `now`'s day. */
export function monthRange(now: Date): MonthRange {
  const iso = now.toISOString();
  const month = iso.slice(0, 7);
  return { month, startDate: `${month}-01`, endDate: iso.slice(0, 10) };
}

/**
 * The month before `now`'s (UTC), whole: from its first to its last day, and `closedAt`, the instant it ended (the
 * first of `now`'s month, 00:00 UTC). A read made before `closedAt` missed the end of the month.
 */
export function previousMonthRange(now: Date): MonthRange & { closedAt: Date } {
  const closedAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  // Day 0 of the current month is the last day of the previous one (31 December for a January run).
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0)).toISOString().slice(0, 10);
  const month = last.slice(0, 7);
  return { month, startDate: `${month}-01`, endDate: last, closedAt };
}
