/**
 * The log lines an operator paged by an alarm searches for, one per finding of a finished run: `target failed` (ERROR,
 * the TargetsFailed alarm) for each failure of a project, organization or of the run's bookkeeping (`global`), and
 * `drift detected` (WARN, the DriftDetected alarm) for each live object that differs from git. Each names its target
 * by type, id and name and carries the code and the next step, so a CloudWatch Logs Insights query over these lines
 * alone answers what failed, where, since when and whether it still does (docs/aws.md, "Runbook"). The run's "run
 * finished" line keeps the summary; these repeat no secret (messages and field paths are value-free by construction).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { RunReport } from '../core/model.ts';
import { nextStep } from './next-step.ts';

/** Most `drift detected` lines per run (the rest are counted in the last one; the archived report lists them all). */
export const MAX_DRIFT_LINES = 50;

/** Logs one line per target failure and per drifted object of `report`. */
export function logRunFindings(logger: Logger, report: RunReport): void {
  for (const f of report.failures) {
    const code = f.code ?? 'INTERNAL';
    logger.error('target failed', {
      target: { type: f.target.type, id: f.target.id, name: f.target.name },
      phase: f.phase,
      code,
      error: f.message,
      nextStep: nextStep(code, f.message),
    });
  }
  const drifted = report.plan.changes.filter((c) => c.action === 'drift' || c.drift?.detected === true);
  drifted.slice(0, MAX_DRIFT_LINES).forEach((c, index) => {
    const last = index === MAX_DRIFT_LINES - 1 && drifted.length > MAX_DRIFT_LINES;
    logger.warn('drift detected', {
      target: { type: c.target.type, id: c.target.id, name: c.target.name },
      kind: c.kind,
      key: c.key,
      action: c.action,
      // Paths only: a field's before/after could be a secret's note or a value nobody asked to see in a log.
      fields: c.fields.map((field) => field.path),
      changedBy: (c.drift?.attribution ?? []).map((a) => ({
        actor: a.actor,
        actorType: a.actorType,
        at: a.created,
        event: a.eventTypeName,
        ...(a.viaOwnKey === true ? { viaOwnKey: true } : {}),
      })),
      reason: c.reason,
      nextStep:
        report.command === 'apply' && c.action !== 'drift'
          ? 'this run put it back as git has it: if the change was wanted, commit it to git'
          : `not corrected by this ${report.command} run: commit the change to git if it was wanted, else let an apply run put it back`,
      ...(last ? { more: drifted.length - MAX_DRIFT_LINES } : {}),
    });
  });
}
