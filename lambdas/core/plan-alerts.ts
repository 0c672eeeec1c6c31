/**
 * Plans the alert configs of one project: pairs each desired key with its live config (owned id, pending create, or
 * adoption of an equal unowned config), diffs them, and lists owned configs that left git as delete candidates, with
 * the configs that lost creates of such keys made late (late-creates.ts), or as releases when the project lists their
 * keys in `spec.release` (release.ts).
 * Pure: every input was read before. Safety gates and modes are applied afterwards (safety.ts, modes.ts).
 */
import type { AlertConfig } from '../opsman/types.ts';
import { type DesiredAlertBody, sharedSecretItems, toDesiredAlertBody } from './alert-body.ts';
import { CLOCK_SKEW_ALLOWANCE_MS } from './attribution-window.ts';
import { hmacOf } from './canonical.ts';
import { markTemplates } from './change-templates.ts';
import { ClaimIndex } from './claim-index.ts';
import { diffAlert, onlyEnabledDiffers, withSecretChanges } from './diff.ts';
import { duplicateWarning, type KeptConfig } from './duplicates.ts';
import { asExplicitRename, explicitRenames } from './explicit-renames.ts';
import { changedSecretPaths, type FingerprintCache, secretFingerprints } from './fingerprint.ts';
import { adoptionText, identityBody, ignoredOf, liveDigestFor, withLiveIgnored } from './ignore-fields.ts';
import { IgnoringIndexes } from './ignored-index.ts';
import {
  findLateCreates,
  lateCreateChange,
  undigestedLateCreates,
  undigestedLateCreateWarning,
} from './late-creates.ts';
import { secretsChangedOnLive } from './mask-check.ts';
import type { Change, DesiredProject, FieldChange, TargetRef } from './model.ts';
import { NearMissFinder } from './near-miss.ts';
import {
  desiredNotificationOrder,
  desiredText as desiredTextOf,
  type LiveView,
  liveView,
  type NormalAlert,
  normaliseDesired,
} from './normalise.ts';
import { byNumberedText } from './order.ts';
import type { OwnedAlertConfig, ProjectState } from './ports.ts';
import { recordBehind } from './record-refresh.ts';
import { planReleases } from './release.ts';
import { renumberedSecretPaths, sentAsRecorded } from './renumbered-secrets.ts';
import { creationOrder, parseTimestamp } from './timestamp.ts';
import { unmodelledMembers, unmodelledReason } from './unmodelled.ts';

/**
 * What to do about an alert config Ops Manager does not keep as sent: usually a value the server fills or converts (a
 * newer release's default for a field the YAML leaves out), which the YAML can say as the server shows it.
 */
export const NOT_CONVERGING_ADVICE =
  'Ops Manager keeps another value there than the one sent: write that value in the YAML as the plan shows it on live, or find what changes it on the server';

/**
 * Appends to each create the unmanaged config of its event type that it nearly equals (near-miss.ts), so a plan that
 * would make a second alert beside a hand-made one says which fields kept it from being adopted.
 */
function noteNearMisses(
  changes: Change[],
  unclaimed: readonly AlertConfig[],
  views: ReadonlyMap<string, LiveView>,
): void {
  if (unclaimed.length === 0) return;
  // Built at the first create: a plan with none (the usual no-op run) pays nothing.
  let finder: NearMissFinder | undefined;
  for (const change of changes) {
    if (change.action !== 'create' || change.after === undefined) continue;
    finder ??= new NearMissFinder(
      unclaimed.map((config) => ({ config, normal: () => (views.get(config.id) as LiveView).normal })),
    );
    const body = change.after as DesiredAlertBody;
    if (!finder.covers(body.eventTypeName)) continue;
    const note = finder.noteFor(normaliseDesired(body), ignoredOf(body));
    if (note !== undefined) change.reason += note;
  }
}

/** Outcome of resolving the secrets of one alert config. */
export type ResolvedSecrets = { ok: true; values: Map<string, string> } | { ok: false; reason: string };

/** A live config nobody owns: reported, never touched. */
export interface UnmanagedAlert {
  target: TargetRef;
  id: string;
  eventTypeName: string;
  enabled: boolean;
}

