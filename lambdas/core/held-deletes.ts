/**
 * Deletes held because a create they wait for was blocked at plan. Deletes run last (Argo CD's PruneLast) and only once
 * the creates they make way for exist: a key renamed and edited in one commit leaves its old config in place while the
 * new body cannot be written (a secret not created yet, a team missing), and a config moved between projects stays in
 * its old project while its new copy is blocked. Known when planning, so the plan shows such a delete as blocked with
 * this reason (safety.ts) rather than promising a delete the apply would skip; the apply checks it again for a saved
 * plan of an earlier version (apply.ts heldDeletes), with the same words.
 */
import { type Change, targetKey } from './model.ts';

/**
 * A create that could not be planned: a blocked alert config with a desired body (`after`) and no live id (nothing
 * live to update). A blocked change with neither is no create: the late create of a key that left git, ambiguous
 * (late-creates.ts), which nothing waits for.
 */
export function isBlockedCreate(change: Change): boolean {
  return (
    change.kind === 'alertConfig' &&
    change.action === 'blocked' &&
    change.id === undefined &&
    change.after !== undefined
  );
}

/**
 * Why a project's alert config delete is held when creates of the project were blocked at plan (`blocked`, at least
 * one): deletes run only after every create of their project, and a blocked one did not happen. Names the first:
 * `not deleted: the create of "ssl-stale" in this project is blocked (...)`.
 */
export function heldAfterBlockedCreate(blocked: readonly Change[]): string {
  const first = blocked[0];
  const others = blocked.length - 1;
  const more = others === 0 ? '' : ` (and ${others} other create${others === 1 ? '' : 's'})`;
  const what =
    first === undefined
      ? 'a create in this project is blocked'
      : `the create of "${first.key}" in this project is blocked${more}`;
  return `not deleted: ${what}; deletes run only once every create of their project was made (a key renamed and edited leaves Ops Manager only once its new config exists)`;
}

/** Why a delete of `key` is held while its create did not happen in the projects named `elsewhere` (at least one). */
export function heldForCreateElsewhere(key: string, elsewhere: readonly string[]): string {
  return `not deleted: "${key}" was not created in ${elsewhere.join(', ')} this run (a config moved between projects leaves its old project only once the new copy exists)`;
}

/**
 * The rule of the creates blocked in `changes` (a plan's): for a delete, why it is held, or undefined. A delete waits
 * for every blocked create of its own project, and for a blocked create of its key in another project.
 */
export function heldByBlockedCreates(changes: readonly Change[]): (d: Change) => string | undefined {
  const inTarget = new Map<string, Change[]>();
  // Key -> the projects (by id: two projects may share a name) where its create is blocked, with their names.
  const projectsOfKey = new Map<string, Map<string, string>>();
  for (const c of changes) {
    if (!isBlockedCreate(c)) continue;
    const where = projectsOfKey.get(c.key) ?? new Map<string, string>();
    where.set(c.target.id, c.target.name);
    projectsOfKey.set(c.key, where);
    const key = targetKey(c.target);
    inTarget.set(key, [...(inTarget.get(key) ?? []), c]);
  }
  if (projectsOfKey.size === 0) return () => undefined;
  return (d) => {
    const blocked = inTarget.get(targetKey(d.target));
    if (blocked !== undefined) return heldAfterBlockedCreate(blocked);
    const elsewhere = [...(projectsOfKey.get(d.key) ?? [])].filter(([id]) => id !== d.target.id);
    return elsewhere.length === 0
      ? undefined
      : heldForCreateElsewhere(
          d.key,
          elsewhere.map(([, name]) => name),
        );
  };
}
