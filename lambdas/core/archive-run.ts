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
  runDeps: { api: OpsManagerApi; archive: ArchiveStore; clock: Clock; isRetryable?: (error: unknown) => boolean },
): Promise<ArchiveSummary> {
  // Every error the API or the store throws is kept: the messages alone cannot say whether a retry could pass.
  const met: unknown[] = [];
  const deps = { api: recordingErrors(runDeps.api, met), archive: recordingErrors(runDeps.archive, met) };
  const now = runDeps.clock.now();
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
  const { isRetryable } = runDeps;
  if (summary.errors.length > 0 && isRetryable !== undefined) {
    // Failures with no error behind them (an unusable stored document) would meet the same on a retry.
    summary.retryable = met.length > 0 && met.every((error) => isRetryable(error));
  }
  return summary;
}

/**
 * `target` with every method call's thrown error (or rejection) pushed to `met` before it propagates. Methods are
 * called on the target itself, so classes with private fields keep working.
 */
function recordingErrors<T extends object>(target: T, met: unknown[]): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          const result: unknown = value.apply(object, args);
          if (result instanceof Promise) {
            return result.catch((error: unknown) => {
              met.push(error);
              throw error;
            });
          }
          return result;
        } catch (error) {
          met.push(error);
          throw error;
        }
      };
    },
  });
}

/**
 * The parts of the archive a stopped run did not store, from its summary: the version manifest, and this month's (or
 * the closing month's) usage snapshots, each named by the prefix the archive gives its errors. Counted in the run
 * report's `interrupted.notStarted` (run.ts) and listed by the CLI under `Not archived`.
 */
export function notArchived(archive: ArchiveSummary | undefined): string[] {
  const errors = archive?.errors ?? [];
  const month = archive?.usage?.month;
  const parts: string[] = [];
  if (errors.some((e) => e.startsWith('version manifest:'))) parts.push('version manifest');
  if (month !== undefined) {
    if (errors.some((e) => e.startsWith('physical hosts:'))) parts.push(`usage ${month}: physical hosts`);
    if (errors.some((e) => e.startsWith('host assignments'))) parts.push(`usage ${month}: host assignments`);
  }
  const closing = [
    ...new Set(errors.map((e) => /^closing (\d{4}-\d{2}):/.exec(e)?.[1]).filter((m) => m !== undefined)),
  ];
  for (const m of closing.sort()) parts.push(`usage ${m}: closing (host assignments read again for the whole month)`);
  return parts;
}
