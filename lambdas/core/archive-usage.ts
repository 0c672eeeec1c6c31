/**
 * Archives usage per month, in two objects: `usage/<YYYY-MM>/physical-hosts.json` and
 * `usage/<YYYY-MM>/host-assignments.json` (every managed project's host assignments from the first of the month to
 * today, one entry per project, sorted by groupId).
 *
 * One object for all projects, not one per project: a daily archive of 1,000 projects was 1,000 writes (1,000 S3 PUTs
 * on AWS; locally 1,000 fsyncs, about 0.7 s of kernel CPU on a 2-core machine) to store about 1 MB. The month's
 * document is replaced whole on every run, so a reader never sees half of one run and half of another.
 *
 * Nothing already archived this month is lost: every entry of the stored document that this run did not read again (a
 * failed read, a project no longer managed, a run limited to some projects) is carried over unchanged, with its own
 * `endDate` and `fetchedAt` and any field a later version added to it; a failed read is reported. When every read
 * fails, the stored document is left as it is, and so is one of a newer `formatVersion` (reported: usage-document.ts).
 *
 * The previous month is closed: a daily run at 00:05 UTC reads the 31st before it is over, and a run that failed on
 * the last days of a month would leave it short for good. So, while the previous month's document exists and a
 * managed project's entry in it was read before that month ended (or it has none), the run reads those projects
 * again for the whole month (first to last day) and rewrites that document the same way. Once every entry was read
 * after the month's end, the month is closed and no longer read: in practice, one extra read per project on the
 * first run of a month.
 */

import { errorMessage, mapLimit } from './concurrency.ts';
import { jsonChunks } from './json-chunks.ts';
import type { ArchiveStore, OpsManagerApi } from './ports.ts';
import { printable } from './printable.ts';
import {
  ASSIGNMENTS_FORMAT_VERSION,
  type AssignmentEntry,
  type AssignmentsDocument,
  carriedEntries,
} from './usage-document.ts';
import { type MonthRange, monthRange, previousMonthRange } from './usage-months.ts';

/**
 * Assignment reads handed to the client at once. The client's own limiter caps the requests in flight; this only
 * bounds its queue, so that each later page of the physical hosts waits behind a few dozen reads, not behind every
 * project (it would otherwise be read last, one page after another, with the rest of the pipe idle). Well above the
 * client's usual concurrency (8), so its slots never go idle for want of queued reads.
 */
export const ASSIGNMENT_READS_QUEUED = 64;

/** The key of a month's host assignments document. */
export function assignmentsKey(month: string): string {
  return `usage/${month}/host-assignments.json`;
}

/** Writes `value` as indented JSON with a final newline, streamed when the store can. */
async function writeJson(archive: ArchiveStore, key: string, value: unknown): Promise<void> {
  const options = { contentType: 'application/json' };
  if (archive.putPieces !== undefined) {
    const pieces = function* () {
      yield* jsonChunks(value, { indent: 2, splitDepth: 3 });
      yield '\n';
    };
    await archive.putPieces(key, pieces(), options);
  } else {
    await archive.put(key, `${JSON.stringify(value, null, 2)}\n`, options);
  }
}

/** What one month's host assignments document became in a run. */
interface MonthOutcome {
  /** The key, when the document was written. */
  key: string | undefined;
  /** Entries in the written document (carried-over ones included). */
  written: number;
  errors: string[];
}

/**
 * Reads the host assignments of `projectIds` over `range` and writes the month's document, carrying over every
 * stored entry of the month that this run did not read. Failures are returned as messages, never thrown.
 */
