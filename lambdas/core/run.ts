/**
 * One run of the pipeline, as one function reads:
 * load desired -> validate -> resolve secrets -> read live -> normalise -> diff -> plan -> safety gates -> apply ->
 * verify -> save state -> report. The CLI and the Lambda handlers call `runReconcile` with their adapters.
 */
import { notArchived, runArchive } from './archive-run.ts';
import { errorMessage } from './concurrency.ts';
import { deriveCacheAuthKey } from './desired/cache.ts';
import {
  checkSnapshot,
  DEFAULT_SNAPSHOT_POLICY,
  type DesiredCacheStatus,
  loadDesiredStateCached,
} from './desired/index.ts';
import { DesiredStateInTransitError, DesiredStateInvalidError, ReconcileError, STATE_WAS_CORRUPT } from './errors.ts';
import { rewordUnwrittenFights } from './fight-notice.ts';
import { INTERRUPTED_MESSAGE, interruptReason, RunInterruptedError } from './interrupt.ts';
import {
  acquireLease,
  DEFAULT_LEASE_OPTIONS,
  type HeldLease,
  LEASE_RELEASE_FAILED,
  type LeaseOptions,
} from './lease.ts';
import {
  type ChangeResult,
  type DesiredState,
  PLAN_FORMAT_VERSION,
  type Plan,
  type RunReport,
  type TargetFailure,
  targetKey,
} from './model.ts';
import { runMode } from './modes.ts';
import { DEFAULT_PLAN_OPTIONS, makePlan, type PlanOptions } from './plan.ts';
import type { OpsManagerApi } from './ports.ts';
import { ARCHIVE_TARGET, collectFailures, REPORT_NOT_WRITTEN, summariseRun, writeReport } from './report.ts';
import { CachingSecretResolver } from './resolve-secrets.ts';
import { applyAndSave } from './run-apply.ts';
import type { RunDependencies, RunRequest } from './run-types.ts';
import { assertPlanFresh, assertStateUnchanged, checkSavedPlan } from './saved-plan.ts';
import { withCurrentWindows } from './saved-plan-windows.ts';
import { StateSession } from './state-save.ts';
import { heldByWindows, windowsIgnoredBy, withApplyHolds } from './window-holds-run.ts';

/** Options of a run. */
export interface RunOptions {
  plan: PlanOptions;
  lease: LeaseOptions;
  /** Targets written at once. Default 8. */
  applyConcurrency: number;
}

/** Defaults of RunOptions. */
export const DEFAULT_RUN_OPTIONS: RunOptions = {
  plan: DEFAULT_PLAN_OPTIONS,
  lease: DEFAULT_LEASE_OPTIONS,
  applyConcurrency: 8,
};

const COMMANDS = new Set(['plan', 'apply', 'observe', 'archive']);

function emptyPlan(request: RunRequest, createdAt: string, desired?: DesiredState): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: request.runId,
    createdAt,
    mode: runMode(request.command, request.mode),
    desired: { digest: desired?.digest ?? '', files: desired?.files ?? [] },
    liveDigests: {},
    // An archive limited to some projects says so in its report, as a limited plan does.
    ...(request.projects === undefined ? {} : { projects: [...new Set(request.projects)].sort() }),
    changes: [],
    failures: [],
  };
}

/** The API to plan through: stopped by `signal` when the API can be (OpsManagerApi.withSignal). */
function readsOf(api: OpsManagerApi, signal: AbortSignal | undefined): OpsManagerApi {
  return signal === undefined || api.withSignal === undefined ? api : api.withSignal(signal);
}

/** Code of a part of the archive that could not be stored (its message names the part and the error). */
export const ARCHIVE_FAILED = 'ARCHIVE_FAILED';

/** Most unknown ids a refusal lists (a selection may name thousands); the rest are counted. */
const LISTED_UNKNOWN = 5;
/** Most known ids a refusal lists. */
const LISTED_KNOWN = 10;

/**
 * Refuses a project selection naming a project the desired state does not have, before any API call: a mistyped id
 * would otherwise check nothing and report "no changes". `field` is what the caller calls the selection. Returns the
 * selection as project ids, without repeats: an entry that is no id but a project's `metadata.name` stands for its
 * id.
 */
