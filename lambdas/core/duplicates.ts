/**
 * Duplicates of owned alert configs. Adoption takes one unowned config equal to a desired key, so a second equal one
 * is never made by this tool's own plan; but two writers can each make one: two installations of opsman-gitops
 * managing the same project with separate states (a Lambda and a laptop's `apply`, staging and production desired
 * states listing one project) that both create the key in the same minute, or a person or script copying a config.
 * Each installation then owns its own copy and sees the other's as unmanaged: every plan is clean while Ops Manager
 * raises and sends each alert twice. The plan names such copies, since nothing else would.
 */
import type { AlertConfig } from '../opsman/types.ts';
import type { TargetRef } from './model.ts';
import type { LiveView } from './normalise.ts';

/** An alert config a key owns (or takes over) this run, with the canonical text of what it will hold. */
export interface KeptConfig {
  key: string;
  id: string;
  text: string;
}

/** Most keys a warning names; the rest are counted. */
export const MAX_DUPLICATE_KEYS = 5;

/** Most copies named per key; the rest are counted. */
const MAX_COPIES = 3;

function listed(ids: readonly string[], max: number): string {
  const shown = ids.slice(0, max).join(', ');
  return ids.length > max ? `${shown} and ${ids.length - max} more` : shown;
}

/**
 * One warning for the project when an unmanaged live config (`unclaimed`: neither owned nor claimed this run) equals a
 * kept config in every non-secret field (the same canonical text adoption compares), else undefined. Ids and keys
 * only: no value, so no secret.
 */
export function duplicateWarning(
  target: TargetRef,
  kept: readonly KeptConfig[],
  unclaimed: readonly AlertConfig[],
  views: ReadonlyMap<string, LiveView>,
): string | undefined {
  if (kept.length === 0 || unclaimed.length === 0) return undefined;
  const byText = new Map<string, string[]>();
  for (const c of unclaimed) {
    const text = views.get(c.id)?.text;
    if (text === undefined) continue;
    const ids = byText.get(text);
    if (ids === undefined) byText.set(text, [c.id]);
    else ids.push(c.id);
  }
  const found: string[] = [];
  for (const k of [...kept].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    const copies = byText.get(k.text);
    if (copies === undefined) continue;
    found.push(`"${k.key}" (id ${k.id}; unmanaged copy ${listed([...copies].sort(), MAX_COPIES)})`);
  }
  if (found.length === 0) return undefined;
  const one = found.length === 1;
  return `DUPLICATE ALERT CONFIGS in project ${target.name} (${target.id}): ${found.length} alert config${one ? '' : 's'} this tool manages ${one ? 'has' : 'have'} an unmanaged copy equal in every non-secret field, so Ops Manager raises and notifies ${one ? 'its' : 'their'} alerts twice: ${listed(found, MAX_DUPLICATE_KEYS)}. This tool never changes or deletes a config it does not own. Such a copy is made by another writer: most often a second installation of opsman-gitops managing this project with its own state (another --state-dir or AWS stack, staging and production desired states both listing the project), whose apply created the key at the same time as this one; or a person or a script. Delete the copy in Ops Manager (an installation that owned it adopts the config named here on its next run, as they are equal), and give the project to one installation only`;
}
