/**
 * The write phase of an `apply` run: executes the plan under the lease (only for targets whose mode allows it), then
 * saves the state. A failed save keeps the run's report and is listed as a failure: the next run adopts.
 */
import { applyPlan } from './apply.ts';
import { loadForPlaces, secretLocator } from './apply-secret-places.ts';
import { sha256Hex } from './canonical.ts';
import { holdText } from './change-windows.ts';
import { errorCode, errorMessage } from './concurrency.ts';
import { ReconcileError } from './errors.ts';
import { recordStreaks } from './fight-streak.ts';
import type { HeldLease } from './lease.ts';
import { type ChangeResult, type Plan, type TargetFailure, targetKey } from './model.ts';
import { stricter } from './modes.ts';
import type { OpsManagerApi, SecretResolver } from './ports.ts';
import { STATE_TARGET } from './report.ts';
import type { RunOptions } from './run.ts';
import type { RunDependencies, RunRequest } from './run-types.ts';
import { otherOpsManagerWarning } from './state-origin.ts';
import { forgetDeparted, forgetGoneDeparted } from './state-retention.ts';
import type { StateSession } from './state-save.ts';

/** What the write phase needs from the run. */
export interface ApplyPhase {
  request: RunRequest;
  deps: RunDependencies;
  secrets: SecretResolver;
  session: StateSession;
  lease: HeldLease;
  time: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
  options: RunOptions;
}

/**
 * Why a target's writes are skipped: the stricter of its planned mode and the request's cap is not `apply`, or a
 * change window holds it (`plan.windowHolds`, evaluated when this run's writes start; empty with --ignore-windows).
 */
export function skipReasonFor(plan: Plan, cap: RunRequest['mode']): (key: string) => string | undefined {
  return (key) => {
    const mode = stricter(plan.targetModes?.[key] ?? plan.mode, cap ?? 'apply');
    if (mode !== 'apply') return `target mode is ${mode} (spec.mode or Settings.mode, capped by --mode): not written`;
    const hold = plan.windowHolds?.[key];
    return hold === undefined ? undefined : `${holdText(hold)}: not written`;
  };
}

/**
 * The API to write through: once `signal` aborts, a write not yet sent (waiting for a slot, or out a 429's
 * Retry-After) is not sent, and a stopped run does not sit out the wait; a write on the wire still gets its answer.
 */
function writesOf(api: OpsManagerApi, signal: AbortSignal | undefined): OpsManagerApi {
  return signal === undefined || api.withStopWaiting === undefined ? api : api.withStopWaiting(signal);
}

/** Applies `plan` and saves the state. */
export async function applyAndSave(
  plan: Plan,
  phase: ApplyPhase,
): Promise<{ results: ChangeResult[]; failures: TargetFailure[]; warnings: string[] }> {
  const { request, deps, session, time } = phase;
  const skipReason = skipReasonFor(plan, request.mode);
  // Read before any save of this run records the new base URL: another installation's answers about a departed
  // project (404 GROUP_NOT_FOUND, or a list without the recorded ids) say nothing of the configs the state records.
  const otherInstallation = otherOpsManagerWarning(session.state, deps.opsManagerUrl) !== undefined;
  const save = () =>
    session.save({
      now: deps.clock.now().toISOString(),
      runId: request.runId,
      mode: plan.mode,
      ...(deps.opsManagerUrl === undefined ? {} : { opsManagerUrl: deps.opsManagerUrl }),
      fingerprintKey: deps.fingerprintKey,
    });
  const outcome = await time('apply', () =>
    applyPlan(
      plan,
      {
        api: writesOf(deps.api, request.signal),
        verifyApi: deps.api,
        secrets: phase.secrets,
        fingerprintKey: deps.fingerprintKey,
        clock: deps.clock,
        reporter: deps.reporter,
        runId: request.runId,
        state: session.state,
        skipReason,
        persist: save,
        keepAlive: () => phase.lease.keepAlive(),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        // A saved plan's run holds no desired state, and one made now dropped it: loaded again only if a secret fails.
        locateSecrets: secretLocator(plan, () => loadForPlaces(deps)),
        // The pin is read again for the upload: each refusal says where, why, that nothing was uploaded, and what to do.
        readPin: async (path, sha256) => {
          let bytes: Uint8Array;
          try {
            ({ bytes } = await deps.source.read(path));
          } catch (error) {
            throw new ReconcileError(
              'PIN_UNREADABLE',
              `pinned manifest ${path} cannot be read again from ${deps.source.describe()} for the upload: ${errorMessage(error)}; nothing was uploaded: put the file back as it was planned, or run plan again`,
              { cause: error },
            );
          }
          const now = sha256Hex(bytes);
          if (now !== sha256) {
            throw new ReconcileError(
              'PIN_CHANGED',
              `pinned manifest ${path} changed since the plan was made (sha256 ${sha256.slice(0, 12)} planned, ${now.slice(0, 12)} now): neither content was uploaded; run plan again to review and apply the new pin`,
            );
          }
          return new TextDecoder().decode(bytes);
        },
      },
      { targetConcurrency: phase.options.applyConcurrency },
    ),
  );
  recordStreaks(plan, outcome.results, session.state, skipReason);
  for (const key of Object.keys(plan.liveDigests)) if (skipReason(key) === undefined) session.touched.add(key);
  for (const c of plan.changes)
    if (skipReason(targetKey(c.target)) === undefined) session.touched.add(targetKey(c.target));
  // Only a plan made now for every desired target (no --project, no saved plan) tells which targets left git.
  if (request.projects === undefined && request.savedPlan === undefined && request.signal?.aborted !== true) {
    const planned = new Set(Object.keys(plan.targetModes ?? {}));
    if (!otherInstallation) await forgetGoneDeparted(session.state, planned, deps.api, phase.options.applyConcurrency);
    forgetDeparted(session.state, planned);
  }
  const warnings = [...outcome.warnings];
  const failures = [...outcome.failures];
  try {
    await time('save', save);
  } catch (error) {
    // The writes happened; without the record the next run recovers ownership by adoption. Say so, keep the report.
    const message = `the state could not be saved after applying: ${errorMessage(error)}; the next run recovers ownership by adoption`;
    warnings.push(message);
    // With the error's code (S3_ACCESS, S3_ACCESS_DENIED, STATE_CONFLICT...): without one the handlers log it as
    // INTERNAL, whose next step calls a throttled or refused state write a bug.
    const code = errorCode(error);
    failures.push({ target: { ...STATE_TARGET }, phase: 'apply', message, ...(code === undefined ? {} : { code }) });
  }
  return { results: outcome.results, failures, warnings };
}
