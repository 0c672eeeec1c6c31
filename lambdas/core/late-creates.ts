/**
 * Late creates: a config that a POST made after its answer was lost (the in-run re-read found nothing), for a key that
 * left git before the next run could adopt it. The key's pending marker keeps the digest of the body that POST sent
 * (`desiredDigest`); the one live config nobody owns or claims with that digest, whose creation Ops Manager's audit
 * shows was made with this tool's key, is the one it created, owned like any other config whose key left git: planned
 * as a delete that every prune gate applies to, and confirmed live again right before it is deleted. Markers of older
 * releases have no digest: they are left as they were, and the plan warns of each (what it made cannot be recognised,
 * so only the user can settle it).
 */
import { OpsManagerApiError } from '../opsman/errors.ts';
import type { AlertConfig, OpsManagerEvent } from '../opsman/types.ts';
import { eventsSince, UNBOUNDED_EVENTS_LIMIT } from './attribution-window.ts';
import { errorMessage } from './concurrency.ts';
import { ReconcileError } from './errors.ts';
import type { Change, TargetRef } from './model.ts';
import { type LiveView, liveView } from './normalise.ts';
import type { OpsManagerApi, OwnedAlertConfig } from './ports.ts';
import { getAlertConfigChecked } from './read-live.ts';

/** The digest a record's interrupted create sent, while the record is nothing but that marker (it has no id yet). */
export function lateCreateDigest(record: OwnedAlertConfig | undefined): string | undefined {
  return record?.id === undefined ? record?.pendingCreate?.desiredDigest : undefined;
}

/**
 * The markers of keys not in `desiredKeys` that an earlier release saved without a digest (the record is nothing but
 * the marker), in key order: the config their POST may have made late cannot be told from any other unmanaged one.
 * `idless` are the keys of `records` whose record owns no id, the only ones looked at: a project's in-sync configs
 * (every record owning its id) cost nothing here, however many there are.
 */
export function undigestedLateCreates(
  records: Readonly<Record<string, OwnedAlertConfig>>,
  idless: readonly string[],
  desiredKeys: ReadonlySet<string>,
): { key: string; runId: string; startedAt: string }[] {
  if (idless.length === 0) return [];
  return idless
    .filter((k) => {
      const record = records[k];
      return (
        !desiredKeys.has(k) &&
        record?.id === undefined &&
        record?.pendingCreate !== undefined &&
        record.pendingCreate.desiredDigest === undefined
      );
    })
    .sort()
    .map((key) => {
      const marker = records[key]?.pendingCreate as NonNullable<OwnedAlertConfig['pendingCreate']>;
      return { key, runId: marker.runId, startedAt: marker.startedAt };
    });
}

/**
 * The warning for a marker of undigestedLateCreates. Left silent, the config such a create made stayed unmanaged and
 * its marker in the state for ever after an upgrade, with nothing saying so; the two ways out are the key coming back
 * (its pending create is then recovered by adoption, or made) and spec.release (the marker is forgotten).
 */
export function undigestedLateCreateWarning(
  target: TargetRef,
  marker: { key: string; runId: string; startedAt: string },
): string {
  return `project ${target.name} (${target.id}): alert key "${marker.key}" left git while its create was unresolved: run ${marker.runId} (started ${marker.startedAt}, by an earlier version of opsman-gitops) lost the answer to its POST and did not record what it sent, so the config that POST may have made cannot be recognised; such a config is listed as unmanaged and the key's marker stays in the state. To settle it, either put the key back in git with the body it had and apply (that config is then adopted, or created if the POST never landed), then remove the key again (prune deletes it); or list the key in spec.release and apply (the marker is forgotten; such a config stays in Ops Manager, unmanaged)`;
}

/** A pending create of a key that left git, with the live configs equal to what its POST sent. */
export interface LateCreate {
  key: string;
  runId: string;
  startedAt: string;
  /** Sorted. One: the config that POST created. Several: which one is not known. None: the POST created nothing. */
  ids: string[];
}

/**
 * The pending creates (with a digest) of keys not desired, in key order, each with its candidates: live configs that
 * no record owns, that no desired key `claimed` (a key renamed in the same commit adopts the config first), and whose
 * digest is the one the POST sent. A single candidate is added to `claimed`, so no config is given to two markers.
 */
export function findLateCreates(
  records: Readonly<Record<string, OwnedAlertConfig>>,
  desiredKeys: ReadonlySet<string>,
  live: readonly AlertConfig[],
  views: ReadonlyMap<string, LiveView>,
  ownedIds: ReadonlySet<string>,
  claimed: Set<string>,
): LateCreate[] {
  const keys = Object.keys(records)
    .filter((k) => !desiredKeys.has(k) && lateCreateDigest(records[k]) !== undefined)
    .sort();
  if (keys.length === 0) return [];
  // Only now (a rare case) are the unowned configs' digests computed, once each.
  const byDigest = new Map<string, string[]>();
  for (const c of live) {
    if (ownedIds.has(c.id)) continue;
    const digest = (views.get(c.id) ?? liveView(c)).digest;
    const ids = byDigest.get(digest);
    if (ids === undefined) byDigest.set(digest, [c.id]);
    else ids.push(c.id);
  }
  return keys.map((key) => {
    const record = records[key] as OwnedAlertConfig;
    const marker = record.pendingCreate as NonNullable<OwnedAlertConfig['pendingCreate']>;
    const released = marker.releasedIds ?? [];
    const ids = (byDigest.get(marker.desiredDigest as string) ?? [])
      .filter((id) => !claimed.has(id) && !released.includes(id))
      .sort();
    if (ids.length === 1) claimed.add(ids[0] as string);
    return { key, runId: marker.runId, startedAt: marker.startedAt, ids };
  });
}

