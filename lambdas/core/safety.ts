/**
 * Safety gates, run on the plan before anything is written. Each refusal turns the delete into a `blocked` change
 * whose reason names the numbers and the setting or flag that overrides it, or the create it waits for.
 */
import { heldByBlockedCreates } from './held-deletes.ts';
import type { Change, DesiredProject, Settings } from './model.ts';

/** What the gates need beyond the changes. */
export interface SafetyInput {
  projects: readonly DesiredProject[];
  settings: Settings;
  overrides?: { maxDeletes?: number; allowEmpty?: boolean };
  /** The stored state was unreadable: ownership is unknown, so nothing is pruned this run. */
  stateCorrupt: boolean;
}

function block(change: Change, reason: string): Change {
  return { ...change, action: 'blocked', reason };
}

/** Applies every gate; returns the changes in the same order. */
export function applySafetyGates(changes: readonly Change[], input: SafetyInput): Change[] {
  const projects = new Map(input.projects.map((p) => [p.projectId, p]));
  // Each project's protected keys as a set, made on its first delete: thousands of deletes against a long protect
  // list would otherwise scan the list for each one.
  const protectedKeys = new Map<string, ReadonlySet<string>>();
  const isProtected = (project: DesiredProject, key: string): boolean => {
    let keys = protectedKeys.get(project.projectId);
    if (keys === undefined) {
      keys = new Set(project.protect);
      protectedKeys.set(project.projectId, keys);
    }
    return keys.has(key);
  };
  const allowEmpty = input.overrides?.allowEmpty ?? input.settings.prune.allowEmpty;
  const maxDeletes = input.overrides?.maxDeletes ?? input.settings.prune.maxDeletes;
  const deletesPerProject = new Map<string, number>();
  for (const c of changes) {
    if (c.action === 'delete') deletesPerProject.set(c.target.id, (deletesPerProject.get(c.target.id) ?? 0) + 1);
  }

  // Deletes that wait for a create blocked at plan (held-deletes.ts): shown blocked, not as deletes the apply would skip.
  const heldByBlocked = heldByBlockedCreates(changes);

  let out = changes.map((c) => {
    if (c.action !== 'delete') return c;
    const project = projects.get(c.target.id);
    const count = deletesPerProject.get(c.target.id) ?? 0;
    if (input.stateCorrupt) {
      return block(
        c,
        'the state was unreadable (corrupt): ownership is being recovered by adoption, so nothing is pruned this run',
      );
    }
    if (project === undefined || !project.prune) {
      return block(
        c,
        // Blocked on every run until one of the two: the plan names both ways out, not only the one that deletes.
        `prune is off for project ${c.target.name}: would delete ${count} owned alert config(s) that left git (set spec.prune: true in its Project document to delete them, or list their keys in spec.release to stop managing them without deleting)`,
      );
    }
    if (isProtected(project, c.key)) return block(c, `key ${c.key} is protected (spec.protect): never deleted`);
    if (project.alertConfigs.length === 0 && !allowEmpty) {
      return block(
        c,
        `project ${c.target.name} has an empty desired alert set but owns ${count} live alert config(s); refusing to delete them all (Settings.prune.allowEmpty: true, or --allow-empty)`,
      );
    }
    // Before maxDeletes counts: a delete that waits is not one this run would make.
    const held = heldByBlocked(c);
    return held === undefined ? c : block(c, held);
  });

  const deletes = out.filter((c) => c.action === 'delete');
  if (deletes.length > maxDeletes) {
    const projectCount = new Set(deletes.map((c) => c.target.id)).size;
    const reason = `would delete ${deletes.length} alert config${deletes.length === 1 ? '' : 's'} across ${projectCount} project(s); maxDeletes is ${maxDeletes} (Settings.prune.maxDeletes, or --max-deletes ${deletes.length})`;
    out = out.map((c) => (c.action === 'delete' ? block(c, reason) : c));
  }
  return out;
}
