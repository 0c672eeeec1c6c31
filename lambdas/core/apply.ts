/**
 * Apply: executes a plan's writes and never diffs again. Pending-create markers are saved before any POST; targets
 * run concurrently and fail independently; within a target changes run in plan order; alert config deletes run in a
 * second wave after every target's creates and updates, only for targets whose alert config writes all succeeded and
 * for keys not left uncreated in another project; every write is verified by a re-read (non-convergence guard).
 */
import { type AlertApplyContext, checkBody, markPending, plannedAlertIds, recordVerified } from './apply-alerts.ts';
import { recordReconciled } from './apply-bookkeeping.ts';
import type { SecretLocator } from './apply-secret-places.ts';
import { type PinReader, recordSingleton } from './apply-singletons.ts';
import { applyTarget, failedWith, heldAfterFailure, notStarted } from './apply-target.ts';
import { errorCode, errorMessage, mapLimit } from './concurrency.ts';
import { heldByBlockedCreates, heldForCreateElsewhere } from './held-deletes.ts';
import { INTERRUPTED_MESSAGE } from './interrupt.ts';
import type { Change, ChangeResult, Plan, TargetFailure } from './model.ts';
import { targetKey } from './model.ts';
import { isWrite } from './modes.ts';
import type { Clock, OpsManagerApi, ReconcileState, Reporter, SecretResolver } from './ports.ts';
import { setAlertRecord } from './state.ts';
import { verifyTarget } from './verify.ts';

/** Options of apply. */
export interface ApplyOptions {
  /** Targets written at once (the client's limiter caps requests underneath). Default 8. */
  targetConcurrency: number;
}

/** Defaults of ApplyOptions. */
export const DEFAULT_APPLY_OPTIONS: ApplyOptions = { targetConcurrency: 8 };

/** What apply talks to. */
export interface ApplyContext {
  api: OpsManagerApi;
  /**
   * Where the re-reads that verify written objects go (default `api`). The run's writes go through a view that stops
   * waiting once the run is stopped; the verification of writes that landed reads through the API itself, so a stopped
   * apply still verifies what it wrote instead of reporting a verify failure.
   */
  verifyApi?: OpsManagerApi;
  secrets: SecretResolver;
  fingerprintKey: Uint8Array;
  clock: Clock;
  reporter: Reporter;
  runId: string;
  /** The working state, mutated as changes are applied; the caller saves it. */
  state: ReconcileState;
  /** Why a target's writes are skipped (plan command, target mode), or undefined when it may be written. */
  skipReason: (targetKey: string) => string | undefined;
  /** Saves the working state now (used for pending-create markers before the first POST). */
  persist: () => Promise<void>;
  /** Called before each write: renews the lease when due; throws when it was lost. */
  keepAlive: () => Promise<void>;
  readPin: PinReader;
  /** Once aborted, no further write starts: the rest is skipped with INTERRUPTED_MESSAGE (interrupt.ts). */
  signal?: AbortSignal;
  /** Where a change's secret references are written, asked when one fails to resolve (AlertApplyContext). */
  locateSecrets?: SecretLocator;
}

/** The outcome of an apply. */
export interface ApplyOutcome {
  results: ChangeResult[];
  failures: TargetFailure[];
  /** Writes applied whose answer was too large to read (settled by a re-read), one line each. */
  warnings: string[];
}

