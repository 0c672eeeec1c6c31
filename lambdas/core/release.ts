/**
 * Release: a project lets go of alert config keys it lists in `spec.release` (Terraform's `removed` block with
 * `destroy = false`, Flux's `prune: disabled`, Crossplane's `deletionPolicy: Orphan`). An owned config of such a key is
 * planned as a `release`: nothing is written to Ops Manager, and apply forgets the key's state record (its pending-create
 * marker, non-convergence guard and drift streak with it), so from the next run the config is unmanaged like any other
 * nobody owns. A released key this state does not own is no error (the entry may stay in git after its release): the
 * plan notes it and does nothing. Pure: planning only; apply-alerts.ts forgets the record.
 */
import type { AlertConfig } from '../opsman/types.ts';
import type { Change, TargetRef } from './model.ts';
import type { LiveView } from './normalise.ts';
import type { OwnedAlertConfig } from './ports.ts';

/** The releases of one project and the notes of its released keys that have nothing to release. */
export interface PlannedReleases {
  changes: Change[];
  notes: string[];
}

/** What a release leaves behind, said the same way on every change. */
const LEFT_ALONE = 'released (spec.release): left in Ops Manager as it is and no longer managed';

/** Why a key's record is released: what it owns, and what happens to it. */
function releaseReason(record: OwnedAlertConfig, live: AlertConfig | undefined): string {
  if (record.id !== undefined && live !== undefined) {
    // Adoption goes by content, not by key: its own key back in git takes it only while equal, and so does any other.
    return `${LEFT_ALONE}; from the next run it is listed as unmanaged, taken over again only by adoption (a desired key equal to it in every non-secret field: its own back in alertConfigs, or another)`;
  }
  if (record.id !== undefined) {
    return `released (spec.release): its config ${record.id} is no longer in Ops Manager; only its state record is forgotten`;
  }
  const marker = record.pendingCreate;
  const run = marker === undefined ? '' : ` (run ${marker.runId}, started at ${marker.startedAt})`;
  return `released (spec.release): the record is only the marker of a create whose answer was lost${run}; the marker is forgotten, and a config that create made late stays in Ops Manager as an unmanaged config`;
}

/**
 * Plans the release of every key of `release` that `owned` records, in key order: a `release` change with the id the
 * record owns (its live config claimed, so nothing else plans it), or without one for a record that is only a pending
 * create's marker. A key without a record gets a note instead; with `stateCorrupt` (the state was unreadable, `owned`
 * is the empty one that replaced it) the note says that what the key owned is unknown, not that it owns nothing.
 */
export function planReleases(
  target: TargetRef,
  release: readonly string[],
  owned: Readonly<Record<string, OwnedAlertConfig>>,
  liveById: ReadonlyMap<string, AlertConfig>,
  views: ReadonlyMap<string, LiveView>,
  claimed: Set<string>,
  stateCorrupt = false,
): PlannedReleases {
  const out: PlannedReleases = { changes: [], notes: [] };
  if (release.length === 0) return out;
  for (const key of [...release].sort()) {
    const record = Object.hasOwn(owned, key) ? owned[key] : undefined;
    if (record === undefined) {
      out.notes.push(
        stateCorrupt
          ? `project ${target.name}: released key "${key}": the state was unreadable (corrupt), so what it owned is unknown this run: nothing to release; a config it owned stays in Ops Manager unmanaged, as a release leaves it`
          : `project ${target.name}: released key "${key}" is not owned by this state (already released, or never managed): nothing to release; the entry can be removed from spec.release`,
      );
      continue;
    }
    const live = record.id === undefined ? undefined : liveById.get(record.id);
    const change: Change = {
      target,
      kind: 'alertConfig',
      key,
      action: 'release',
      fields: [],
      reason: releaseReason(record, live),
    };
    // The id the record owns, live or not: apply releases the record only while it still owns that one (a saved plan
    // is checked against the state it is applied to, never trusted).
    if (record.id !== undefined) change.id = record.id;
    if (live !== undefined) {
      claimed.add(live.id);
      change.before = views.get(live.id)?.normal;
    }
    out.changes.push(change);
  }
  return out;
}
