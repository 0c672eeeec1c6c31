/**
 * The change windows a saved plan is applied under (`apply --plan`, or the plan an interactive apply asked about):
 * those of the desired state as it is when the writes start, read again, not those recorded when the plan was made.
 * Git is the authority at write time, as Argo CD reads a project's sync windows at sync time: a freeze committed after
 * a plan was saved holds that plan, and one lifted since no longer does. When the desired state cannot be read again
 * (gone, invalid, in transit), the apply is not refused for that: the plan's recorded windows are used, with a warning.
 */
import { canonicalJson } from './canonical.ts';
import { errorMessage } from './concurrency.ts';
import type { ChangeWindow, DesiredState, Plan } from './model.ts';

/** Start of the warning of an apply whose windows could not be read again (its recorded ones were used). */
export const WINDOWS_NOT_REREAD = 'CHANGE WINDOWS NOT RE-READ';

/** The names of the windows added, removed and changed (same name, another definition) from `before` to `after`. */
export function windowChanges(
  before: readonly ChangeWindow[],
  after: readonly ChangeWindow[],
): { added: string[]; removed: string[]; changed: string[] } {
  const old = new Map(before.map((w) => [w.name, canonicalJson(w)]));
  const now = new Map(after.map((w) => [w.name, canonicalJson(w)]));
  return {
    added: [...now.keys()].filter((name) => !old.has(name)),
    removed: [...old.keys()].filter((name) => !now.has(name)),
    changed: [...now].filter(([name, text]) => old.has(name) && old.get(name) !== text).map(([name]) => name),
  };
}

/**
 * `plan` with the change windows of the desired state `load` gives (none: `changeWindows` absent), for the apply to
 * evaluate when its writes start. `warnings` gets a line when they differ from the plan's recorded ones (which were
 * added, removed, changed: why the plan is held or not), or, when `load` fails, a line naming the problem (the error's
 * message: the loader's errors carry no secret values) and `plan` is returned as it is, its recorded windows in force.
 */
export async function withCurrentWindows(
  plan: Plan,
  load: () => Promise<DesiredState>,
  warnings: string[],
): Promise<Plan> {
  let current: ChangeWindow[];
  try {
    current = (await load()).settings.changeWindows ?? [];
  } catch (error) {
    warnings.push(
      `${WINDOWS_NOT_REREAD}: the desired state could not be loaded (${errorMessage(error)}): the saved plan's recorded windows were used`,
    );
    return plan;
  }
  const { added, removed, changed } = windowChanges(plan.changeWindows ?? [], current);
  const differ = added.length + removed.length + changed.length;
  if (differ > 0) {
    const parts = [
      ...(added.length > 0 ? [`added: ${added.join(', ')}`] : []),
      ...(removed.length > 0 ? [`removed: ${removed.join(', ')}`] : []),
      ...(changed.length > 0 ? [`changed: ${changed.join(', ')}`] : []),
    ];
    warnings.push(
      `change windows read from the current desired state: ${differ} differ from the saved plan's (${parts.join('; ')}); the current ones decide what is held`,
    );
  }
  const { changeWindows: _recorded, ...rest } = plan;
  return current.length === 0 ? rest : { ...rest, changeWindows: current };
}