/** Everything needed to plan one project's alert configs. */
export interface AlertPlanInput {
  target: TargetRef;
  project: DesiredProject;
  live: AlertConfig[];
  /** The live views of `live`, in the same order, when the caller computed them already. */
  views?: readonly LiveView[];
  state: ProjectState | undefined;
  /** Per alert key. A key missing here has no secrets. */
  secrets: ReadonlyMap<string, ResolvedSecrets>;
  /** Per alert key: why a team reference blocks it. */
  teamProblems: ReadonlyMap<string, string>;
  fingerprintKey: Uint8Array;
  /** Secret fingerprints already computed in this plan (shared secrets are HMACed once). */
  fingerprintCache?: FingerprintCache;
  /** The state was unreadable and `state` is the empty one replacing it: ownership is unknown (release notes say so). */
  stateCorrupt?: boolean;
  /**
   * An apply: an owned config found in sync whose record says another body was last applied carries its desired body
   * as `after`, so the apply brings the record up to date (record-refresh.ts). A plan saves no state and skips the check.
   */
  refreshRecords?: boolean;
}

/** The planned changes and the unmanaged live configs of a project. */
export interface AlertPlanOutput {
  changes: Change[];
  unmanaged: UnmanagedAlert[];
  /** Keys whose owned config vanished from Ops Manager, with the id it had (for drift attribution). */
  formerIds: Map<string, string>;
  /** Quiet notices for the plan's `notes` (a released key this state does not own). */
  notes: string[];
  /** Loud notices for the plan's `warnings` (a digest-less create marker of an earlier release, late-creates.ts). */
  warnings: string[];
}

/**
 * Identity of a desired body for the non-convergence guard: any desired change, secrets included, re-arms it. The
 * live values of ignored members that a plan put in (withLiveIgnored) are left out: a person's edit of one is no
 * desired change.
 */
export function desiredIdentity(key: Uint8Array, body: DesiredAlertBody, secrets: ReadonlyMap<string, string>): string {
  return hmacOf(key, { body: identityBody(body), secrets: secretFingerprints(key, secrets) });
}

const EMPTY_SECRETS: ResolvedSecrets = { ok: true, values: new Map<string, string>() };

/**
 * The order in which desired keys claim live configs: digits as numbers, so that `host-down-2` claims before
 * `host-down-10`. Equal unowned configs go oldest first, and `export` numbers the keys of one event type in creation
 * order: claiming in plain code-unit order (`-10` before `-2`) would give a tenth exported key the second config, and
 * with it secret references filled for another one. The plan itself is sorted later (plan-order.ts).
 */
function byKey(a: { key: string }, b: { key: string }): number {
  return byNumberedText(a.key, b.key);
}

/** The configs in byKey order: the input itself when it is in that order already. */
function sortedByKey<T extends { key: string }>(configs: readonly T[]): readonly T[] {
  for (let i = 1; i < configs.length; i++) {
    if (byKey(configs[i - 1] as T, configs[i] as T) > 0) return [...configs].sort(byKey);
  }
  return configs;
}

/**
 * The order in which keys claim live configs: byKey, except that keys with ignoreFields come after every key without.
 * A key ignoring members matches more configs (equal except in those) than a key that does not; claiming first, it
 * could take the one config a stricter key equals (the disabled one, for a key ignoring `enabled`) and leave that key
 * to create a duplicate beside it. Claimed last, it takes what the stricter keys left.
 */
function claimOrder<T extends { key: string; ignoreFields?: readonly string[] }>(configs: readonly T[]): readonly T[] {
  const sorted = sortedByKey(configs);
  if (!sorted.some((c) => (c.ignoreFields?.length ?? 0) > 0)) return sorted;
  return [
    ...sorted.filter((c) => (c.ignoreFields?.length ?? 0) === 0),
    ...sorted.filter((c) => (c.ignoreFields?.length ?? 0) > 0),
  ];
}

/** sharedSecretItems of a desired body: the YAML position of each secret path prefix of a shared identity. */
function secretItemsOf(after: DesiredAlertBody): Map<string, number> {
  return sharedSecretItems(after.notifications as unknown as Record<string, unknown>[]);
}

