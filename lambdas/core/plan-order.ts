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

/** Compares two changes in plan order. */
export function compareChanges(a: Change, b: Change): number {
  return (
    compareTargets(a.target, b.target) ||
    cmp(KIND_RANK[a.kind], KIND_RANK[b.kind]) ||
    cmp(ACTION_ORDER.indexOf(a.action), ACTION_ORDER.indexOf(b.action)) ||
    cmp(a.key, b.key)
  );
}

/** A sorted copy of `changes`. */
export function sortChanges(changes: readonly Change[]): Change[] {
  return [...changes].sort(compareChanges);
}
