/**
 * `opsman-gitops apply`: plan, show, confirm, apply exactly the plan shown. `--auto-approve` plans and applies in one
 * run; `--plan FILE` applies a saved plan (refused by the reconciler when Ops Manager moved since).
 */
import type { Plan } from '../../core/model.ts';
import { applyingMode } from '../../core/modes.ts';
import { renderReportJson } from '../../core/render/json.ts';
import { renderPlanText } from '../../core/render/plan-text.ts';
import { renderRunSummary } from '../../core/render/run-summary.ts';
import { hasWrites } from '../../core/render/summary.ts';
import { plannedWrites } from '../../core/window-holds-run.ts';
import { askApproval, confirmationMode, refusal, staleAfterApproval } from '../confirm.ts';
import { type CommandContext, openSession } from '../context.ts';
import { EXIT } from '../errors.ts';
import { APPLY_NOTICES, interruptible, LOCK_WAIT_NOTICES, PLANNING_NOTICES } from '../interruptible.ts';
import { heldLines, heldTargetLines, planExitCode, problemsLine, reportExitCode } from '../outcome.ts';
import { currentToolVersion } from '../tool-version.ts';
import { reconcile } from '../wiring.ts';
import { desiredIsValid } from './plan.ts';
import { runRequest } from './run-request.ts';
import { openSealedPlan, readSavedPlan } from './saved-plan.ts';

/** Runs apply; resolves to the exit code. `showPlan: false` prints only the results (the demo showed the plan). */
export async function runApply(ctx: CommandContext, showPlan = true): Promise<number> {
  const { options, io, style } = ctx;
  const approval = confirmationMode({
    autoApprove: options.autoApprove,
    savedPlan: options.planFile !== undefined,
    interactive: io.interactive,
  });
  if (approval === 'refuse') throw refusal();
  let savedPlan: Plan | undefined;
  if (options.planFile !== undefined) savedPlan = await readSavedPlan(options.planFile, await currentToolVersion());
  else if (!(await desiredIsValid(ctx))) return EXIT.error;
  const session = await openSession(ctx, 'apply');
  try {
    // Before any API call: an edited plan, or one saved for another Ops Manager or state dir, is never applied.
    if (savedPlan !== undefined && options.planFile !== undefined) {
      savedPlan = openSealedPlan(
        savedPlan,
        options.planFile,
        session.baseUrl,
        session.deps.fingerprintKey,
        await currentToolVersion(),
      );
    }
    if (approval === 'ask') {
      const planned = await interruptible(io, PLANNING_NOTICES, (signal) =>
        reconcile({ ...runRequest(ctx, 'plan'), signal, planForApply: true }, session.deps),
      );
      // The plan was made by a planning run (its mode says "nothing will be written"); it is shown for this apply.
      io.stdout.write(renderPlanText(planned.plan, { style, mode: applyingMode(planned.plan.mode, options.mode) }));
      if (!hasWrites(planned.plan)) {
        io.stdout.write('\nNothing to apply.\n');
        return planExitCode(planned.plan, false);
      }
      // Holds as of the plan's start (the apply evaluates them again when its writes start); --ignore-windows lifts them.
      const split = plannedWrites(planned.plan, options.mode);
      const heldInPlan = split.held.reduce((n, h) => n + h.writes, 0);
      const writes = options.ignoreWindows ? undefined : split;
      const heldCount = writes === undefined ? 0 : heldInPlan;
      if (split.made + heldInPlan === 0) {
        // Every write is in a target whose mode (spec.mode, Settings.mode or --mode) keeps it unwritten: no question.
        io.stdout.write('\nNothing to apply: every write of this plan is in a target whose mode does not write.\n');
        return planExitCode(planned.plan, false);
      }
      if (writes !== undefined && heldCount > 0 && writes.made === 0) {
        // Every write is held: nothing to approve. Said and exited as a held apply (3), without asking.
        io.stderr.write(
          `\nAll ${heldCount} write${heldCount === 1 ? ' of this plan is' : 's of this plan are'} held by change windows: nothing to approve, nothing was written.\n`,
        );
        for (const line of heldTargetLines(writes.held, 'see the plan')) io.stderr.write(`${line}\n`);
        const targets = writes.held.length;
        io.stderr.write(
          `${targets} target${targets === 1 ? '' : 's'} held by change windows (exit ${EXIT.held}): run apply again when the window allows, or pass --ignore-windows to write now\n`,
        );
        // A failed target or a blocked change still makes it an error (1 wins over 3, as after an apply).
        const problems = problemsLine(planned.plan);
        if (problems !== undefined) io.stderr.write(`${problems}\n`);
        return problems === undefined ? EXIT.held : EXIT.error;
      }
      const answer = await askApproval(io, writes === undefined ? undefined : { made: writes.made, held: heldCount });
      if (answer.interrupted !== undefined) {
        // Stopped as on Ctrl-C anywhere else: exit 130. No lock is held while asking (the plan shown took none).
        io.stderr.write(`\nApply cancelled by ${answer.interrupted}: nothing was written.\n`);
        return EXIT.interrupted;
      }
      if (!answer.approved) {
        io.stderr.write('Apply cancelled: nothing was written.\n');
        return EXIT.error;
      }
      savedPlan = planned.plan;
    }
    // Until the run holds the lock (a --lease-wait wait), a Ctrl-C has no lock to release and no write to finish.
    let lockHeld = false;
    const notices = () => (lockHeld ? APPLY_NOTICES : LOCK_WAIT_NOTICES);
    const onLeaseHeld = () => {
      lockHeld = true;
    };
    const report = await interruptible(io, notices, (signal) =>
      reconcile({ ...runRequest(ctx, 'apply', savedPlan), signal, onLeaseHeld }, session.deps),
    ).catch((error: unknown) => {
      throw approval === 'ask' ? staleAfterApproval(error) : error;
    });
    if (options.json) {
      io.stdout.write(renderReportJson(report));
    } else {
      if (approval !== 'ask' && showPlan) {
        // A saved plan keeps the mode of the `plan` run that made it; it is shown in the mode this apply writes in.
        const mode = applyingMode(report.plan.mode, options.mode);
        io.stdout.write(`${renderPlanText(report.plan, { style, mode })}\n`);
      }
      io.stdout.write(
        renderRunSummary(report, {
          style,
          reportLocation: report.reportLocation ?? session.archive.reportLocation(report.runId),
          archived: session.archive.written.filter((o) => !o.key.startsWith('reports/')).map((o) => o.location),
        }),
      );
    }
    const problems = problemsLine(report.plan, report);
    if (problems !== undefined) io.stderr.write(`${problems}\n`);
    for (const line of heldLines(report, options.planFile !== undefined)) io.stderr.write(`${line}\n`);
    return reportExitCode(report);
  } finally {
    await session.close();
  }
}
