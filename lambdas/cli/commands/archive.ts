/** `opsman-gitops archive`: store the version manifest and usage snapshots, and print what was written where. */
import type { RunReport } from '../../core/model.ts';
import { renderReportJson } from '../../core/render/json.ts';
import { renderArchiveSummary } from '../../core/render/run-summary.ts';
import { type CommandContext, openSession } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { problemsLine, reportExitCode } from '../outcome.ts';
import { reconcile, writableDirectory } from '../wiring.ts';
import { desiredIsValid } from './plan.ts';
import { runRequest } from './run-request.ts';

/**
 * Fails before any Ops Manager call when the archive directory cannot be written: one message naming the path and
 * the cause, instead of a failed write per archive object after the reads were made for nothing.
 */
async function requireWritableArchive(dir: string): Promise<void> {
  try {
    await writableDirectory(dir, 'the archive directory');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(
      'CLI_ARCHIVE_DIR',
      `${message}. Check --archive-dir; nothing was archived and Ops Manager was not called.`,
      EXIT.error,
      { cause: error },
    );
  }
}

/** What to say when no archive object was written: why, from the report, never a guess. */
function nothingWrittenLine(report: RunReport): string {
  const archive = report.archive;
  const errors = archive?.errors.length ?? 0;
  if (errors > 0) return `  (nothing written: ${errors} archive error${errors === 1 ? '' : 's'}, listed below)`;
  if (archive?.manifest === undefined && archive?.usage === undefined)
    return '  (nothing written: Settings turns off both archive.versionManifest and archive.usage)';
  return '  (nothing written)';
}

/** Runs archive; resolves to the exit code. */
export async function runArchive(ctx: CommandContext): Promise<number> {
  if (!(await desiredIsValid(ctx))) return EXIT.error;
  await requireWritableArchive(ctx.options.archiveDir);
  const session = await openSession(ctx, 'archive');
  try {
    const report = await reconcile(runRequest(ctx, 'archive'), session.deps);
    const problems = problemsLine(report.plan, report);
    if (problems !== undefined) ctx.io.stderr.write(`${problems}\n`);
    if (ctx.options.json) {
      ctx.io.stdout.write(renderReportJson(report));
      return reportExitCode(report);
    }
    const objects = session.archive.written.filter((o) => !o.key.startsWith('reports/'));
    ctx.io.stdout.write(`Archive: ${session.archive.describe()}\n`);
    for (const o of objects) {
      ctx.io.stdout.write(`  ${o.created ? ctx.style.create('+') : '='} ${o.key}${o.created ? '' : ' (unchanged)'}\n`);
    }
    if (objects.length === 0) ctx.io.stdout.write(`${nothingWrittenLine(report)}\n`);
    ctx.io.stdout.write(
      renderArchiveSummary(report, {
        style: ctx.style,
        reportLocation: report.reportLocation ?? session.archive.reportLocation(report.runId),
      }),
    );
    return reportExitCode(report);
  } finally {
    await session.close();
  }
}
