/** `opsman-gitops archive`: store the version manifest and usage snapshots, and print what was written where. */

import { notArchived } from '../../core/archive-run.ts';
import type { RunReport } from '../../core/model.ts';
import { renderReportJson } from '../../core/render/json.ts';
import { renderArchiveSummary } from '../../core/render/run-summary.ts';
import { ARCHIVE_NOTICES, StoppableArchiveStore } from '../archive-interrupt.ts';
import { type CommandContext, openSession, type RunSession } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { interruptible } from '../interruptible.ts';
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
  // Stopped: the errors met are mostly the reads it abandoned, and only the report lists them; the parts left out are
  // listed below this line (printInterrupted), so the line points there, never at a list of errors that is not shown.
  if (report.interrupted !== undefined)
    return '  (nothing written before the stop: what was not archived is listed below, the errors met in the report)';
  const errors = archive?.errors.length ?? 0;
  if (errors > 0) return `  (nothing written: ${errors} archive error${errors === 1 ? '' : 's'}, listed below)`;
  if (archive?.manifest === undefined && archive?.usage === undefined)
    return '  (nothing written: Settings turns off both archive.versionManifest and archive.usage)';
  return '  (nothing written)';
}

/**
 * Runs archive; resolves to the exit code. The first Ctrl-C (SIGTERM, SIGHUP) abandons the reads in flight and starts
 * no new write; the write in flight finishes; the run then prints what was archived and what was not, exit 130
 * (archive-interrupt.ts). A second one ends the process at once.
 */
export async function runArchive(ctx: CommandContext): Promise<number> {
  if (!(await desiredIsValid(ctx))) return EXIT.error;
  await requireWritableArchive(ctx.options.archiveDir);
  const session = await openSession(ctx, 'archive');
  try {
    const report = await interruptible(ctx.io, ARCHIVE_NOTICES, async (signal) => {
      const api = session.deps.api.withSignal?.(signal) ?? session.deps.api;
      const archive = new StoppableArchiveStore(session.deps.archive, signal);
      // The run sees the signal too: the report it stores records the interrupt (`interrupted`), as the one printed.
      return reconcile(
        { ...runRequest(ctx, 'archive'), signal, archiveStopsOnSignal: true },
        { ...session.deps, api, archive },
      );
    });
    if (report.interrupted !== undefined) return printInterrupted(ctx, session, report);
    const problems = problemsLine(report.plan, report);
    if (problems !== undefined) ctx.io.stderr.write(`${problems}\n`);
    if (ctx.options.json) {
      ctx.io.stdout.write(renderReportJson(report));
      return reportExitCode(report);
    }
    printWritten(ctx, session, report);
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

/** `Archive: <where>` and a line per object written (run reports aside). */
function printWritten(ctx: CommandContext, session: RunSession, report: RunReport): number {
  const objects = session.archive.written.filter((o) => !o.key.startsWith('reports/'));
  ctx.io.stdout.write(`Archive: ${session.archive.describe()}\n`);
  for (const o of objects) {
    ctx.io.stdout.write(`  ${o.created ? ctx.style.create('+') : '='} ${o.key}${o.created ? '' : ' (unchanged)'}\n`);
  }
  if (objects.length === 0) ctx.io.stdout.write(`${nothingWrittenLine(report)}\n`);
  return objects.length;
}

/**
 * An archive stopped by an interrupt before every part was stored (the report's `interrupted`, stored with it): what
 * was written, what was not (the errors met, most of them the abandoned reads, are in the report), exit 130. With
 * --json, the report.
 */
function printInterrupted(ctx: CommandContext, session: RunSession, report: RunReport): number {
  const reason = report.interrupted?.reason ?? 'interrupted';
  const missing = notArchived(report.archive);
  if (ctx.options.json) {
    ctx.io.stdout.write(renderReportJson(report));
    return EXIT.interrupted;
  }
  const written = printWritten(ctx, session, report);
  ctx.io.stdout.write('Not archived (stopped before it was read or written; the next archive run stores it):\n');
  for (const part of missing) ctx.io.stdout.write(`  - ${part}\n`);
  const calls = report.apiCalls.total;
  const line = `Archive interrupted by ${reason}: ${written} object${written === 1 ? '' : 's'} written, ${missing.length} part${missing.length === 1 ? '' : 's'} not archived; ${calls} API call${calls === 1 ? '' : 's'}.`;
  ctx.io.stdout.write(`${ctx.style.bold(ctx.style.error(line))}\n`);
  const reportLocation = report.reportLocation ?? session.archive.reportLocation(report.runId);
  if (reportLocation !== undefined) ctx.io.stdout.write(`Report: ${reportLocation}\n`);
  return EXIT.interrupted;
}
