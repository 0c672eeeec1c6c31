/**
 * What a handler returns: a compact, JSON-serialisable summary of the run (the full report is archived under
 * `reports/`). Holds counts, file versions and failure messages, never a secret.
 */
import type { ArchiveSummary, PlanSummary, RunReport, TargetFailure } from '../core/model.ts';
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
  /**
   * A run limited to some projects (the manual event's "projects"): how many, and the first
   * {@link MAX_LISTED_FAILURES} ids (sorted). Absent when the run covered every target: its counts then speak of those
   * projects alone, and no organization or version manifest was planned.
   */
  projects?: { count: number; ids: string[] };
  applied?: number;
  failed?: number;
  drift?: number;
  blocked?: number;
  targetsFailed?: number;
  apiCalls?: number;
  durationMs?: number;
  /**
   * Which revision of the desired state the run used: digest and each file's path and S3 version (ETag), the first
   * {@link MAX_LISTED_FILES} (sorted by path; the archived report has them all, `filesNotListed` counts the others).
   */
  desired?: { digest: string; files: { path: string; version?: string }[]; filesNotListed?: number };
  /** Whether the desired state came from the desired-state cache ('hit'), was parsed ('miss'), or the cache is off. */
  desiredCache?: 'hit' | 'miss' | 'off';
  /** The run's failures (at most {@link MAX_LISTED_FAILURES}; `targetsFailed` counts them, the report has them all). */
  failures?: {
    target: string;
    phase: TargetFailure['phase'];
    message: string;
    code?: string;
    /** The HTTP status of Ops Manager's error answer, when the failure is one. */
    httpStatus?: number;
  }[];
  /** Changes whose apply failed or did not converge (at most {@link MAX_LISTED_CHANGES}). */
  failedChanges?: {
    target: string;
    kind: string;
    key: string;
    action: string;
    status: string;
    message?: string;
    code?: string;
    /** The HTTP status of Ops Manager's error answer, when the change failed on one. */
    httpStatus?: number;
  }[];
  /** How many failures `failures` leaves out (only when it does). */
  failuresNotListed?: number;
  /** How many changes `failedChanges` leaves out (only when it does; `failed` and the archived report count them all). */
  failedChangesNotListed?: number;
  /** Where the full report was archived (`s3://<data bucket>/archive/reports/<date>/<runId>.json`), when it was. */
  report?: string;
  error?: ErrorOutcome;
  /** An archive run that failed in part: whether a later attempt can get past every failure (ArchiveSummary.retryable). */
  retryable?: boolean;
  /**
   * An archive run: what it stored (ArchiveSummary without locations and errors, which `failures` lists): the version
   * manifest's sha256 and whether it was new (`changed`), a lost copy written again (`restored`) or a manifest seen
   * before that the last archive did not find (`previous`: the one it found); the usage month and the keys written
   * (sorted);
   * `incomplete`: the parts not stored, or stored without some of their reads. Without it an archive's answer said
   * only planning counts, all zero.
   */
  archive?: {
    manifest?: { sha256: string; changed: boolean; restored?: true; previous?: string };
    usage?: { month: string; keys: string[]; projects?: number };
    incomplete?: string[];
  };
  /** DESIRED_STATE_INVALID: the first {@link MAX_LISTED_ISSUES} problems (the error's message counts them all). */
  issues?: ListedIssue[];
  reason?: string;
  /**
   * The run's warnings (at most {@link MAX_LISTED_WARNINGS}; the archived report has them all): a lease not released, a
   * corrupt state recovered, a report not written...
   */
  warnings?: string[];
  /** The run stopped starting writes before its end (its Lambda's time limit near): why, and how many it left. */
  interrupted?: { reason: string; notStarted: number };
  /** How many targets a change window held (their `writes held by change window` lines say which and until when). */
  heldByWindows?: number;
  /**
   * An apply that lifted change windows (RunReport.windowsIgnoredBy): `manual event "ignoreWindows": true`. Its
   * `warnings` name each target written despite a window (`CHANGE WINDOW IGNORED`).
   */
  windowsIgnoredBy?: string;
}

/** One problem of an invalid desired state, as `validate` prints it. */
export interface ListedIssue {
  file: string;
  line: number;
  column: number;
  path: string;
  message: string;
}

/** Most desired-state problems listed in a summary: enough to act on, small enough for a log line. */
export const MAX_LISTED_ISSUES = 20;

/**
 * The problems an error carries (DesiredStateInvalidError's `issues`), first {@link MAX_LISTED_ISSUES}; undefined for
 * other errors. A Lambda's caller has no `validate` output to read: without these it would learn only a count. Issue
 * messages never quote a secret value (a secret literal is described, not echoed: core/desired/schema-messages.ts).
 */
