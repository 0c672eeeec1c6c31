/** The `archive` command: the version manifest and this month's usage, as Settings.archive asks. */
import { archiveManifest } from './archive-manifest.ts';
import { archiveUsage } from './archive-usage.ts';
import { errorMessage } from './concurrency.ts';
import type { ArchiveSummary, DesiredState } from './model.ts';
import type { ArchiveStore, Clock, OpsManagerApi } from './ports.ts';

/**
 * Runs the archive; failures become messages in `errors`, never exceptions. The manifest and the usage touch
 * different keys, so they run side by side (the manifest's store round trips no longer hold back the usage reads);
 * the summary is assembled in the same order as ever: manifest first, then usage.
 */
export async function runArchive(
  desired: DesiredState,
  projects: readonly string[] | undefined,
  deps: { api: OpsManagerApi; archive: ArchiveStore; clock: Clock },
): Promise<ArchiveSummary> {
  const now = deps.clock.now();
  const manifest = desired.settings.archive.versionManifest
    ? archiveManifest(deps.api, deps.archive, now.toISOString()).then(
        (result) => ({ result }),
        (error: unknown) => ({ error: `version manifest: ${errorMessage(error)}` }),
      )
    : undefined;
  let usage: ReturnType<typeof archiveUsage> | undefined;
  if (desired.settings.archive.usage) {
    const only = projects === undefined ? undefined : new Set(projects);
    const ids = desired.projects.map((p) => p.projectId).filter((id) => only === undefined || only.has(id));
    usage = archiveUsage(deps.api, deps.archive, ids, now);
  }
  const [manifestOutcome, usageOutcome] = await Promise.all([manifest, usage]);
  const summary: ArchiveSummary = { errors: [] };
  if (manifestOutcome !== undefined) {
    if ('result' in manifestOutcome) summary.manifest = manifestOutcome.result;
    else summary.errors.push(manifestOutcome.error);
  }
  if (usageOutcome !== undefined) {
    const { month, keys, projects, errors } = usageOutcome;
    summary.usage = { month, keys, projects };
    summary.errors.push(...errors);
  }
  return summary;
}
