/**
 * Archives usage per month: `usage/<YYYY-MM>/physical-hosts.json` and, per managed project,
 * `usage/<YYYY-MM>/assignments-<groupId>.json` (host assignments from the first of the month to today).
 */
import { errorMessage } from './concurrency.ts';
import type { ArchiveStore, OpsManagerApi } from './ports.ts';

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
  const keys: string[] = [];
  const errors: string[] = [];
  const write = async (key: string, value: unknown) => {
    await archive.put(key, `${JSON.stringify(value, null, 2)}\n`, { contentType: 'application/json' });
    keys.push(key);
  };
  try {
    const hosts = await api.listPhysicalHosts();
    await write(`usage/${month}/physical-hosts.json`, { fetchedAt: now.toISOString(), results: hosts });
  } catch (error) {
    errors.push(`physical hosts: ${errorMessage(error)}`);
  }
  await Promise.all(
    projectIds.map(async (groupId) => {
      try {
        const assignments = await api.listProjectHostAssignments(groupId, startDate, endDate);
        await write(`usage/${month}/assignments-${groupId}.json`, {
          groupId,
          startDate,
          endDate,
          fetchedAt: now.toISOString(),
          results: assignments,
        });
      } catch (error) {
        errors.push(`host assignments of ${groupId}: ${errorMessage(error)}`);
      }
    }),
  );
  keys.sort();
  return { month, keys, errors };
}