export function listedIssues(error: unknown): ListedIssue[] | undefined {
  const issues = (error as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  return issues.slice(0, MAX_LISTED_ISSUES).map((raw) => {
    const issue = (raw ?? {}) as Partial<Record<keyof ListedIssue, unknown>>;
    return {
      file: String(issue.file ?? ''),
      line: typeof issue.line === 'number' ? issue.line : 0,
      column: typeof issue.column === 'number' ? issue.column : 0,
      path: String(issue.path ?? ''),
      message: String(issue.message ?? ''),
    };
  });
}

/** Most warnings listed in a summary. */
export const MAX_LISTED_WARNINGS = 20;

/** Most failed changes listed in a summary (the archived report has them all). */
export const MAX_LISTED_CHANGES = 20;

/**
 * Most failures listed in a summary: the summary is the handler's answer and the `run finished` log line, and Ops
 * Manager down for 1,000 projects would otherwise make that line pass CloudWatch's 256 KB per event, where it is cut
 * and no longer JSON (the runbook's queries on `summary.status` would then find nothing).
 */
export const MAX_LISTED_FAILURES = 20;

/**
 * Most desired-state files listed in a summary. About 90 bytes each (path and ETag): every file of 3,000 (one file per
 * project, as the benchmark lays them out) would pass CloudWatch's 256 KB per event on their own.
 */
export const MAX_LISTED_FILES = 500;

/** Maps a finished report to the summary. */
export function summarise(report: RunReport, trigger: string, command: RunCommand, durationMs: number): RunSummary {
  const s = report.summary;
  const failedChanges = report.results.filter((r) => r.status === 'failed' || r.status === 'not-converging');
  return {
    status: s.targetsFailed > 0 || s.failed > 0 || report.interrupted !== undefined ? 'partial' : 'ok',
    trigger,
    runId: report.runId,
    command,
    mode: report.mode,
    planned: s.planned,
    ...(report.plan.projects === undefined
      ? {}
      : { projects: { count: report.plan.projects.length, ids: report.plan.projects.slice(0, MAX_LISTED_FAILURES) } }),
    applied: s.applied,
    failed: s.failed,
    drift: s.drift,
    blocked: s.blocked,
    targetsFailed: s.targetsFailed,
    apiCalls: report.apiCalls.total,
    durationMs,
    desired: {
      digest: report.plan.desired.digest,
      files: report.plan.desired.files
        .slice(0, MAX_LISTED_FILES)
        .map((f) => (f.version ? { path: f.path, version: f.version } : { path: f.path })),
      ...(report.plan.desired.files.length > MAX_LISTED_FILES
        ? { filesNotListed: report.plan.desired.files.length - MAX_LISTED_FILES }
        : {}),
    },
    ...(report.desiredCache ? { desiredCache: report.desiredCache } : {}),
    ...(report.reportLocation ? { report: report.reportLocation } : {}),
    ...(report.interrupted ? { interrupted: report.interrupted } : {}),
    ...(report.heldByWindows?.length ? { heldByWindows: report.heldByWindows.length } : {}),
    ...(report.windowsIgnoredBy === undefined ? {} : { windowsIgnoredBy: report.windowsIgnoredBy }),
    ...(report.archive?.retryable === undefined ? {} : { retryable: report.archive.retryable }),
    ...(report.archive === undefined ? {} : { archive: archiveOutcome(report.archive) }),
    ...(report.warnings?.length ? { warnings: report.warnings.slice(0, MAX_LISTED_WARNINGS) } : {}),
    ...(report.failures.length > MAX_LISTED_FAILURES
      ? { failuresNotListed: report.failures.length - MAX_LISTED_FAILURES }
      : {}),
    failures: report.failures.slice(0, MAX_LISTED_FAILURES).map((f) => ({
      target: `${f.target.type}:${f.target.name}`,
      phase: f.phase,
      message: f.message,
      ...(f.code ? { code: f.code } : {}),
      ...(f.httpStatus === undefined ? {} : { httpStatus: f.httpStatus }),
    })),
    ...(failedChanges.length > MAX_LISTED_CHANGES
      ? { failedChangesNotListed: failedChanges.length - MAX_LISTED_CHANGES }
      : {}),
    failedChanges: failedChanges.slice(0, MAX_LISTED_CHANGES).map((r) => ({
      target: `${r.change.target.type}:${r.change.target.name}`,
      kind: r.change.kind,
      key: r.change.key,
      action: r.change.action,
      status: r.status,
      ...(r.message ? { message: r.message } : {}),
      ...(r.code ? { code: r.code } : {}),
      ...(r.httpStatus === undefined ? {} : { httpStatus: r.httpStatus }),
    })),
  };
}

/** What an archive run stored, for its summary: see {@link RunSummary}'s `archive`. */
function archiveOutcome(archive: ArchiveSummary): NonNullable<RunSummary['archive']> {
  const { manifest, usage, incomplete } = archive;
  return {
    ...(manifest === undefined
      ? {}
      : {
          manifest: {
            sha256: manifest.sha256,
            changed: manifest.changed,
            ...(manifest.restored === true ? { restored: true as const } : {}),
            ...(manifest.previous === undefined ? {} : { previous: manifest.previous }),
          },
        }),
    ...(usage === undefined
      ? {}
      : {
          usage: {
            month: usage.month,
            keys: [...usage.keys].sort(),
            ...(usage.projects === undefined ? {} : { projects: usage.projects }),
          },
        }),
    ...(incomplete === undefined || incomplete.length === 0 ? {} : { incomplete: [...incomplete] }),
  };
}