/**
 * The change a late create plans: the delete of its single config (the usual prune gates then apply), or, when
 * several configs equal what the POST sent, a blocked change naming them. Undefined when there is none: the POST
 * never landed, and the marker is forgotten when the run saves its state (apply-bookkeeping.ts).
 */
export function lateCreateChange(
  target: TargetRef,
  late: LateCreate,
  views: ReadonlyMap<string, LiveView>,
): Change | undefined {
  const created = `created by run ${late.runId} (a create started at ${late.startedAt} whose answer was lost, landed after that run re-read)`;
  const only = late.ids[0];
  if (late.ids.length === 1 && only !== undefined) {
    return {
      target,
      kind: 'alertConfig',
      key: late.key,
      action: 'delete',
      id: only,
      before: views.get(only)?.normal,
      fields: [],
      reason: `owned alert config no longer in the desired state; ${created}`,
    };
  }
  if (late.ids.length === 0) return undefined;
  return {
    target,
    kind: 'alertConfig',
    key: late.key,
    action: 'blocked',
    fields: [],
    reason: `the key left git while its create was unresolved (run ${late.runId}, started at ${late.startedAt}, answer lost) and ${late.ids.length} unmanaged alert configs equal what it sent (${late.ids.join(', ')}): which one it created is not known, so none is deleted; delete the extra ones in Ops Manager and re-run (the one left is then taken as the one it created)`,
  };
}

/**
 * Confirms, right before its delete, that alert config `id` is the one the lost create of `change.key` made: its live
 * digest is the one the marker kept (the caller checked that the record is still only that marker and that no key owns
 * the id). A saved plan is thereby checked against the state and the config it is applied to, never trusted. A config
 * already gone passes (the delete then finds it gone). Throws NOT_OWNED otherwise.
 */
export async function confirmLateCreate(
  api: OpsManagerApi,
  change: Change,
  id: string,
  record: OwnedAlertConfig,
): Promise<void> {
  const digest = lateCreateDigest(record);
  let config: AlertConfig;
  try {
    config = await getAlertConfigChecked(api, change.target.id, id);
  } catch (error) {
    if (error instanceof OpsManagerApiError && error.status === 404 && error.fromOpsManager) return;
    throw error;
  }
  if (digest !== undefined && liveView(config).digest === digest) return;
  throw new ReconcileError(
    'NOT_OWNED',
    `not deleted: alert config ${id} is not what the lost create of key "${change.key}" (run ${record.pendingCreate?.runId}) sent, so it is not known to be this tool's; make a new plan`,
  );
}

/** What confirmLateCreatesByAudit decided, for the plan to carry. */
export interface AuditedLateCreates {
  /** The changes, with each late create's delete kept (confirmed), blocked (the audit unreadable) or left out. */
  changes: Change[];
  /** Ids of late-create candidates the audit did not show as ours: unmanaged, never deleted. */
  notOurs: string[];
}

/**
 * Keeps a late create's delete only when Ops Manager's own audit shows this tool's key made that config: an
 * `ALERT_CONFIG_ADDED_AUDIT` event for its id by `ownKey`, since the create started (less the clock allowance). The
 * digest cannot tell the config a lost POST made from an identical one a person made meanwhile (its key just left
 * git: someone may be re-creating the alert by hand). An event naming anyone else, or no event, leaves the config
 * alone as unmanaged (the marker is then forgotten: the create is taken as never landed); an audit that cannot be read
 * blocks the delete for this run (the marker stays, the next run asks again). One event query per project that has
 * late creates (a rare case).
 */
export async function confirmLateCreatesByAudit(
  api: Pick<OpsManagerApi, 'listProjectEvents'>,
  target: TargetRef,
  changes: Change[],
  records: Readonly<Record<string, OwnedAlertConfig>>,
  ownKey: string | undefined,
): Promise<AuditedLateCreates> {
  const late = changes.filter(
    (c) => c.action === 'delete' && c.id !== undefined && lateCreateDigest(records[c.key]) !== undefined,
  );
  if (late.length === 0) return { changes, notOurs: [] };
  const started = Math.min(...late.map((c) => Date.parse(records[c.key]?.pendingCreate?.startedAt ?? '')));
  let events: OpsManagerEvent[];
  try {
    if (ownKey === undefined) throw new Error("this run does not know its own API key's name");
    const query = {
      eventType: [ADDED_EVENT],
      ...(Number.isFinite(started) ? { minDate: eventsSince(new Date(started).toISOString()) as string } : {}),
    };
    events = await api.listProjectEvents(target.id, query, { maxItems: UNBOUNDED_EVENTS_LIMIT });
  } catch (error) {
    const why = errorMessage(error);
    const blocked = new Set(late);
    return {
      changes: changes.map((c) =>
        blocked.has(c)
          ? {
              ...c,
              action: 'blocked',
              reason: `${c.reason}; not deleted this run: Ops Manager's audit of who created it could not be read (${why})`,
            }
          : c,
      ),
      notOurs: [],
    };
  }
  const creator = new Map<string, OpsManagerEvent>();
  for (const e of events) {
    if (e.eventTypeName === ADDED_EVENT && typeof e.alertConfigId === 'string') creator.set(e.alertConfigId, e);
  }
  const notOurs: string[] = [];
  const kept = changes.filter((c) => {
    if (!late.includes(c)) return true;
    const made = creator.get(c.id as string);
    if (made?.publicKey !== undefined && made.publicKey === ownKey) return true;
    notOurs.push(c.id as string);
    return false;
  });
  return { changes: kept, notOurs };
}

/** The audit event of an alert config's creation. */
const ADDED_EVENT = 'ALERT_CONFIG_ADDED_AUDIT';
