/** `opsman-gitops archive`: store the version manifest and usage snapshots, and print what was written where. */
import { renderReportJson } from '../../core/render/json.ts';
import { renderArchiveSummary } from '../../core/render/run-summary.ts';
import { type CommandContext, openSession } from '../context.ts';
import { EXIT } from '../errors.ts';
import { problemsLine, reportExitCode } from '../outcome.ts';
import { reconcile } from '../wiring.ts';
import { desiredIsValid } from './plan.ts';
import { runRequest } from './run-request.ts';

/** Runs archive; resolves to the exit code. */
export async function runArchive(ctx: CommandContext): Promise<number> {
  if (!(await desiredIsValid(ctx))) return EXIT.error;
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
    if (objects.length === 0)
      ctx.io.stdout.write('  (nothing written: archiving is off in Settings, or nothing changed)\n');
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
