/** The `archive` command: the version manifest and this month's usage, as Settings.archive asks. */
import { archiveManifest } from './archive-manifest.ts';
import { archiveUsage } from './archive-usage.ts';
import { errorMessage } from './concurrency.ts';
import type { ArchiveSummary, DesiredState } from './model.ts';
import type { ArchiveStore, Clock, OpsManagerApi } from './ports.ts';

/**
 * Runs the archive; failures become messages in `errors`, never exceptions; `warn` gets what the run skipped (a
 * malformed manifest index entry), for the report's warnings. The manifest and the usage touch
 * different keys, so they run side by side (the manifest's store round trips no longer hold back the usage reads);
 * the summary is assembled in the same order as ever: manifest first, then usage.
 */
export async function runArchive(
  desired: DesiredState,
  projects: readonly string[] | undefined,
  runDeps: { api: OpsManagerApi; archive: ArchiveStore; clock: Clock; isRetryable?: (error: unknown) => boolean },
  warn: (message: string) => void = () => {},
): Promise<ArchiveSummary> {
  // Every error the API or the store throws is kept: the messages alone cannot say whether a retry could pass.
  const met: unknown[] = [];
  const deps = { api: recordingErrors(runDeps.api, met), archive: recordingErrors(runDeps.archive, met) };
  const now = runDeps.clock.now();
  const manifest = desired.settings.archive.versionManifest
    ? archiveManifest(deps.api, deps.archive, now.toISOString(), { warn }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error: `version manifest: ${errorMessage(error)}` }),
      )
    : undefined;
  let usage: ReturnType<typeof archiveUsage> | undefined;
  if (desired.settings.archive.usage) {
    const only = projects === undefined ? undefined : new Set(projects);
    const ids = desired.projects.map((p) => p.projectId).filter((id) => only === undefined || only.has(id));
    const names = new Map(desired.projects.map((p) => [p.projectId, p.name]));
    usage = archiveUsage(deps.api, deps.archive, ids, now, names);
  }
  const [manifestOutcome, usageOutcome] = await Promise.all([manifest, usage]);
  const summary: ArchiveSummary = { errors: [] };
  const incomplete: string[] = [];
  if (manifestOutcome !== undefined) {
    if ('result' in manifestOutcome) summary.manifest = manifestOutcome.result;
    else {
      summary.errors.push(manifestOutcome.error);
      incomplete.push('version manifest');
    }
  }
  if (usageOutcome !== undefined) {
    const { month, keys, projects, errors } = usageOutcome;
    summary.usage = { month, keys, projects };
    summary.errors.push(...errors);
    incomplete.push(...usageOutcome.incomplete);
  }
  if (incomplete.length > 0) summary.incomplete = incomplete;
  const off = (['versionManifest', 'usage'] as const).filter((part) => !desired.settings.archive[part]);
  if (off.length > 0) summary.off = [...off];
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
 * The parts of the archive a stopped run did not store (or stored without some of their reads), from its summary's
 * `incomplete`, which names them where each failure arose. Counted in the run report's `interrupted.notStarted`
 * (run.ts) and listed by the CLI under `Not archived`.
 */
export function notArchived(archive: ArchiveSummary | undefined): string[] {
  return archive?.incomplete ?? [];
}
