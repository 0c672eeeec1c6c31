/** The `archive` command: the version manifest and this month's usage, as Settings.archive asks. */
import { archiveManifest } from './archive-manifest.ts';
import { archiveUsage } from './archive-usage.ts';
import { errorMessage } from './concurrency.ts';
import type { ArchiveSummary, DesiredState } from './model.ts';
import type { ArchiveStore, Clock, OpsManagerApi } from './ports.ts';

/** Runs the archive; failures become messages in `errors`, never exceptions. */
export async function runArchive(
  desired: DesiredState,
  projects: readonly string[] | undefined,
  deps: { api: OpsManagerApi; archive: ArchiveStore; clock: Clock },
): Promise<ArchiveSummary> {
  const summary: ArchiveSummary = { errors: [] };
  const now = deps.clock.now();
  if (desired.settings.archive.versionManifest) {
    try {
      summary.manifest = await archiveManifest(deps.api, deps.archive, now.toISOString());
    } catch (error) {
      summary.errors.push(`version manifest: ${errorMessage(error)}`);
    }
  }
  if (desired.settings.archive.usage) {
    const only = projects === undefined ? undefined : new Set(projects);
    const ids = desired.projects.map((p) => p.projectId).filter((id) => only === undefined || only.has(id));
    const usage = await archiveUsage(deps.api, deps.archive, ids, now);
    summary.usage = { month: usage.month, keys: usage.keys };
    summary.errors.push(...usage.errors);
  }
  return summary;
}
