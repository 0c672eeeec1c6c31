/**
 * State bookkeeping after an apply: which targets count as reconciled (the lower bound of the next drift attribution)
 * and which records of vanished keys are forgotten.
 */
import type { ApplyContext } from './apply.ts';
import { lateCreateDigest } from './late-creates.ts';
import type { ChangeResult, Plan, TargetFailure } from './model.ts';
import { targetKey } from './model.ts';
import { organizationState, projectState } from './state.ts';

/**
 * Stamps `lastReconciledAt` on every target read and written without failure and left without known drift (a drift
 * still standing keeps its older bound, so its author stays findable), and forgets vanished records. The stamp is when
 * the plan began (before it read live state), not the end of the apply: a hand edit made after our read and before
 * the end of the run is drift the next run finds, and its event must still fall inside the next run's window.
 */
export function recordReconciled(
  plan: Plan,
  ctx: ApplyContext,
  results: ChangeResult[],
  failures: TargetFailure[],
  now: () => string,
): void {
  const failedTargets = new Set(plan.failures.map((f) => targetKey(f.target)));
  const stamp = earlier(plan.createdAt, now());
  const bad = new Set([
    ...failedTargets,
    ...failures.map((f) => targetKey(f.target)),
    // A skipped write (held back behind a failure, or never started by an interrupted run) leaves its target unsettled.
    ...results.filter((r) => r.status === 'failed' || r.status === 'skipped').map((r) => targetKey(r.change.target)),
  ]);
  const clean = Object.keys(plan.liveDigests).filter((key) => !bad.has(key) && ctx.skipReason(key) === undefined);
  const drifting = new Set(
    plan.changes.filter((c) => c.action === 'drift' || c.action === 'blocked').map((c) => targetKey(c.target)),
  );
  for (const key of clean.filter((k) => !drifting.has(k))) {
    const [type, id = ''] = splitKey(key);
    if (type === 'project') projectState(ctx.state, id).lastReconciledAt = stamp;
    if (type === 'organization') organizationState(ctx.state, id).lastReconciledAt = stamp;
  }
  forgetVanished(plan, ctx, clean);
}

/** The earlier of two ISO times; `b` when `a` is not a time. */
function earlier(a: string, b: string): string {
  const at = Date.parse(a);
  return !Number.isNaN(at) && at < Date.parse(b) ? a : b;
}

function splitKey(key: string): [string, string] {
  const at = key.indexOf(':');
  return [key.slice(0, at), key.slice(at + 1)];
}

/**
 * Drops records of owned keys that are neither desired nor live any more (no change of the plan mentions them). A
 * pending create's marker stays for the run that resolves it, unless it kept its body's digest: then planning looked
 * for the config it made and found none (a late create it found is planned as a change), so the POST created nothing.
 */
function forgetVanished(plan: Plan, ctx: ApplyContext, clean: string[]): void {
  const mentioned = new Map<string, Set<string>>();
  for (const c of plan.changes) {
    if (c.kind !== 'alertConfig') continue;
    const key = targetKey(c.target);
    let keys = mentioned.get(key);
    if (keys === undefined) {
      keys = new Set();
      mentioned.set(key, keys);
    }
    keys.add(c.key);
  }
  for (const key of clean) {
    const [type, projectId] = splitKey(key);
    if (type !== 'project') continue;
    const keys = mentioned.get(key) ?? new Set<string>();
    const records = ctx.state.projects[projectId]?.alertConfigs ?? {};
    for (const k of Object.keys(records))
      if (!keys.has(k) && (records[k]?.pendingCreate === undefined || lateCreateDigest(records[k]) !== undefined))
        delete records[k];
  }
}
