/** Deterministic order of a plan's changes: target, kind, action (ACTION_ORDER), key. */
import { ACTION_ORDER, type Change, type ChangeKind, type TargetRef } from './model.ts';

const TARGET_RANK: Record<TargetRef['type'], number> = { project: 0, organization: 1, global: 2 };
const KIND_RANK: Record<ChangeKind, number> = {
  alertConfig: 0,
  defaultServerType: 1,
  auditLogRotation: 2,
  versionManifest: 3,
};

function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two targets: type, then name, then id. */
export function compareTargets(a: TargetRef, b: TargetRef): number {
  return cmp(TARGET_RANK[a.type], TARGET_RANK[b.type]) || cmp(a.name, b.name) || cmp(a.id, b.id);
}

/** A change with its sort key precomputed: target rank, kind rank, action rank, key. */
interface Ranked {
  change: Change;
  target: number;
  kind: number;
  action: number;
}

function compareRanked(a: Ranked, b: Ranked): number {
  return a.target - b.target || a.kind - b.kind || a.action - b.action || cmp(a.change.key, b.change.key);
}

/**
 * A sorted copy of `changes`, in plan order: target (compareTargets), kind, action (ACTION_ORDER), key; ties keep
 * their input order. Each distinct target is ranked once, so the sort compares numbers instead of names.
 */
export function sortChanges(changes: readonly Change[]): Change[] {
  const targets = [...new Set(changes.map((c) => c.target))].sort(compareTargets);
  const targetRank = new Map<TargetRef, number>();
  let rank = 0;
  targets.forEach((t, i) => {
    // Equal targets held in distinct objects share a rank.
    if (i > 0 && compareTargets(targets[i - 1] as TargetRef, t) !== 0) rank++;
    targetRank.set(t, rank);
  });
  const actionRank = new Map(ACTION_ORDER.map((a, i) => [a as string, i]));
  const ranked: Ranked[] = changes.map((change) => ({
    change,
    target: targetRank.get(change.target) ?? 0,
    kind: KIND_RANK[change.kind],
    action: actionRank.get(change.action) ?? -1,
  }));
  return ranked.sort(compareRanked).map((r) => r.change);
}
