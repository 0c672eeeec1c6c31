/**
 * What a handler returns: a compact, JSON-serialisable summary of the run (the full report is archived under
 * `reports/`). Holds counts, file versions and failure messages, never a secret.
 */
import type { PlanSummary, RunReport, TargetFailure } from '../core/model.ts';
import type { RunCommand } from '../core/run-types.ts';
import type { ErrorOutcome } from './errors.ts';

/** The handler's answer. */
export interface RunSummary {
  /** ok: done, nothing failed; partial: some targets failed; failed: the run did not complete; skipped/ignored/rejected: no run. */
  status: 'ok' | 'partial' | 'failed' | 'skipped' | 'ignored' | 'rejected';
  trigger: string;
  runId?: string;
  command?: RunCommand;
  mode?: string;
  planned?: PlanSummary;
  applied?: number;
  failed?: number;
  drift?: number;
  blocked?: number;
  targetsFailed?: number;
  apiCalls?: number;
  durationMs?: number;
  /** Which revision of the desired state the run used: digest and each file's path and S3 version (ETag). */
  desired?: { digest: string; files: { path: string; version?: string }[] };
  failures?: { target: string; phase: TargetFailure['phase']; message: string; code?: string }[];
  error?: ErrorOutcome;
  reason?: string;
}

/** Maps a finished report to the summary. */
export function summarise(report: RunReport, trigger: string, command: RunCommand, durationMs: number): RunSummary {
  const s = report.summary;
  return {
    status: s.targetsFailed > 0 || s.failed > 0 ? 'partial' : 'ok',
    trigger,
    runId: report.runId,
    command,
    mode: report.mode,
    planned: s.planned,
    applied: s.applied,
    failed: s.failed,
    drift: s.drift,
    blocked: s.blocked,
    targetsFailed: s.targetsFailed,
    apiCalls: report.apiCalls.total,
    durationMs,
    desired: {
      digest: report.plan.desired.digest,
      files: report.plan.desired.files.map((f) =>
        f.version ? { path: f.path, version: f.version } : { path: f.path },
      ),
    },
    failures: report.failures.map((f) => ({
      target: `${f.target.type}:${f.target.name}`,
      phase: f.phase,
      message: f.message,
      ...(f.code ? { code: f.code } : {}),
    })),
  };
}