/**
 * `fields` with each secret of one of several notifications of one identity given its YAML position (FieldChange.item),
 * as diffAlert gives the non-secret ones: the secret paths number duplicates by content (secretPathPrefixes). Those
 * numbered secrets are then put in YAML order among the places they hold (item 1's before item 2's), as diffAlert
 * orders the non-secret fields of such notifications: in path order the content numbering (`WEBHOOK#2` sorts before
 * `WEBHOOK`) would list a later webhook's secrets above an earlier one's.
 */
function withSecretItems(
  fields: FieldChange[],
  after: DesiredAlertBody,
  items: ReadonlyMap<string, number> = secretItemsOf(after),
): FieldChange[] {
  if (items.size === 0) return fields;
  const out = fields.map((f) => {
    if (f.secret !== true || f.item !== undefined) return f;
    const item = items.get(f.path.slice(0, f.path.lastIndexOf('.')));
    return item === undefined ? f : { ...f, item };
  });
  const places = out.flatMap((f, i) => (f.secret === true && f.item !== undefined ? [i] : []));
  const inYamlOrder = places.map((i) => out[i] as FieldChange).sort(byItemThenField);
  places.forEach((place, k) => {
    out[place] = inYamlOrder[k] as FieldChange;
  });
  return out;
}

/**
 * Secret fields of numbered notifications in YAML order: by item, then by field name. Each is a desired notification's
 * (item 1 and up): one only on live is a whole-notification line, never a secret field.
 */