/** Executes the writes of `plan`. Never throws for a change's or a target's problem. */
export async function applyPlan(
  plan: Plan,
  ctx: ApplyContext,
  options: ApplyOptions = DEFAULT_APPLY_OPTIONS,
): Promise<ApplyOutcome> {
  // Every created record carries a timestamp: within one millisecond the same ISO text is reused (20,000 creates run in
  // a few seconds, so most writes share a millisecond with another one).
  let lastMs = Number.NaN;
  let lastIso = '';
  const now = () => {
    const at = ctx.clock.now();
    const ms = at.getTime();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = at.toISOString();
    }
    return lastIso;
  };
  const alertCtx: AlertApplyContext = {
    api: ctx.api,
    secrets: ctx.secrets,
    fingerprintKey: ctx.fingerprintKey,
    state: ctx.state,
    now,
    // One per apply: dropped with the apply's context, so no secret value outlives the run.
    fingerprints: new Map(),
    ...(ctx.locateSecrets === undefined ? {} : { locateSecrets: ctx.locateSecrets }),
  };
  let plannedIds: { value: ReturnType<typeof plannedAlertIds> } | undefined;
  alertCtx.plannedIds = () => {
    plannedIds ??= { value: plannedAlertIds(plan) };
    return plannedIds.value;
  };
  const results: ChangeResult[] = [];
  const failures: TargetFailure[] = [];
  const warnings: string[] = [];
  const byTarget = new Map<string, Change[]>();
  for (const change of plan.changes) {
    const key = targetKey(change.target);
    if (!isWrite(change)) {
      // In sync, with a desired body: the record is brought up to what Ops Manager holds (a singleton's digest, or
      // an alert config's record that fell behind, record-refresh.ts); a target this run may not write keeps its own.
      if (change.action === 'noop' && change.after !== undefined && ctx.skipReason(key) === undefined) {
        if (change.kind === 'alertConfig') await recordVerified(change, alertCtx);
        else recordSingleton(ctx.state, change);
      }
      continue;
    }
    const skip = ctx.skipReason(key);
    if (skip !== undefined) {
      results.push({ change, status: 'skipped', message: skip, durationMs: 0 });
      continue;
    }
    const list = byTarget.get(key) ?? [];
    list.push(change);
    byTarget.set(key, list);
  }

  // Check every alert body first (secrets resolved now): a problem fails that change before anything is written.
  // Nothing is built here: each body is built once, right before its write (same secrets: the run's resolver caches
  // them), so no request body outlives its write and none is built twice.
  for (const [key, list] of byTarget) {
    const kept: Change[] = [];
    const prepareFailed: Change[] = [];
    for (const change of list) {
      if (change.kind !== 'alertConfig' || change.action === 'delete' || change.action === 'release') {
        kept.push(change);
        continue;
      }
      try {
        await checkBody(change, alertCtx);
        kept.push(change);
      } catch (error) {
        results.push({ change, status: 'failed', ...failedWith(error), durationMs: 0 });
        prepareFailed.push(change);
      }
    }
    // A failed create/update must still hold back this target's deletes.
    const held = (c: Change) => prepareFailed.length > 0 && c.kind === 'alertConfig' && c.action === 'delete';
    for (const d of kept.filter(held)) {
      results.push({ change: d, status: 'skipped', message: heldAfterFailure(prepareFailed), durationMs: 0 });
    }
    byTarget.set(
      key,
      kept.filter((c) => !held(c)),
    );
  }

  const creates = [...byTarget.values()].flat().filter((c) => c.action === 'create');
  // A run already stopped starts no target, so it marks no create either.
  if (creates.length > 0 && !ctx.signal?.aborted) {
    // One timestamp for the whole batch: the markers are saved together, before the first POST.
    const startedAt = now();
    const released = new Map<string, string[]>();
    for (const c of plan.changes) {
      if (c.kind !== 'alertConfig' || c.action !== 'release' || c.id === undefined) continue;
      const ids = released.get(c.target.id);
      if (ids === undefined) released.set(c.target.id, [c.id]);
      else ids.push(c.id);
    }
    // The records the markers replace: put back when the markers cannot be saved (nothing is sent then, and a marker
    // left in the state the run saves at its end would have the next run look for a duplicate of a POST never sent).
    const replaced = creates.map((c) => [c, ctx.state.projects[c.target.id]?.alertConfigs[c.key]] as const);
    for (const c of creates) markPending(ctx.state, c, ctx.runId, startedAt, released.get(c.target.id));
    try {
      await ctx.persist();
    } catch (error) {
      for (const [c, record] of replaced) setAlertRecord(ctx.state, c.target.id, c.key, record);
      // Without the markers a crash could duplicate: write nothing at all.
      for (const list of byTarget.values()) {
        for (const c of list)
          results.push({
            change: c,
            status: 'failed',
            message: `state not saved before creating: ${errorMessage(error)}`,
            ...(errorCode(error) === undefined ? {} : { code: errorCode(error) }),
            durationMs: 0,
          });
      }
      return { results, failures, warnings };
    }
  }

  // Two waves, as Argo CD's PruneLast: every target's creates and updates first, then the deletes. A config moved from
  // one project's file to another's is then deleted only once its new copy exists (see heldDeletes).
  const waves = splitDeletes(byTarget);
  let done = 0;
  const total = waves.writes.length + waves.deletes.length;
  const runWave = (targets: [string, Change[]][]) =>
    mapLimit(targets, options.targetConcurrency, async ([, list]) => {
      if (ctx.signal?.aborted)
        return { results: notStarted(list, ctx), failure: undefined, verifiedFailure: undefined, warnings: [] };
      const out = await applyTarget(list, ctx, alertCtx);
      // Echoes were checked and dropped write by write; only results and failures are kept per target.
      const verified = await verifyTarget(out.written, ctx);
      done++;
      ctx.reporter.progress(`${appliedWhat(list[0]?.target.name ?? '', out, verified)} (${done}/${total})`, {
        done,
        total,
      });
      return { results: out.results, failure: out.failure, verifiedFailure: verified.failure, warnings: out.warnings };
    });
  const collect = (outcomes: Awaited<ReturnType<typeof runWave>>) => {
    for (const o of outcomes) {
      results.push(...o.results);
      if (o.failure !== undefined) failures.push(o.failure);
      if (o.verifiedFailure !== undefined) failures.push(o.verifiedFailure);
      warnings.push(...o.warnings);
    }
  };
  collect(await runWave(waves.writes));
  const held = heldDeletes(plan, results, failures);
  const deletes: [string, Change[]][] = [];
  for (const [key, list] of waves.deletes) {
    const kept: Change[] = [];
    for (const d of list) {
      const why = held(d);
      if (why === undefined) kept.push(d);
      else results.push({ change: d, status: 'skipped', message: why, durationMs: 0 });
    }
    if (kept.length > 0) deletes.push([key, kept]);
    else {
      // Every delete of this target held: it is done all the same, so the progress count still reaches its total.
      done++;
      ctx.reporter.progress(`held the deletes of ${list[0]?.target.name ?? ''} (${done}/${total})`, { done, total });
    }
  }
  collect(await runWave(deletes));

  recordReconciled(plan, ctx, results, failures, now);
  return { results: groupedByTarget(plan, results), failures, warnings };
}

