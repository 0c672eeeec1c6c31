/**
 * The time window of drift attribution's events query: from the target's `lastReconciledAt`, or, when the state has
 * none (its last apply had a failure, a drift stood, or the state predates the field), from what the state knows of
 * the tool's own writes to the drifted objects; with nothing known, no lower bound but a capped read.
 */
import type { Change } from './model.ts';
import type { OwnedAlertConfig } from './ports.ts';

/**
 * How far the tool's clock may run ahead of Ops Manager's. `lastReconciledAt` is the tool's time and `created` is
 * Ops Manager's: without this margin an edit stamped by a server a minute behind would fall before the bound.
 */
export const CLOCK_SKEW_ALLOWANCE_MS = 5 * 60_000;

/**
 * Most events one attribution query reads, with or without a lower bound (the name is older than the cap on bounded
 * windows): 2,000, four pages at the client's default 500 per page. Events
 * come newest first, and the drift being explained is the latest change to its object, so its authors are among the
 * newest events; a project's config edits rarely reach 2,000 in its whole history, while a project with years of
 * them would otherwise cost every run (and every one of 1,000 projects) a full history read, again and again, for as
 * long as the target lacks its bound. A lower bound does not make the read small: it is the target's last clean
 * reconcile, which a target in observe mode, or with a blocked change standing, keeps for months or years.
 */
export const UNBOUNDED_EVENTS_LIMIT = 2_000;

/**
 * A time as the events' lower bound: less {@link CLOCK_SKEW_ALLOWANCE_MS}, floored to the second (Ops Manager stamps
 * events in whole seconds, and `minDate` is inclusive). The wider window cannot blame an edit we overwrote since:
 * events older than our own last write to the object are dropped (see `attributeDrift`).
 */
export function eventsSince(lastReconciledAt: string | undefined): string | undefined {
  if (lastReconciledAt === undefined) return undefined;
  const ms = Date.parse(lastReconciledAt);
  if (Number.isNaN(ms)) return undefined;
  const bound = ms - CLOCK_SKEW_ALLOWANCE_MS;
  return new Date(Math.floor(bound / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The events query's window: `minDate`, or none with the read capped at {@link UNBOUNDED_EVENTS_LIMIT} events. */
export type EventsWindow = { minDate: string; capped: false } | { minDate: undefined; capped: true };

/** The newest write of the tool to an owned record that the state remembers (creation or adoption), in ms. */
function newestOwnWrite(record: OwnedAlertConfig | undefined): number | undefined {
  const times = [record?.createdAt, record?.adoptedAt]
    .map((t) => (t === undefined ? Number.NaN : Date.parse(t)))
    .filter((ms) => !Number.isNaN(ms));
  return times.length === 0 ? undefined : Math.max(...times);
}

/**
 * The window for the drifted `changes` of one target. `lastReconciledAt` first. Without it, the oldest of the drifted
 * records' newest remembered writes: a drift is a change made after the tool last wrote its object, and that last
 * write was no earlier than the record's newest `createdAt`/`adoptedAt` (an update since is not stamped, so the bound
 * may be older than needed, never newer). Not sound, and so not used: the newest time over all the target's
 * records (one drifted record may be far older than another record's creation), nor the state's `updatedAt` (it moves
 * on every run, failed ones too, past a drift made before them). A drifted object without a remembered write (a
 * singleton, a record from an older state) leaves no bound: the read is then capped.
 */
export function eventsWindow(
  changes: readonly Change[],
  lastReconciledAt: string | undefined,
  records: Readonly<Record<string, OwnedAlertConfig>> = {},
): EventsWindow {
  const reconciled = eventsSince(lastReconciledAt);
  if (reconciled !== undefined) return { minDate: reconciled, capped: false };
  let oldest = Number.POSITIVE_INFINITY;
  for (const change of changes) {
    const written = change.kind === 'alertConfig' ? newestOwnWrite(records[change.key]) : undefined;
    if (written === undefined) return { minDate: undefined, capped: true };
    oldest = Math.min(oldest, written);
  }
  const minDate = Number.isFinite(oldest) ? eventsSince(new Date(oldest).toISOString()) : undefined;
  return minDate === undefined ? { minDate: undefined, capped: true } : { minDate, capped: false };
}