function checkRequestedProjects(
  desired: DesiredState,
  projects: readonly string[] | undefined,
  field: string | undefined,
): string[] | undefined {
  if (projects === undefined) return undefined;
  const known = desired.projects.map((p) => p.projectId);
  const knownSet = new Set(known);
  // A project's metadata.name stands for its id (the CLI's `--project payments-prod`): names are unique in a valid
  // desired state (cross-checks.ts), so one name is one project.
  const byName = new Map(desired.projects.map((p) => [p.name, p.projectId]));
  const resolved = projects.map((entry) => (knownSet.has(entry) ? entry : (byName.get(entry) ?? entry)));
  const unknown = resolved.filter((id) => !knownSet.has(id));
  if (unknown.length === 0) return [...new Set(resolved)];
  // Each id with its metadata.name: ids alone do not tell which project the selection meant.
  const labels = desired.projects.map((p) => `${p.projectId} (${p.name})`);
  const shown = labels.length > LISTED_KNOWN ? `${labels.slice(0, LISTED_KNOWN).join(', ')}, ...` : labels.join(', ');
  const more = unknown.length - LISTED_UNKNOWN;
  const listed = `${unknown.slice(0, LISTED_UNKNOWN).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  // An organization's id is 24 hex too, and a run limited to projects plans no organization: say what it is.
  const orgs = new Map(desired.organizations.map((o) => [o.orgId, o.name]));
  const named = unknown.filter((id) => orgs.has(id));
  const orgHint =
    named.length === 0
      ? ''
      : `; ${named.map((id) => `${id} is the organization ${orgs.get(id)}`).join(', ')}: a selection takes project ids only, and an organization is planned by a run without one`;
  throw new ReconcileError(
    'UNKNOWN_PROJECT',
    `${unknown.length === 1 ? 'project' : 'projects'} ${listed} asked for${field ? ` (${field})` : ''} but not in the desired state, which has ${known.length === 0 ? 'no projects' : `${known.length}: ${shown}`}${orgHint}; nothing was read or written`,
  );
}

/** The request with its selection as project ids (names resolved), or as it was when it has none. */
function withProjects(request: RunRequest, projects: string[] | undefined): RunRequest {
  return projects === undefined ? request : { ...request, projects };
}

/**
 * Loads and validates the desired state (through the desired-state cache when the deps have one), then checks it
 * against the upload's snapshot manifest (snapshot-check.ts): a torn upload stops the run here, before the lease and
 * before any Ops Manager request, with DESIRED_STATE_IN_TRANSIT.
 */
async function loadDesired(
  deps: RunDependencies,
  cacheStatus?: (status: DesiredCacheStatus) => void,
): Promise<DesiredState> {
  const authKey = deps.desiredCache ? deriveCacheAuthKey(deps.fingerprintKey) : undefined;
  const loadedAll = await loadDesiredStateCached(deps.source, {}, deps.desiredCache, authKey);
  const { result: loaded, cache } = loadedAll;
  cacheStatus?.(cache);
  const policy = deps.desiredSnapshot ?? DEFAULT_SNAPSHOT_POLICY;
  if (!loaded.ok) {
    // A torn upload often does not validate (a project naming a template not uploaded yet): that is said as in
    // transit (retried), not as a broken desired state. Any other outcome of the check leaves the issues to report.
    if (loadedAll.invalidFiles !== undefined) {
      try {
        const unhashed = loadedAll.unhashedFiles;
        await checkSnapshot(
          deps.source,
          { files: loadedAll.invalidFiles, ...(unhashed === undefined ? {} : { unhashed }) },
          policy,
        );
      } catch (error) {
        if (error instanceof DesiredStateInTransitError) throw error;
      }
    }
    // S3 throttled or unreachable: the source's error (retryable), not "the desired state is invalid" (final).
    if (loadedAll.sourceError !== undefined) throw loadedAll.sourceError;
    throw new DesiredStateInvalidError(
      loaded.issues,
      `the desired state in ${deps.source.describe()} has ${loaded.issues.length} problem(s); run validate`,
    );
  }
  const pin = loaded.state.settings.versionManifest?.pin;
  const snapshot = await checkSnapshot(
    deps.source,
    { files: loaded.state.files, ...(pin === undefined ? {} : { pin: { path: pin.path, sha256: pin.sha256 } }) },
    policy,
  );
  if (snapshot.manifest === 'matched') {
    deps.reporter.progress(`desired state matches its snapshot manifest (${snapshot.files} files)`, {
      snapshotFiles: snapshot.files,
    });
  }
  return loaded.state;
}

function callsSince(
  before: { total: number; byEndpoint: Record<string, number> } | undefined,
  after: { total: number; byEndpoint: Record<string, number> } | undefined,
): { total: number; byEndpoint: Record<string, number> } {
  if (after === undefined) return { total: 0, byEndpoint: {} };
  const byEndpoint: Record<string, number> = {};
  for (const [k, v] of Object.entries(after.byEndpoint)) {
    const n = v - (before?.byEndpoint[k] ?? 0);
    if (n > 0) byEndpoint[k] = n;
  }
  return { total: after.total - (before?.total ?? 0), byEndpoint };
}

/**
 * Runs one command. Throws ReconcileError subclasses for run-level refusals (invalid desired state, a held lease,
 * a stale saved plan); every per-target problem is in the report instead.
 */
export async function runReconcile(
  request: RunRequest,
  deps: RunDependencies,
  options: RunOptions = DEFAULT_RUN_OPTIONS,
): Promise<RunReport> {
  if (!COMMANDS.has(request.command))
    throw new ReconcileError('BAD_REQUEST', `unknown command ${String(request.command)}`);
  if (typeof request.runId !== 'string' || request.runId === '')
    throw new ReconcileError('BAD_REQUEST', 'runId is required');
  const startedAt = deps.clock.now().toISOString();
  const t0 = Date.now();
  const durationsMs: Record<string, number> = {};
  const time = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const s = Date.now();
    try {
      return await fn();
    } finally {
      durationsMs[name] = (durationsMs[name] ?? 0) + (Date.now() - s);
    }
  };
  const callsBefore = deps.apiCalls?.();
  const secrets = new CachingSecretResolver(deps.secrets);
  const warnings: string[] = [];
  let plan: Plan;
  let results: ChangeResult[] = [];
  let applyFailures: TargetFailure[] = [];
  let archive: RunReport['archive'];
  let desiredCache: DesiredCacheStatus | undefined;
  const onCache = (status: DesiredCacheStatus) => {
    desiredCache = status;
  };

  if (request.command === 'archive') {
    const desired = await time('load', () => loadDesired(deps, onCache));
    request = withProjects(request, checkRequestedProjects(desired, request.projects, request.projectsField));
    plan = emptyPlan(request, startedAt, desired);
    archive = await time('archive', () => runArchive(desired, request.projects, deps, (w) => warnings.push(w)));
  } else {
    const saved = request.savedPlan === undefined ? undefined : checkSavedPlan(request.savedPlan);
    if (saved !== undefined && request.command !== 'apply') {
      throw new ReconcileError('BAD_REQUEST', 'a saved plan can only be applied (command apply)');
    }
    // Dropped once the plan is made: apply works from the plan alone (but for a saved plan's change windows, read again
    // when its writes start), and a large desired state need not stay alive.
    let desired = saved === undefined ? await time('load', () => loadDesired(deps, onCache)) : undefined;
    if (desired !== undefined) {
      request = withProjects(request, checkRequestedProjects(desired, request.projects, request.projectsField));
    }
    // Planning only reads, through a view of the API that the run's signal stops: a stopped run does not wait for
    // answers that may never come (a hung Ops Manager, up to a deadline per request). Writes, and the reads that
    // verify them, go through deps.api itself, so a write in flight always gets its answer.
    const reads = readsOf(deps.api, request.signal);
    let lease: HeldLease | undefined;
    if (request.command === 'apply') {
      lease = await time('lease', () =>
        acquireLease(
          deps.state,
          deps.clock,
          {
            owner: request.owner,
            runId: request.runId,
            waitMs: request.leaseWaitMs ?? 0,
            ...(request.signal === undefined ? {} : { signal: request.signal }),
          },
          options.lease,
        ),
      );
    }
    try {
      // Inside the try: whatever the callback does, the lease is released.
      if (lease !== undefined) request.onLeaseHeld?.();
      const session = await time('state', () => StateSession.open(deps.state, startedAt));
      if (session.loaded.corrupt) {
        warnings.push(
          `${STATE_WAS_CORRUPT} (${session.loaded.corruptMessage ?? 'unreadable'}): ownership is recovered by adoption and nothing is pruned this run`,
        );
      }
      if (saved !== undefined) {
        // First, before any read of Ops Manager: the state held under the lease is the one the plan was made against.
        const { existed, state } = session.loaded;
        assertStateUnchanged(saved, {
          version: session.openedVersion,
          ...(existed && state.lastRun !== undefined ? { lastRun: state.lastRun } : {}),
        });
        await time('verifySavedPlan', async () => {
          try {
            await assertPlanFresh(saved, reads);
          } catch (error) {
            // Reads the signal stopped make the plan look stale; the truth is that the run was stopped.
            if (request.signal?.aborted) throw new RunInterruptedError(request.signal);
            throw error;
          }
        });
        plan = saved;
      } else {
        plan = await time('plan', () =>
          makePlan(
            {
              runId: request.runId,
              createdAt: startedAt,
              command: request.command,
              modeCap: request.mode,
              desired: desired as DesiredState,
              projects: request.projects,
              ...(request.projectsField === undefined ? {} : { projectsField: request.projectsField }),
              state: session.loaded.state,
              stateCorrupt: session.loaded.corrupt,
              ...(session.loaded.corruptMessage === undefined
                ? {}
                : { stateCorruptMessage: session.loaded.corruptMessage }),
              stateVersion: session.openedVersion,
              overrides: request.overrides,
              ...(deps.opsManagerUrl === undefined ? {} : { opsManagerUrl: deps.opsManagerUrl }),
              ...(request.planForApply === true ? { refreshRecords: true } : {}),
            },
            {
              api: reads,
              secrets,
              fingerprintKey: deps.fingerprintKey,
              actorPublicKey: deps.actorPublicKey,
              reporter: deps.reporter,
              keepAlive: lease === undefined ? undefined : () => (lease as HeldLease).keepAlive(),
              ...(request.signal === undefined ? {} : { signal: request.signal }),
            },
            options.plan,
          ),
        );
      }
      desired = undefined;
      warnings.push(...(plan.warnings ?? []).filter((w) => !w.startsWith(STATE_WAS_CORRUPT)));
      // Windows are those of the moment of writing: now, with the lock held and the plan made or checked, for a saved
      // plan as for one made now. Not the run's start: a --lease-wait of up to a day, or a long planning, would let
      // writes start inside a freeze that opened meanwhile.
      if (request.command === 'apply') {
        // A saved plan is held by the windows in git now, not those it recorded: a freeze committed after it was saved
        // holds it. Read here, under the lease, as late as can be (a desired-state cache hit is cheap).
        if (saved !== undefined) {
          const recorded = plan;
          plan = await time('load', () => withCurrentWindows(recorded, () => loadDesired(deps, onCache), warnings));
        }
        const writesStart = deps.clock.now().toISOString();
        plan = withApplyHolds(plan, writesStart, windowsIgnoredBy(request), warnings, request.mode);
      }
      if (request.command === 'apply' && lease !== undefined) {
        const outcome = await applyAndSave(plan, { request, deps, secrets, session, lease, time, options });
        results = outcome.results;
        applyFailures = outcome.failures;
        // A plan-time fight warning says the run put the object back: not true of a write that failed or was skipped.
        rewordUnwrittenFights(warnings, results);
        warnings.push(...outcome.warnings);
      }
    } finally {
      if (lease !== undefined) {
        const held = lease;
        await held
          .release()
          .catch((error: unknown) =>
            warnings.push(
              `${LEASE_RELEASE_FAILED} (it stays until ${held.lease.expiresAt}; runs until then are skipped): ${errorMessage(error)}`,
            ),
          );
      }
    }
  }

  const failures = collectFailures(plan, applyFailures, results);
  const report: RunReport = {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: request.runId,
    startedAt,
    finishedAt: deps.clock.now().toISOString(),
    mode: plan.mode,
    command: request.command,
    plan,
    results,
    failures,
    summary: summariseRun(plan, results, failures),
    apiCalls: callsSince(callsBefore, deps.apiCalls?.()),
    durationsMs,
  };
  const notStarted = results.filter((r) => r.status === 'skipped' && r.message === INTERRUPTED_MESSAGE).length;
  if (request.signal?.aborted && notStarted > 0) {
    const reason = interruptReason(request.signal);
    report.interrupted = { reason, notStarted };
    warnings.unshift(
      `INTERRUPTED (${reason}): ${notStarted} planned write(s) not started; the writes in flight finished, the state was saved and the lock released`,
    );
  }
  const held = request.command === 'apply' ? heldByWindows(plan, request.mode, results) : [];
  if (held.length > 0) report.heldByWindows = held;
  const ignoredBy = windowsIgnoredBy(request);
  if (ignoredBy !== undefined) report.windowsIgnoredBy = ignoredBy;
  if (warnings.length > 0) report.warnings = warnings;
  if (desiredCache !== undefined) report.desiredCache = desiredCache;
  if (archive !== undefined) {
    report.archive = archive;
    for (const e of archive.errors) {
      failures.push({ target: { ...ARCHIVE_TARGET }, phase: 'apply', message: e, code: ARCHIVE_FAILED });
    }
    report.summary.targetsFailed = new Set(failures.map((f) => targetKey(f.target))).size;
    // An archive the signal stopped before every part was stored says so in the report it stores, not only in what
    // the CLI prints: the parts not stored are the ones the next run completes.
    const missing = request.archiveStopsOnSignal === true && request.signal?.aborted ? notArchived(archive) : [];
    if (missing.length > 0)
      report.interrupted = { reason: interruptReason(request.signal), notStarted: missing.length };
  }
  durationsMs.total = Date.now() - t0;
  try {
    report.reportLocation = await writeReport(deps.archive, report);
  } catch (error) {
    report.warnings = [...(report.warnings ?? []), `${REPORT_NOT_WRITTEN}: ${errorMessage(error)}`];
  }
  deps.reporter.metric('ChangesApplied', report.summary.applied, 'Count');
  return report;
}
