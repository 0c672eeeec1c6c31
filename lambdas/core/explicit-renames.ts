/**
 * Renames declared in git (`renamedFrom` on an alert config): the config an old key owns becomes the new key's, and
 * whatever was edited with the rename is planned as a change of that config (same id, history and open alerts)
 * instead of a delete of the old key and a create of the new one. A rename without edits needs no declaration (an
 * equal config moves by itself, plan-alerts.ts); this covers the rename made together with an edit.
 */
import type { DesiredAlertBody } from './alert-body.ts';
import type { Change, DesiredAlertConfig } from './model.ts';
import type { LiveView } from './normalise.ts';
import type { OwnedAlertConfig } from './ports.ts';

/**
 * New key -> old key, for each desired key without a record of its own whose `renamedFrom` lists a key that left git
 * (neither declared nor released) and owns a config still live; the first such old key in the list wins, and an old
 * key moves to one new key only (the loader refuses two claiming it; this holds for a hand-built desired state too).
 */
export function explicitRenames(
  configs: readonly DesiredAlertConfig[],
  owned: Readonly<Record<string, OwnedAlertConfig>>,
  declared: ReadonlySet<string>,
  released: ReadonlySet<string>,
  isLive: (id: string) => boolean,
): Map<string, string> {
  const renames = new Map<string, string>();
  const taken = new Set<string>();
  for (const config of configs) {
    if (config.renamedFrom === undefined || owned[config.key] !== undefined) continue;
    const from = config.renamedFrom.find((old) => {
      const id = owned[old]?.id;
      return !declared.has(old) && !released.has(old) && !taken.has(old) && id !== undefined && isLive(id);
    });
    if (from === undefined) continue;
    renames.set(config.key, from);
    taken.add(from);
  }
  return renames;
}

/**
 * Turns the change planned for a renamed key (with the old key's record, against its config) into the rename: an
 * update, enable or disable names the old key (`movedFrom`, so apply moves the record after its write); a config
 * already equal becomes an adoption that moves ownership (written only when its secrets may differ); a blocked change
 * stays blocked and says so.
 */
export function asExplicitRename(change: Change, from: string, view: LiveView, after: DesiredAlertBody): Change {
  const said = `key renamed from "${from}" (renamedFrom)`;
  if (change.action === 'update' || change.action === 'enable' || change.action === 'disable') {
    return { ...change, movedFrom: from, reason: `${change.reason}; ${said}: its config keeps its id` };
  }
  if (change.action === 'noop') {
    return {
      ...change,
      action: 'adopt',
      movedFrom: from,
      before: view.normal,
      after,
      reason: `${said}: its config ${change.id} already equals the desired one, so ownership moves with nothing to change`,
    };
  }
  return { ...change, reason: `${change.reason} (${said}; the rename waits for this)` };
}
