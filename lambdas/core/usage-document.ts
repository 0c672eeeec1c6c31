/**
 * The month's host assignments document (`usage/<YYYY-MM>/host-assignments.json`, written by archive-usage.ts) and
 * the reading of the stored one, to carry over the entries of projects this run did not read. The stored object is
 * outside input: anything not in the expected shape is ignored with a message, never trusted. A document of a newer
 * `formatVersion` is refused, never replaced: rewriting it with this run's entries alone would drop the others.
 */
import { isRecord } from '../../shared/is-record.ts';
import type { HostAssignment } from '../opsman/types.ts';
import { errorMessage } from './concurrency.ts';
import type { ArchiveStore } from './ports.ts';

/** The `formatVersion` this code writes; a stored document without one was written before it was recorded (1). */
export const ASSIGNMENTS_FORMAT_VERSION = 1;

/** One project's host assignments, as of its own read. */
export interface AssignmentEntry {
  groupId: string;
  /** Last day the read covered (from the document's startDate). */
  endDate: string;
  /** When the read was made. */
  fetchedAt: string;
  results: HostAssignment[];
}

/** The month's document: every managed project's entry, sorted by groupId. */
export interface AssignmentsDocument {
  formatVersion: typeof ASSIGNMENTS_FORMAT_VERSION;
  month: string;
  startDate: string;
  /** When the run that wrote the document started; older entries carry their own fetchedAt. */
  fetchedAt: string;
  projects: AssignmentEntry[];
}

/** Entries carried over from the stored document, and why none could be when it was unusable. */
export interface Carried {
  entries: AssignmentEntry[];
  problem: string | undefined;
}

/** True for an entry of the expected shape (the results are kept as they were stored). */
function isEntry(value: unknown): value is AssignmentEntry {
  return (
    isRecord(value) &&
    typeof value.groupId === 'string' &&
    typeof value.endDate === 'string' &&
    typeof value.fetchedAt === 'string' &&
    Array.isArray(value.results)
  );
}

/** What a problem with the stored document costs: said once, at the end of each of its messages. */
const NOT_CARRIED = 'entries of projects not read in this run are not carried over';

/**
 * The stored entries of the projects `wanted` accepts, from the document under `key` when it is this month's, each
 * exactly as stored (fields this version does not know, written by a later one, included). A missing document carries
 * nothing, silently; an unreadable or malformed one carries nothing and says so. Throws for a document of a newer
 * `formatVersion`: the caller must then leave it as it is.
 */
export async function carriedEntries(
  archive: ArchiveStore,
  key: string,
  month: string,
  wanted: (groupId: string) => boolean,
): Promise<Carried> {
  let bytes: Uint8Array | null;
  try {
    bytes = await archive.get(key);
  } catch (error) {
    return {
      entries: [],
      problem: `host assignments: the stored ${key} could not be read (${errorMessage(error)}); ${NOT_CARRIED}`,
    };
  }
  if (bytes === null) return { entries: [], problem: undefined };
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return {
      entries: [],
      problem: `host assignments: the stored ${key} is not valid JSON; ${NOT_CARRIED}`,
    };
  }
  const version = isRecord(document) ? document.formatVersion : undefined;
  if (typeof version === 'number' && Number.isInteger(version) && version > ASSIGNMENTS_FORMAT_VERSION) {
    throw new Error(
      `the stored ${key} has formatVersion ${version}; this version writes formatVersion ${ASSIGNMENTS_FORMAT_VERSION}: it was written by a newer version of opsman-gitops and is left as it is (archive with that version)`,
    );
  }
  if (
    !isRecord(document) ||
    (version !== undefined && version !== ASSIGNMENTS_FORMAT_VERSION) ||
    document.month !== month ||
    !Array.isArray(document.projects)
  ) {
    return {
      entries: [],
      problem: `host assignments: the stored ${key} is not a host assignments document of ${month}; ${NOT_CARRIED}`,
    };
  }
  const entries: AssignmentEntry[] = [];
  const seen = new Set<string>();
  for (const entry of document.projects) {
    if (!isEntry(entry) || !wanted(entry.groupId) || seen.has(entry.groupId)) continue;
    seen.add(entry.groupId);
    // As stored: a field a later version added to its entries survives a run of this one (a downgrade loses nothing).
    entries.push(entry);
  }
  return { entries, problem: undefined };
}