async function archiveMonthAssignments(
  api: OpsManagerApi,
  archive: ArchiveStore,
  projectIds: readonly string[],
  range: MonthRange,
  fetchedAt: string,
  names: ReadonlyMap<string, string>,
): Promise<MonthOutcome> {
  const { month, startDate, endDate } = range;
  const read = new Map<string, AssignmentEntry>();
  const failed = new Map<string, string>();
  await mapLimit(projectIds, ASSIGNMENT_READS_QUEUED, async (groupId) => {
    try {
      const results = await api.listProjectHostAssignments(groupId, startDate, endDate);
      read.set(groupId, { groupId, endDate, fetchedAt, results });
    } catch (error) {
      failed.set(groupId, errorMessage(error));
    }
  });
  const problems: string[] = [];
  const key = assignmentsKey(month);
  let written = 0;
  let stored: string | undefined;
  let kept = new Map<string, string>();
  if (read.size > 0) {
    try {
      const carried = await carriedEntries(archive, key, month, (groupId) => !read.has(groupId));
      if (carried.problem !== undefined) problems.push(carried.problem);
      kept = new Map(carried.entries.map((e) => [e.groupId, e.fetchedAt]));
      const projects = [...read.values(), ...carried.entries].sort((a, b) =>
        a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0,
      );
      const document: AssignmentsDocument = {
        formatVersion: ASSIGNMENTS_FORMAT_VERSION,
        month,
        startDate,
        fetchedAt,
        projects,
      };
      await writeJson(archive, key, document);
      stored = key;
      written = projects.length;
    } catch (error) {
      kept = new Map();
      problems.push(`host assignments: ${errorMessage(error)}`);
    }
  }
  if (read.size === 0 && failed.size > 0)
    problems.push(`host assignments: every project's read failed; ${key} is left as it was`);
  const perProject = [...failed.keys()].sort().map((id) => {
    const since = kept.get(id);
    const note = since === undefined ? '' : ` (kept its entry read at ${since})`;
    // By its metadata.name too, when the desired state gives one: an id alone does not say which project failed.
    const name = names.get(id);
    return `host assignments of ${name === undefined ? id : `${printable(name)} (${id})`}: ${failed.get(id)}${note}`;
  });
  return { key: stored, written, errors: [...perProject, ...problems] };
}

/**
 * The managed projects whose entry in the previous month's stored document is missing or was read before that month
 * ended. None when there is no usable document of that month: a month never archived is not started afterwards.
 */
async function projectsToClose(
  archive: ArchiveStore,
  projectIds: readonly string[],
  previous: MonthRange & { closedAt: Date },
): Promise<string[]> {
  const stored = await carriedEntries(archive, assignmentsKey(previous.month), previous.month, () => true);
  if (stored.entries.length === 0) return [];
  const readAt = new Map(stored.entries.map((e) => [e.groupId, Date.parse(e.fetchedAt)]));
  const closedAt = previous.closedAt.getTime();
  // A fetchedAt that does not parse (NaN) counts as open: reading again costs one request, trusting it a month.
  return projectIds.filter((id) => !((readAt.get(id) ?? Number.NaN) >= closedAt));
}

/**
 * Archives this month's usage and closes the previous month; failures are returned as messages, never thrown. `names`
 * (project id -> metadata.name) names a project whose read failed.
 */
export async function archiveUsage(
  api: OpsManagerApi,
  archive: ArchiveStore,
  projectIds: readonly string[],
  now: Date,
  names: ReadonlyMap<string, string> = new Map(),
): Promise<{ month: string; keys: string[]; projects: number; errors: string[]; incomplete: string[] }> {
  const current = monthRange(now);
  const fetchedAt = now.toISOString();
  const keys: string[] = [];
  const hostErrors: string[] = [];
  const hosts = (async () => {
    try {
      const results = await api.listPhysicalHosts();
      const key = `usage/${current.month}/physical-hosts.json`;
      await writeJson(archive, key, { fetchedAt, results });
      keys.push(key);
    } catch (error) {
      hostErrors.push(`physical hosts: ${errorMessage(error)}`);
    }
  })();
  const outcome = await archiveMonthAssignments(api, archive, projectIds, current, fetchedAt, names);
  if (outcome.key !== undefined) keys.push(outcome.key);
  const closing: string[] = [];
  if (projectIds.length > 0) {
    const previous = previousMonthRange(now);
    try {
      const open = await projectsToClose(archive, projectIds, previous);
      if (open.length > 0) {
        const closed = await archiveMonthAssignments(api, archive, open, previous, fetchedAt, names);
        if (closed.key !== undefined) keys.push(closed.key);
        closing.push(...closed.errors.map((e) => `closing ${previous.month}: ${e}`));
      }
    } catch (error) {
      closing.push(`closing ${previous.month}: host assignments: ${errorMessage(error)}`);
    }
  }
  await hosts;
  keys.sort();
  const incomplete: string[] = [];
  if (hostErrors.length > 0) incomplete.push(`usage ${current.month}: physical hosts`);
  if (outcome.errors.length > 0) incomplete.push(`usage ${current.month}: host assignments`);
  if (closing.length > 0)
    incomplete.push(`usage ${previousMonthRange(now).month}: host assignments (closing the month)`);
  return {
    month: current.month,
    keys,
    projects: outcome.written,
    errors: [...hostErrors, ...outcome.errors, ...closing],
    incomplete,
  };
}
