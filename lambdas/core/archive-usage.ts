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
 * `endDate` and `fetchedAt`; a failed read is reported. When every read fails, the stored document is left as it is.
 */
import { errorMessage, mapLimit } from './concurrency.ts';
import { jsonChunks } from './json-chunks.ts';
import type { ArchiveStore, OpsManagerApi } from './ports.ts';
import { type AssignmentEntry, type AssignmentsDocument, carriedEntries } from './usage-document.ts';

/**
 * Assignment reads handed to the client at once. The client's own limiter caps the requests in flight; this only
 * bounds its queue, so that each later page of the physical hosts waits behind a few dozen reads, not behind every
 * project (it would otherwise be read last, one page after another, with the rest of the pipe idle). Well above the
 * client's usual concurrency (8), so its slots never go idle for want of queued reads.
 */
export const ASSIGNMENT_READS_QUEUED = 64;

/** The month (`YYYY-MM`) and its date range up to `now` (ISO dates, UTC). */
export function monthRange(now: Date): { month: string; startDate: string; endDate: string } {
  const iso = now.toISOString();
  const month = iso.slice(0, 7);
  return { month, startDate: `${month}-01`, endDate: iso.slice(0, 10) };
}

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

/** Archives this month's usage; failures are returned as messages, never thrown. */
export async function archiveUsage(
  api: OpsManagerApi,
  archive: ArchiveStore,
  projectIds: readonly string[],
  now: Date,
): Promise<{ month: string; keys: string[]; projects: number; errors: string[] }> {
  const { month, startDate, endDate } = monthRange(now);
  const fetchedAt = now.toISOString();
  const keys: string[] = [];
  const hostErrors: string[] = [];
  const hosts = (async () => {
    try {
      const results = await api.listPhysicalHosts();
      const key = `usage/${month}/physical-hosts.json`;
      await writeJson(archive, key, { fetchedAt, results });
      keys.push(key);
    } catch (error) {
      hostErrors.push(`physical hosts: ${errorMessage(error)}`);
    }
  })();
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
  const projectErrors: string[] = [];
  let written = 0;
  let kept = new Map<string, string>();
  if (read.size > 0) {
    const key = assignmentsKey(month);
    try {
      const carried = await carriedEntries(archive, key, month, (groupId) => !read.has(groupId));
      if (carried.problem !== undefined) projectErrors.push(carried.problem);
      kept = new Map(carried.entries.map((e) => [e.groupId, e.fetchedAt]));
      const projects = [...read.values(), ...carried.entries].sort((a, b) =>
        a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0,
      );
      const document: AssignmentsDocument = { month, startDate, fetchedAt, projects };
      await writeJson(archive, key, document);
      keys.push(key);
      written = projects.length;
    } catch (error) {
      kept = new Map();
      projectErrors.push(`host assignments: ${errorMessage(error)}`);
    }
  }
  if (read.size === 0 && failed.size > 0)
    projectErrors.push(`host assignments: every project's read failed; ${assignmentsKey(month)} is left as it was`);
  const perProject = [...failed.keys()].sort().map((id) => {
    const since = kept.get(id);
    const note = since === undefined ? '' : ` (kept its entry read at ${since})`;
    return `host assignments of ${id}: ${failed.get(id)}${note}`;
  });
  await hosts;
  keys.sort();
  return { month, keys, projects: written, errors: [...hostErrors, ...perProject, ...projectErrors] };
}
