/**
 * Counting a plan the way the summary line reads it: enable and disable are updates, and "drifted" counts every change
 * that found live state moved since our last apply (an observed `drift` entry, or a correction flagged as drift).
 */
import type { Change, Plan, TargetRef } from '../model.ts';
import { printable } from '../printable.ts';

/** Counts of the summary line. */
export interface PlanCounts {
  create: number;
  update: number;
  delete: number;
  /** Releases (spec.release): nothing written to Ops Manager, the state record forgotten. */
  release: number;
  adopt: number;
  blocked: number;
  drifted: number;
  unchanged: number;
}

/** Counts a list of changes. */
export function countChanges(changes: readonly Change[]): PlanCounts {
  const counts: PlanCounts = {
    create: 0,
    update: 0,
    delete: 0,
    release: 0,
    adopt: 0,
    blocked: 0,
    drifted: 0,
    unchanged: 0,
  };
  for (const change of changes) {
    switch (change.action) {
      case 'create':
        counts.create++;
        break;
      case 'update':
      case 'enable':
      case 'disable':
        counts.update++;
        break;
      case 'delete':
        counts.delete++;
        break;
      case 'release':
        counts.release++;
        break;
      case 'adopt':
        counts.adopt++;
        break;
      case 'blocked':
        counts.blocked++;
        break;
      case 'noop':
        counts.unchanged++;
        break;
      case 'drift':
        break;
    }
    if (change.action === 'drift' || change.drift?.detected === true) counts.drifted++;
  }
  return counts;
}

/**
 * True when applying the plan would write something (a create, update, enable, disable, delete or adopt), or forget
 * a released key's state record (a release writes the state only).
 */
export function hasWrites(plan: Plan): boolean {
  return plan.changes.some((c) => c.action !== 'noop' && c.action !== 'blocked' && c.action !== 'drift');
}

/** True when the plan has anything to show: a write, a blocked change or drift. */
export function hasChanges(plan: Plan): boolean {
  return plan.changes.some((c) => c.action !== 'noop' || c.drift?.detected === true);
}

/**
 * `Plan: 3 to create, 2 to update, 1 to delete, 1 to adopt, 2 blocked, 1 drifted, 12 unchanged.`, with `, 1 to
 * release` after the deletes when the plan releases any key (the line of a plan without releases reads as it always has).
 */
export function summaryLine(counts: PlanCounts, label = 'Plan'): string {
  const release = counts.release > 0 ? `, ${counts.release} to release` : '';
  return (
    `${label}: ${counts.create} to create, ${counts.update} to update, ${counts.delete} to delete${release}, ` +
    `${counts.adopt} to adopt, ${counts.blocked} blocked, ${counts.drifted} drifted, ${counts.unchanged} unchanged.`
  );
}

/** A plan's changes grouped by target, targets in order of first appearance (the plan's deterministic order). */
export function groupByTarget(changes: readonly Change[]): { target: TargetRef; changes: Change[] }[] {
  const groups = new Map<string, { target: TargetRef; changes: Change[] }>();
  for (const change of changes) {
    const id = `${change.target.type}:${change.target.id}`;
    let group = groups.get(id);
    if (group === undefined) {
      group = { target: change.target, changes: [] };
      groups.set(id, group);
    }
    group.changes.push(change);
  }
  return [...groups.values()];
}

/**
 * `Project payments-prod (5e2211c17a3e5a48f5497de3)`, `Organization acme (…)`, `Ops Manager (global)`, or a run's own
 * store by its name (`state`, STATE_TARGET); printable (a saved plan's names are not checked against the desired-state
 * patterns).
 */
export function targetTitle(target: TargetRef): string {
  // A global target is the installation itself (the version manifest) or one of the run's own stores: a failed state
  // save titled `Ops Manager (global)` would send the reader to Ops Manager for a problem of the state store.
  if (target.type === 'global') return target.name === 'Ops Manager' ? 'Ops Manager (global)' : printable(target.name);
  const label = target.type === 'project' ? 'Project' : 'Organization';
  return printable(`${label} ${target.name} (${target.id})`);
}