/**
 * The progress line of a target whose writes ended: `applied payments-prod` only when nothing failed; else it says
 * how many writes failed, so stderr never calls a failed target applied while the summary lists its failures.
 */
function appliedWhat(
  name: string,
  out: { results: readonly ChangeResult[]; failure?: unknown },
  verified: { failure?: unknown },
): string {
  const bad = out.results.filter((r) => r.status === 'failed' || r.status === 'not-converging').length;
  if (bad > 0) return `finished ${name} with ${bad} failed write${bad === 1 ? '' : 's'}`;
  if (out.failure !== undefined || verified.failure !== undefined) return `finished ${name} with errors`;
  // Stopped part-way (the run was interrupted): never "applied" for a target with writes left.
  const left = out.results.filter((r) => r.status === 'skipped' && r.message === INTERRUPTED_MESSAGE).length;
  if (left > 0) return `stopped ${name}: ${left} write${left === 1 ? '' : 's'} not started`;
  return `applied ${name}`;
}

/**
 * `results` regrouped by target, targets in plan order (stable: within a target, the order they ran in). The second
 * wave would otherwise list a project's deletes after every other project's writes, and the text, JSON and Markdown
 * reports show each project's changes together.
 */
function groupedByTarget(plan: Plan, results: ChangeResult[]): ChangeResult[] {
  const rank = new Map<string, number>();
  for (const c of plan.changes) {
    const key = targetKey(c.target);
    if (!rank.has(key)) rank.set(key, rank.size);
  }
  const rankOf = (r: ChangeResult) => rank.get(targetKey(r.change.target)) ?? rank.size;
  return results
    .map((r, index) => ({ r, index, rank: rankOf(r) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((x) => x.r);
}

/** Each target's writes split in two waves: alert config deletes, and everything else (in plan order within each). */
function splitDeletes(byTarget: ReadonlyMap<string, Change[]>): {
  writes: [string, Change[]][];
  deletes: [string, Change[]][];
} {
  const writes: [string, Change[]][] = [];
  const deletes: [string, Change[]][] = [];
  const isDelete = (c: Change) => c.kind === 'alertConfig' && c.action === 'delete';
  for (const [key, list] of byTarget) {
    const rest = list.filter((c) => !isDelete(c));
    const gone = list.filter(isDelete);
    if (rest.length > 0) writes.push([key, rest]);
    if (gone.length > 0) deletes.push([key, gone]);
  }
  return { writes, deletes };
}

/**
 * Why a delete of the second wave must not run, or undefined. Held: every delete of a target whose alert config write
 * (create, update, release...) failed in the first wave, named in the message (or that failed as a whole, a lost lease
 * say), every delete of a target where an alert config create was blocked at plan (a key renamed and edited in one
 * commit whose new body cannot be written yet: the old config must not go before the new one exists), and a delete of a
 * key whose create in another
 * project failed this run or was blocked at plan (a team missing there, a secret unresolved): a config moved between
 * projects in one commit must not vanish from both. Keys are matched by name only, so an unrelated config of the same
 * key elsewhere holds a delete too; the message names the project, and the next run after it is fixed deletes.
 */
function heldDeletes(
  plan: Plan,
  firstWave: readonly ChangeResult[],
  targetFailures: readonly TargetFailure[],
): (d: Change) => string | undefined {
  // Target -> its alert config writes that failed in the first wave (a release, a create, an update...), in order.
  const failedWrites = new Map<string, Change[]>();
  for (const r of firstWave) {
    if (r.change.kind !== 'alertConfig' || r.status !== 'failed') continue;
    const key = targetKey(r.change.target);
    failedWrites.set(key, [...(failedWrites.get(key) ?? []), r.change]);
  }
  // Target -> how it failed as a whole (a lost lease, a verification that could not read).
  const failedTargets = new Map<string, TargetFailure>();
  for (const f of targetFailures)
    if (!failedTargets.has(targetKey(f.target))) failedTargets.set(targetKey(f.target), f);
  // Key -> the projects (by id: two projects may share a name) where its create did not happen this run, with names.
  const notCreated = new Map<string, Map<string, string>>();
  const missed = (c: Change) => {
    const where = notCreated.get(c.key) ?? new Map<string, string>();
    where.set(c.target.id, c.target.name);
    notCreated.set(c.key, where);
  };
  // Failed, not skipped: a project whose mode keeps it from being written (observe) never creates anything, and every
  // delete of the same key elsewhere would otherwise be held for good.
  for (const r of firstWave) {
    if (r.change.kind === 'alertConfig' && r.change.action === 'create' && r.status === 'failed') missed(r.change);
  }
  // Creates blocked at plan: a plan of this version already shows the deletes they hold as blocked (safety.ts), a saved
  // plan of an earlier one may not.
  const heldAtPlan = heldByBlockedCreates(plan.changes);
  return (d) => {
    const writes = failedWrites.get(targetKey(d.target));
    if (writes !== undefined) return heldAfterFailure(writes);
    const blocked = heldAtPlan(d);
    if (blocked !== undefined) return blocked;
    const failure = failedTargets.get(targetKey(d.target));
    if (failure !== undefined) {
      const code = failure.code === undefined ? '' : `: ${failure.code}`;
      return `not deleted: this project stopped before its deletes (${failure.phase} failed${code})`;
    }
    const elsewhere = [...(notCreated.get(d.key) ?? [])].filter(([id]) => id !== d.target.id);
    if (elsewhere.length === 0) return undefined;
    return heldForCreateElsewhere(
      d.key,
      elsewhere.map(([, name]) => name),
    );
  };
}
