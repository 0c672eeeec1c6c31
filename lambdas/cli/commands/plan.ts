/** `opsman-gitops plan` and `opsman-gitops observe`: compute the plan (observe: drift only) and print it. */
import { printable } from '../../core/printable.ts';
import { hasWrites } from '../../core/render/summary.ts';
import { REPORT_NOT_WRITTEN } from '../../core/report.ts';
import type { CommandContext } from '../context.ts';
import { openSession } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { interruptible, PLANNING_NOTICES } from '../interruptible.ts';
import { invalidDesiredDocument, renderFailureJson } from '../json-failure.ts';
import { renderFailureMarkdown } from '../markdown-failure.ts';
import { planExitCode, problemsLine } from '../outcome.ts';
import { currentToolVersion } from '../tool-version.ts';
import { reconcile, saveFileAtomically } from '../wiring.ts';
import { applySavedPlanCommand } from './apply-command.ts';
import { printPlan, runRequest } from './run-request.ts';
import { sealedPlanText } from './saved-plan.ts';
import { loadDesired } from './validate.ts';

/**
 * Loads and validates the desired state; on issues prints them to stderr (and with --json, the failure document with
 * them on stdout; with --markdown, the failure comment of `command`) and resolves to false (no API call).
 */
export async function desiredIsValid(ctx: CommandContext, command = 'plan'): Promise<boolean> {
  const { result, formatIssues } = await loadDesired(ctx.options.desired);
  if (result.ok) return true;
  const text = formatIssues(result.issues);
  const message = `the desired state in ${ctx.options.desired} is invalid; nothing was sent to Ops Manager`;
  ctx.io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  // The path is the user's argument, printed as it is spelled: inert, like every text this tool did not write itself.
  ctx.io.stderr.write(`error: ${printable(message)}\n`);
  if (ctx.options.json) ctx.io.stdout.write(renderFailureJson(invalidDesiredDocument(message, result.issues)));
  if (ctx.options.markdown) {
    ctx.io.stdout.write(renderFailureMarkdown(invalidDesiredDocument(message, result.issues), command));
  }
  return false;
}

/**
 * Runs plan (or observe); resolves to the exit code. A Ctrl-C while planning abandons the reads in flight and ends the
 * run with RunInterruptedError (exit 130) before anything is printed or saved; `--out` is written atomically, so an
 * interrupt while it is written (the second one ends the process) never leaves half a plan.
 */
export async function runPlan(ctx: CommandContext, command: 'plan' | 'observe'): Promise<number> {
  if (!(await desiredIsValid(ctx, command))) return EXIT.error;
  const session = await openSession(ctx, command);
  try {
    const report = await interruptible(ctx.io, PLANNING_NOTICES, (signal) =>
      reconcile(
        {
          ...runRequest(ctx, command),
          signal,
          // A saved plan is applied later: it records what an apply's own plan would (record-refresh.ts).
          ...(command === 'plan' && ctx.options.out !== undefined ? { planForApply: true } : {}),
        },
        session.deps,
      ),
    );
    printPlan(ctx, report.plan);
    // The plan is complete without its report, but the user should know the record of this run is missing.
    const unsaved = report.warnings?.find((w) => w.startsWith(REPORT_NOT_WRITTEN));
    if (unsaved !== undefined) ctx.io.stderr.write(`warning: ${unsaved}\n`);
    if (command === 'plan' && ctx.options.out !== undefined) {
      try {
        // Sealed to this Ops Manager and this state dir's key: apply --plan refuses an edited plan (docs/cli.md).
        await saveFileAtomically(
          ctx.options.out,
          sealedPlanText(report.plan, session.baseUrl, session.deps.fingerprintKey, await currentToolVersion()),
        );
      } catch (error) {
        throw new CliError(
          'CLI_WRITE_FAILED',
          `cannot save the plan to ${ctx.options.out}: ${(error as Error).message}`,
        );
      }
      // The path is the user's, and the command repeats it and other paths: any may hold an ESC or a bidi override.
      const command = applySavedPlanCommand(ctx.options, ctx.options.out, ctx.io.env);
      // Like terraform, a plan with nothing to write is saved without telling the user to apply it.
      const next = hasWrites(report.plan)
        ? `apply it with \`${command}\``
        : 'it has no changes, so there is nothing to apply';
      const saved = printable(`Saved the plan to ${ctx.options.out}: ${next}`);
      ctx.io.stderr.write(`${saved}\n`);
    }
    const problems = problemsLine(report.plan);
    if (problems !== undefined) ctx.io.stderr.write(`${problems}\n`);
    return planExitCode(report.plan, ctx.options.detailedExitcode, command);
  } finally {
    await session.close();
  }
}