function byItemThenField(a: FieldChange, b: FieldChange): number {
  const ia = a.item ?? 0;
  const ib = b.item ?? 0;
  if (ia !== ib) return ia - ib;
  // One item, one path prefix: the paths differ in the field name alone.
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * Why an owned config that left git is a delete candidate. One this tool adopted rather than created (an Ops Manager
 * default, a hand-made config, another tool's) is owned all the same, so it is pruned like any other; the reason says
 * so, for whoever reviews the plan, because the config existed before this tool took it over.
 */
function deleteReason(record: OwnedAlertConfig | undefined): string {
  const base = 'owned alert config no longer in the desired state';
  if (record?.adoptedAt === undefined || record.createdAt !== undefined) return base;
  return `${base}; adopted at ${record.adoptedAt}, not created by this tool (it existed before: an Ops Manager default, a hand-made config or another tool's)`;
}

/**
 * The secret fields of an adoption: each is re-sent by its one full PUT ('set'), and one whose redaction on live keeps
 * characters the desired value cannot have ('changed': mask-check.ts) is a secret this write replaces, not merely
 * re-sends. The first plan after `export` is all adoptions, with every secret typed in by hand: a wrong one must show.
 */
function adoptionSecretFields(
  after: DesiredAlertBody,
  values: ReadonlyMap<string, string>,
  live: AlertConfig,
): { fields: FieldChange[]; reason: string } {
  const differ = new Set(secretsChangedOnLive(after, values, live));
  const fields = [...values.keys()]
    .sort()
    .map((path): FieldChange => ({ path, secret: true, note: differ.has(path) ? 'changed' : 'set' }));
  const reason =
    differ.size === 0
      ? ''
      : `; ${differ.size} of its secrets cannot be the one Ops Manager holds (the characters its redaction shows differ): adopting it replaces ${differ.size === 1 ? 'that secret' : 'them'}`;
  return { fields: withSecretItems(fields, after), reason };
}

/** How many equal candidates of a renamed key are checked for the one its request was last sent to. */
const RENAME_PROOF_CANDIDATES = 20;

/**
 * The config a renamed key moves to among those of keys that left git equal to it: the first whose old record proves
 * that this very request, secrets and all, was the last one sent to it (`proven`), else the first. Configs equal but
 * for their secrets (two PagerDuty alerts of two services) cannot be told apart by content, and keys renamed together
 * claim in their new order: taking the first would pair a key with another's config, re-send both secrets swapped,
 * and say each adoption replaces a working secret. Only a key with secrets and several candidates looks further.
 */
function provenRename<T>(
  index: ClaimIndex<T>,
  text: string,
  resolved: ResolvedSecrets,
  proven: (candidate: T) => boolean,
): T | undefined {
  const first = index.first(text);
  if (first === undefined || !resolved.ok || resolved.values.size === 0) return first;
  const candidates = index.all(text).slice(0, RENAME_PROOF_CANDIDATES);
  if (candidates.length < 2) return first;
  return candidates.find(proven) ?? first;
}

/**
 * An adoption of a body with secrets re-sends them with one full PUT (apply-alerts.ts), which leaves out what this
 * version does not model, as an update does: those live members are listed on the change.
 */
function listUnsentOnAdopt(change: Change, live: AlertConfig, resolved: ResolvedSecrets): void {
  if (!resolved.ok || resolved.values.size === 0) return;
  const unsent = unmodelledMembers(live);
  if (unsent.length === 0) return;
  change.fields = [...change.fields, ...unsent];
  change.reason += unmodelledReason(unsent);
}

/**
 * Why a key's create is blocked on the configs (`landed`, sorted ids) its lost create of run `runId` made late, equal
 * to what that create sent while the key's desired body has changed since.
 */
function landedReason(runId: string, landed: readonly string[]): string {
  return `a create of this key was interrupted (run ${runId}) and landed late: unmanaged alert config ${landed.join(', ')} equals what it sent, but the key's desired body changed since, so it is neither adopted nor created again (a duplicate); put the key's previous body back in git and apply (it is adopted, then change it), or delete ${landed.length === 1 ? 'that config' : 'those configs'} in Ops Manager and re-run (it is created)`;
}

/** Plans one project's alert configs. */
export function planAlertConfigs(input: AlertPlanInput): AlertPlanOutput {
  const { target, project, fingerprintKey } = input;
  const owned = input.state?.alertConfigs ?? {};
  const liveById = new Map<string, AlertConfig>();
  const views = new Map<string, LiveView>();
  input.live.forEach((c, i) => {
    liveById.set(c.id, c);
    views.set(c.id, input.views?.[i] ?? liveView(c));
  });
  const ownedIds = new Set<string>();
  // Records that own no id (a pending create's marker): few, and the only ones the markers' warnings look at.
  const idless: string[] = [];
  for (const k of Object.keys(owned)) {
    const id = owned[k]?.id;
    if (id !== undefined) ownedIds.add(id);
    else idless.push(k);
  }
  const claimed = new Set<string>();
  const changes: Change[] = [];
  const formerIds = new Map<string, string>();
  const kind = 'alertConfig' as const;
  // Creates blocked on the late landing of their key's lost create, settled once every key has claimed its config.
  const landedLate: { change: Change; runId: string; landed: string[] }[] = [];
  // Configs the desired keys own or take over, with the text each will hold: an unmanaged copy of one is named.
  const kept: KeptConfig[] = [];

  // Unowned live configs by text, oldest first: adoption takes the first one not claimed yet.
  const unowned = new ClaimIndex<AlertConfig>(
    input.live.flatMap((c): [string, AlertConfig][] =>
      ownedIds.has(c.id) ? [] : [[(views.get(c.id) as LiveView).text, c]],
    ),
    (c) => c.id,
    claimed,
    creationOrder,
  );
  const unownedIgnoring = new IgnoringIndexes(
    input.live.filter((c) => !ownedIds.has(c.id)),
    (c) => c,
    (c) => c.id,
    claimed,
    creationOrder,
  );

  // Keys the project lets go of (spec.release): planned apart, and claiming their configs first, so that neither a
  // rename nor a delete nor a late create's delete takes a config the user asked to leave alone.
  const releases = planReleases(target, project.release, owned, liveById, views, claimed, input.stateCorrupt);
  changes.push(...releases.changes);
  const releasedKeys = new Set(project.release);

  // Live configs owned by keys that left git, by old key: a new key equal to one of them is a rename, not a new config.
  const desiredKeys = new Set(project.alertConfigs.map((c) => c.key));
  // Renames declared with renamedFrom: the old key's record serves the new key, and the old key is no delete candidate.
  const renames = explicitRenames(project.alertConfigs, owned, desiredKeys, releasedKeys, (id) => liveById.has(id));
  const renamedAway = new Set(renames.values());
  const leftGit: { key: string; config: AlertConfig }[] = [];
  for (const key of Object.keys(owned).sort()) {
    const id = owned[key]?.id;
    const gone = desiredKeys.has(key) || releasedKeys.has(key) || renamedAway.has(key);
    const live = gone || id === undefined ? undefined : liveById.get(id);
    if (live !== undefined) leftGit.push({ key, config: live });
  }
  const leftGitByText = new ClaimIndex(
    leftGit.map((r): [string, { key: string; config: AlertConfig }] => [(views.get(r.config.id) as LiveView).text, r]),
    (r) => r.config.id,
    claimed,
  );
  const leftGitIgnoring = new IgnoringIndexes(
    leftGit,
    (r) => r.config,
    (r) => r.config.id,
    claimed,
  );

  for (const config of claimOrder(project.alertConfigs)) {
    const key = config.key;
    const body = toDesiredAlertBody(config);
    let desired: NormalAlert | undefined;
    const movedFrom = renames.get(key);
    const record: OwnedAlertConfig | undefined = movedFrom === undefined ? owned[key] : owned[movedFrom];
    const resolved = input.secrets.get(key) ?? EMPTY_SECRETS;
    const live = record?.id === undefined ? undefined : liveById.get(record.id);
    // What a write of an existing config sends: the desired body, with the live value of each member it ignores.
    const after = live === undefined ? body : withLiveIgnored(body, live);
    // The text decides "in sync"; the normal form is only built when something differs.
    const desiredText = desiredTextOf(after);
    if (record?.id !== undefined && live !== undefined) {
      claimed.add(record.id);
      kept.push({ key, id: record.id, text: desiredText });
    }

    const teamProblem = input.teamProblems.get(key);
    if (!resolved.ok || teamProblem !== undefined) {
      const change: Change = {
        target,
        kind,
        key,
        action: 'blocked',
        after,
        fields: [],
        reason: !resolved.ok ? resolved.reason : (teamProblem ?? ''),
      };
      if (live !== undefined) change.id = live.id;
      changes.push(change);
      continue;
    }

    if (live !== undefined) {
      const view = views.get(live.id) as LiveView;
      // Equal canonical texts mean in sync: the field-level diff is only computed when something differs.
      let fields: FieldChange[] = [];
      let secretDrift = false;
      if (view.text !== desiredText) {
        desired = normaliseDesired(after);
        fields = diffAlert(desired, view.normal, () => desiredNotificationOrder(after));
      }
      // Built once, and only for a config with a secret line to place.
      let items: Map<string, number> | undefined;
      const itemsOf = () => {
        items ??= secretItemsOf(after);
        return items;
      };
      if (resolved.values.size > 0) {
        let changedSecrets = changedSecretPaths(
          fingerprintKey,
          resolved.values,
          record?.secretFingerprints,
          input.fingerprintCache,
        );
        // The very request last sent (its whole fingerprint): no secret changed, though the paths differ (recorded by a
        // release that numbered same-identity notifications otherwise). Only computed when a path reads as changed.
        if (changedSecrets.length > 0 && sentAsRecorded(fingerprintKey, after, resolved.values, record?.fingerprint)) {
          changedSecrets = [];
        }
        // A secret that only moved to a sibling's path (a webhook renumbered by an edit) is no change, but only while
        // another field than `enabled` differs: that update (a full PUT, not the PATCH of `enabled` alone) sends every
        // secret anyway, so this decides what the plan says, never what is written. With nothing else differing, a renumbering (references renamed) cannot be told from two webhooks
        // whose values were swapped in the secrets file, and missing the swap would leave Ops Manager with the wrong
        // values: it is sent.
        if (changedSecrets.length > 0 && fields.length > 0 && !onlyEnabledDiffers(fields)) {
          const moved = renumberedSecretPaths(
            fingerprintKey,
            after,
            resolved.values,
            record?.secretFingerprints,
            changedSecrets,
            input.fingerprintCache,
          );
          if (moved.size > 0) changedSecrets = changedSecrets.filter((p) => !moved.has(p));
        }
        if (changedSecrets.length > 0)
          fields = withSecretChanges(fields, changedSecrets, record?.secretFingerprints, itemsOf());
        // A secret replaced by hand leaves the normalised body (and its digest) as it was: only the characters its
        // redaction kept can tell, and when they do it is drift like any other edit made in Ops Manager.
        const onLive = secretsChangedOnLive(after, resolved.values, live).filter((p) => !changedSecrets.includes(p));
        if (onLive.length > 0) {
          secretDrift = true;
          fields.push(...onLive.map((path): FieldChange => ({ path, secret: true, note: 'changed on live' })));
        }
      }
      if (fields.some((f) => f.secret === true && f.item === undefined))
        fields = withSecretItems(fields, after, itemsOf());
      const change: Change = { target, kind, key, id: live.id, action: 'noop', fields, reason: 'in sync' };
      if (fields.length === 0 && input.refreshRecords === true && record !== undefined) {
        if (recordBehind(record, after, desiredText)) change.after = after;
      } else if (fields.length > 0) {
        // Only a differing config needs its live digest: the view computes it now, for this one.
        const drifted =
          secretDrift ||
          (record?.appliedDigest !== undefined && liveDigestFor(record, live, view, body) !== record.appliedDigest);
        change.before = view.normal;
        change.after = after;
        const guard = record?.notConverging;
        if (guard !== undefined && guard.desiredDigest === desiredIdentity(fingerprintKey, after, resolved.values)) {
          change.action = 'blocked';
          change.reason = `not converging since ${guard.since} (fields ${guard.fields.join(', ')} still differed after a write); not rewritten until its desired state changes (${NOT_CONVERGING_ADVICE})`;
        } else if (onlyEnabledDiffers(fields)) {
          const enabled = (desired ?? normaliseDesired(after)).enabled;
          change.action = enabled ? 'enable' : 'disable';
          change.reason = enabled ? 'enabled in desired state, disabled live' : 'disabled in desired state';
        } else {
          change.action = 'update';
          change.reason = `${fields.length} field(s) differ`;
          // The full PUT sends the desired body alone: what it leaves out of a newer server's answer is listed.
          const unsent = unmodelledMembers(live);
          if (unsent.length > 0) {
            change.fields = [...fields, ...unsent];
            change.reason += unmodelledReason(unsent);
          }
        }
        if (drifted) change.drift = { detected: true };
      }
      changes.push(movedFrom === undefined ? change : asExplicitRename(change, movedFrom, view, after));
      continue;
    }

    // No live object for this key: a renamed key, pending create, owned but deleted outside, or never seen.
    const pending = record?.pendingCreate !== undefined && record.id === undefined;
    // A config that ignores members matches one equal to it except in those, whose live values it then keeps.
    const ignored = ignoredOf(body);
    const matchText = ignored.length === 0 ? desiredText : adoptionText(body, ignored);
    const movedIndex = ignored.length === 0 ? leftGitByText : leftGitIgnoring.of(ignored);
    const moved = pending
      ? undefined
      : provenRename(movedIndex, matchText, resolved, (r) =>
          sentAsRecorded(fingerprintKey, withLiveIgnored(body, r.config), resolved.values, owned[r.key]?.fingerprint),
        );
    const except = ignored.length === 0 ? '' : ` except the ignored ${ignored.join(', ')}`;
    if (moved !== undefined) {
      claimed.add(moved.config.id);
      const movedAfter = withLiveIgnored(body, moved.config);
      kept.push({ key, id: moved.config.id, text: desiredTextOf(movedAfter) });
      const secrets = adoptionSecretFields(after, resolved.values, moved.config);
      // Apply sends nothing when the old key's record proves this very request was the last one sent and no redacted
      // secret shows an edit since (apply-alerts.ts): the plan says so rather than "will be sent on adoption".
      const proven =
        resolved.values.size > 0 &&
        !secrets.fields.some((f) => f.note === 'changed') &&
        sentAsRecorded(fingerprintKey, movedAfter, resolved.values, owned[moved.key]?.fingerprint);
      changes.push({
        target,
        kind,
        key,
        action: 'adopt',
        id: moved.config.id,
        movedFrom: moved.key,
        before: views.get(moved.config.id)?.normal,
        after: movedAfter,
        fields: proven ? [] : secrets.fields,
        reason: `key renamed from "${moved.key}": its config ${moved.config.id} equals the desired one in every non-secret field${except}, so ownership moves instead of a delete and a create${
          proven
            ? `; the record of "${moved.key}" proves this request, secrets included, was the last one sent to it: nothing is written`
            : secrets.reason
        }`,
      });
      if (!proven) listUnsentOnAdopt(changes[changes.length - 1] as Change, moved.config, resolved);
      continue;
    }
    // Only an interrupted create needs every match (several block it); otherwise the oldest one is adopted.
    const index = ignored.length === 0 ? unowned : unownedIgnoring.of(ignored);
    let matches = pending ? index.all(matchText) : [index.first(matchText)].flatMap((c) => c ?? []);
    // Several equal except in ignored members: the one equal in every field is what the POST sent, as without
    // ignoreFields (where the others would not match at all); only several of those, or none, block.
    if (pending && matches.length > 1 && ignored.length > 0) {
      const exact = unowned.all(desiredText);
      if (exact.length === 1) matches = exact;
    }
    if (pending && matches.length > 1) {
      changes.push({
        target,
        kind,
        key,
        action: 'blocked',
        after,
        fields: [],
        reason: `a create of this key was interrupted (run ${record?.pendingCreate?.runId}) and ${matches.length} matching unmanaged alert configs exist (${matches.map((m) => m.id).join(', ')}); delete the duplicates in Ops Manager so that one remains, then re-run`,
      });
      continue;
    }
    // An interrupted create whose POST landed late, while the key's body was edited in git since: its config equals
    // what that create sent (the marker's digest), not the desired body. Creating again would leave it in Ops Manager
    // as an unmanaged duplicate alerting with the old settings: blocked, naming it, for a human to choose.
    const sentDigest = pending && matches.length === 0 ? record?.pendingCreate?.desiredDigest : undefined;
    if (sentDigest !== undefined) {
      // Made before that run started (less the clock skew Ops Manager may have), a config cannot be its late landing.
      const started = Date.parse(record?.pendingCreate?.startedAt ?? '') - CLOCK_SKEW_ALLOWANCE_MS;
      // Ops Manager's `created` read as its spec says (UTC without a zone), never in this machine's time zone; one that
      // is not a time cannot be placed before the run: it may be the landing.
      const madeBefore = (c: AlertConfig) => (parseTimestamp(c.created ?? '') ?? Number.NaN) < started;
      // Configs that run's plan released were live before it: never its landing, though made within the skew allowance.
      const released = record?.pendingCreate?.releasedIds ?? [];
      const landed = input.live
        .filter(
          (c) =>
            !ownedIds.has(c.id) &&
            !claimed.has(c.id) &&
            !madeBefore(c) &&
            !released.includes(c.id) &&
            (views.get(c.id) as LiveView).digest === sentDigest,
        )
        .map((c) => c.id)
        .sort();
      if (landed.length > 0) {
        const runId = record?.pendingCreate?.runId ?? '';
        const blocked: Change = {
          target,
          kind,
          key,
          action: 'blocked',
          after,
          fields: [],
          reason: landedReason(runId, landed),
        };
        changes.push(blocked);
        landedLate.push({ change: blocked, runId, landed });
        continue;
      }
    }
    const first = matches[0];
    if (first !== undefined) {
      claimed.add(first.id);
      kept.push({
        key,
        id: first.id,
        text: ignored.length === 0 ? desiredText : desiredTextOf(withLiveIgnored(body, first)),
      });
      const secrets = adoptionSecretFields(after, resolved.values, first);
      const adopted: Change = {
        target,
        kind,
        key,
        action: 'adopt',
        id: first.id,
        before: views.get(first.id)?.normal,
        after: withLiveIgnored(body, first),
        fields: secrets.fields,
        reason: `${
          pending
            ? `recovering an interrupted create: adopting the one matching config ${first.id}`
            : `unowned live config ${first.id} equals the desired one in every non-secret field${except}`
        }${secrets.reason}`,
      };
      // The config this key owned was deleted outside this tool and an equal one made (by hand, another tool): taking
      // the new one over is right, but the delete is drift like any other, reported and attributed (the former id's
      // events say who deleted it, the new id's who made the replacement), not hidden behind a plain adoption.
      if (record?.id !== undefined) {
        adopted.reason = `owned config ${record.id} no longer exists in Ops Manager; ${adopted.reason}`;
        adopted.drift = { detected: true };
        formerIds.set(key, record.id);
      }
      changes.push(adopted);
      listUnsentOnAdopt(adopted, first, resolved);
      continue;
    }
    const change: Change = {
      target,
      kind,
      key,
      action: 'create',
      after,
      fields: [],
      reason:
        record?.id !== undefined
          ? `owned config ${record.id} no longer exists in Ops Manager`
          : pending
            ? // A killed or timed-out run's marker: say that run's create never landed, or the re-run reads as new.
              `not in Ops Manager: a create of this key was interrupted (run ${record?.pendingCreate?.runId}) and did not land (no unmanaged config equals what it sent); it is created now`
            : 'not in Ops Manager',
    };
    if (record?.id !== undefined) {
      change.drift = { detected: true };
      formerIds.set(key, record.id);
    }
    changes.push(change);
  }

  // A key later in key order whose desired body is what a blocked key's lost create sent adopted its landed config
  // (as a key renamed in the same commit does): that config is the other key's now, so it blocks nothing, and a key
  // left with none is created like any other; the outcome does not depend on which key sorts first.
  for (const late of landedLate) {
    const left = late.landed.filter((id) => !claimed.has(id));
    if (left.length === late.landed.length) continue;
    const at = changes.indexOf(late.change);
    if (left.length > 0) late.change.reason = landedReason(late.runId, left);
    else {
      const { target: t, key } = late.change;
      changes[at] = {
        target: t,
        kind,
        key,
        action: 'create',
        after: late.change.after,
        fields: [],
        reason: 'not in Ops Manager',
      };
    }
  }

  // Owned configs that left git: delete candidates (gated later), or forgotten when already gone; a renamed key's
  // config was claimed above and moves instead.
  for (const { key, config: live } of leftGit) {
    if (claimed.has(live.id)) continue;
    claimed.add(live.id);
    const record = owned[key];
    const view = views.get(live.id);
    const change: Change = {
      target,
      kind,
      key,
      action: 'delete',
      id: live.id,
      before: view?.normal,
      fields: [],
      reason: deleteReason(record),
    };
    // Someone changed it since our last write (say while its key was out of git with prune off, and a person took it
    // over): the delete discards their edit, so the plan marks it as drift and attribution names who made it.
    if (
      record?.appliedDigest !== undefined &&
      view !== undefined &&
      liveDigestFor(record, live, view) !== record.appliedDigest
    ) {
      change.drift = { detected: true };
      change.reason += '; changed in Ops Manager since this tool last wrote it';
    }
    changes.push(change);
  }

  // Configs created late by a POST whose answer was lost, for keys that left git since: after every desired key has
  // claimed its config, so a key renamed in the same commit adopts the config instead.
  // A released key's marker is forgotten instead (release.ts): what its create made late stays, unmanaged.
  const notLate = releasedKeys.size === 0 ? desiredKeys : new Set([...desiredKeys, ...releasedKeys]);
  for (const late of findLateCreates(owned, notLate, input.live, views, ownedIds, claimed)) {
    const change = lateCreateChange(target, late, views);
    if (change !== undefined) changes.push(change);
  }
  const warnings = undigestedLateCreates(owned, idless, notLate).map((marker) =>
    undigestedLateCreateWarning(target, marker),
  );

  const unclaimed = input.live.filter((c) => !ownedIds.has(c.id) && !claimed.has(c.id));
  noteNearMisses(changes, unclaimed, views);
  const duplicates = duplicateWarning(target, kept, unclaimed, views);
  if (duplicates !== undefined) warnings.push(duplicates);
  markTemplates(changes, project.alertConfigs);
  const unmanaged = unclaimed
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((c) => ({ target, id: c.id, eventTypeName: c.eventTypeName, enabled: c.enabled }));
  return { changes, unmanaged, formerIds, notes: releases.notes, warnings };
}
