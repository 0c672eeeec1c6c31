/**
 * Archives usage per month: `usage/<YYYY-MM>/physical-hosts.json` and, per managed project,
 * `usage/<YYYY-MM>/assignments-<groupId>.json` (host assignments from the first of the month to today).
 *
 * Every read is network and every write is storage, so neither waits for the other: the physical hosts (read page
 * after page) are listed alongside the projects' assignments, and a project's write runs while the next reads go on.
 */
import { errorMessage, mapLimit } from './concurrency.ts';
import type { ArchiveStore, OpsManagerApi } from './ports.ts';

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

/** Archives this month's usage; per-project failures are returned as messages, never thrown. */
export async function archiveUsage(
  api: OpsManagerApi,
  archive: ArchiveStore,
  projectIds: readonly string[],
  now: Date,
): Promise<{ month: string; keys: string[]; errors: string[] }> {
  const { month, startDate, endDate } = monthRange(now);
  const fetchedAt = now.toISOString();
  const keys: string[] = [];
  const hostErrors: string[] = [];
  const projectErrors: string[] = [];
  const write = async (key: string, value: unknown) => {
    await archive.put(key, `${JSON.stringify(value, null, 2)}\n`, { contentType: 'application/json' });
    keys.push(key);
  };
  const hosts = (async () => {
    try {
      const results = await api.listPhysicalHosts();
      await write(`usage/${month}/physical-hosts.json`, { fetchedAt, results });
    } catch (error) {
      hostErrors.push(`physical hosts: ${errorMessage(error)}`);
    }
  })();
  const writes: Promise<void>[] = [];
  await mapLimit(projectIds, ASSIGNMENT_READS_QUEUED, async (groupId) => {
    const failed = (error: unknown) => {
      projectErrors.push(`host assignments of ${groupId}: ${errorMessage(error)}`);
    };
    try {
      const results = await api.listProjectHostAssignments(groupId, startDate, endDate);
      // Not awaited here: the next read starts now; every write is awaited below.
      const value = { groupId, startDate, endDate, fetchedAt, results };
      writes.push(write(`usage/${month}/assignments-${groupId}.json`, value).catch(failed));
    } catch (error) {
      failed(error);
    }
  });
  await Promise.all([hosts, ...writes]);
  keys.sort();
  return { month, keys, errors: [...hostErrors, ...projectErrors] };
}
