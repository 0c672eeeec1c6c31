/**
 * Executes one alert-config change: POST (create), full PUT (update, and adopt when secrets must be re-sent), PATCH
 * (enable/disable) or DELETE; a release sends nothing and forgets the key's state record. Bodies are built from the plan's desired body plus secrets resolved now, never from a
 * GET. An ambiguous POST is resolved by re-reading the list: one match is adopted, several block the key. A write
 * answered 2xx with a body too large to read was applied: it is settled like one answered without a body
 * (settle-write.ts), and its outcome carries a warning. A POST answered 2xx that no live config matches (stored otherwise
 * than sent) is the one config of its event type that appeared since the plan, never created a second time.
 */
import { AmbiguousWriteError, OpsManagerAbortedError, OpsManagerApiError } from '../opsman/errors.ts';
import type { AlertConfig, AlertConfigRequest } from '../opsman/types.ts';
import { buildAlertRequest, type DesiredAlertBody } from './alert-body.ts';
import type { SecretLocator } from './apply-secret-places.ts';
import { ReconcileError } from './errors.ts';
import { bodyFingerprint, type FingerprintCache, secretFingerprint } from './fingerprint.ts';
import { appliedDigestOf } from './ignore-fields.ts';
import { confirmLateCreate, lateCreateDigest } from './late-creates.ts';
import type { Change, Plan } from './model.ts';
import {
  desiredText as canonicalDesiredText,
  normaliseDesired,
  normaliseLive,
  sameNormal,
  textDigest,
} from './normalise.ts';
import type { OpsManagerApi, OwnedAlertConfig, ReconcileState, SecretResolver } from './ports.ts';
import { listAlertConfigsChecked } from './read-live.ts';
import { resolveBodySecrets } from './resolve-secrets.ts';
import { settleWrite } from './settle-write.ts';
import { ownedIds, projectState, setAlertRecord } from './state.ts';

/** What applying one alert change needs. */
export interface AlertApplyContext {
  api: OpsManagerApi;
  secrets: SecretResolver;
  fingerprintKey: Uint8Array;
  state: ReconcileState;
  now: () => string;
  /**
   * Secret fingerprints computed during this apply, by path then value: a secret many alert configs share is HMACed
   * once. Holds secret values as long as the apply runs (as the run's secret resolver does); never persisted.
   */
  fingerprints?: FingerprintCache;
  /**
   * Per project id, the alert config ids live when the plan was made (its unmanaged configs and the ids its changes
   * address): a config outside them appeared since. Undefined when the plan does not say (no fallback below). Asked
   * only after a POST whose config cannot be identified (rare), so it is built then, not for every apply.
   */
  plannedIds?: () => ReadonlyMap<string, ReadonlySet<string>> | undefined;
  /** The keys that own each id, per project: built on a project's first adoption, kept current by its writes. */
  owners?: Map<string, OwnerIndex>;
  /**
   * Where a change's secret references are written (apply-secret-places.ts), asked only when one fails: the failure
   * then names the place as the plan's blocked reason would. Absent: the failure names no place.
   */
  locateSecrets?: SecretLocator;
}

/**
 * The keys of a project's records by the id they own: a superset of the owners (a key that lost the id since is
 * filtered out when asked), so that checking an adoption does not scan every record of the project each time.
 */
interface OwnerIndex {
  records: Readonly<Record<string, OwnedAlertConfig>>;
  keysById: Map<string, string[]>;
}

/** The alert config ids of each project that the plan saw live: its unmanaged configs and every change's id. */
export function plannedAlertIds(plan: Plan): Map<string, Set<string>> | undefined {
  // A plan without the list (an older or hand-made one) cannot say what appeared since: no fallback.
  if (!Array.isArray(plan.unmanaged)) return undefined;
  const out = new Map<string, Set<string>>();
  const add = (target: { type: string; id: string }, id: unknown) => {
    if (target.type !== 'project' || typeof id !== 'string') return;
    const ids = out.get(target.id) ?? new Set<string>();
    ids.add(id);
    out.set(target.id, ids);
  };
  for (const u of plan.unmanaged) if (u.kind === 'alertConfig') add(u.target, u.id);
  for (const c of plan.changes) if (c.kind === 'alertConfig') add(c.target, c.id);
  return out;
}

/** HMAC of every secret of a body, by field path, in path order (the same record `secretFingerprints` builds). */
function cachedSecretFingerprints(ctx: AlertApplyContext, values: ReadonlyMap<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  if (values.size === 0) return out;
  const paths = [...values.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const path of paths) {
    out[path] = secretFingerprint(ctx.fingerprintKey, path, values.get(path) as string, ctx.fingerprints);
  }
  return out;
}

/** A prepared body: the request to send and its fingerprints. Lives in memory only (it holds secret values). */
export interface PreparedBody {
  request: AlertConfigRequest;
  hasSecrets: boolean;
  fingerprint: string;
  secretFingerprints: Record<string, string>;
  /**
   * sha256 of `desiredText` (equal to `normalDigest(normaliseDesired(body))`), or, for a body with ignoreFields, of its
   * text without the ignored members (ignore-fields.ts appliedDigestOf).
   */
  appliedDigest: string;
  /** The body's ignoreFields, sorted, when it has some: recorded with `appliedDigest`, which leaves them out. */
  ignoredFields?: string[];
  /** Canonical JSON of the normalised desired body (no secret values): what verification compares an echo with. */
  desiredText: string;
}

/** The outcome of one alert change. */
export interface AlertApplyOutcome {
  id?: string;
  message?: string;
  /** The config as the write's response returned it (the server's stored entity), when the write returned one. */
  response?: AlertConfig;
  /** False when nothing was sent to Ops Manager (adoption without secrets): there is nothing to verify. */
  wrote: boolean;
  /** The prepared body's `desiredText`, for verification of the echo. */
  desiredText?: string;
  /** Set when the write was applied but its answer was too large to read (also in `message`): for the run's warnings. */
  warning?: string;
}

/** The desired body of a change and its secrets resolved now; throws ReconcileError naming the problem. */
async function resolveChange(change: Change, ctx: AlertApplyContext) {
  const body = change.after as DesiredAlertBody | undefined;
  if (body === undefined)
    throw new ReconcileError('PLAN_INCOMPLETE', `${change.action} of ${change.key} has no desired body`);
  const locate = ctx.locateSecrets;
  const resolved = await resolveBodySecrets(
    body,
    ctx.secrets,
    change.key,
    locate === undefined ? undefined : () => locate(change),
  );
  if (!resolved.ok) throw new ReconcileError('SECRET_UNRESOLVED', resolved.reason);
  return { body, values: resolved.values };
}

/**
 * Checks that a change's body can be prepared (desired body present, every secret resolvable and not mask-like),
 * building nothing: the check before the first write of a run. Throws what `prepareBody` would throw.
 */
export async function checkBody(change: Change, ctx: AlertApplyContext): Promise<void> {
  await resolveChange(change, ctx);
}

/** Resolves secrets and builds the request of a change's desired body; throws ReconcileError naming the problem. */
export async function prepareBody(change: Change, ctx: AlertApplyContext): Promise<PreparedBody> {
  const { body, values } = await resolveChange(change, ctx);
  const request = buildAlertRequest(body, values);
  // The canonical text of the normalised body, written directly (the same text as canonicalJson(normaliseDesired(body))
  // without building the normal object first: 1.8 instead of 5.1 µs per body).
  const desiredText = canonicalDesiredText(body);
  return {
    request,
    // One value per secret use (resolution stops at the first missing one), so this says whether the body has any.
    hasSecrets: values.size > 0,
    fingerprint: bodyFingerprint(ctx.fingerprintKey, request),
    secretFingerprints: cachedSecretFingerprints(ctx, values),
    appliedDigest: appliedDigestOf(body, desiredText),
    desiredText,
    ...(body.ignoreFields === undefined || body.ignoreFields.length === 0
      ? {}
      : { ignoredFields: [...body.ignoreFields].sort() }),
  };
}

/** Fields of a record that an applied write replaces or clears; every other field of an older record is kept. */
const REWRITTEN = new Set([
  'id',
  'fingerprint',
  'secretFingerprints',
  'appliedDigest',
  'ignoredFields',
  'pendingCreate',
  'notConverging',
]);

function recordApplied(
  change: Change,
  ctx: AlertApplyContext,
  id: string,
  prepared: PreparedBody,
  how: 'created' | 'adopted' | 'updated',
): void {
  // A renamed key's write keeps what the old key's record kept (when it still names this config): its record moves.
  const old = ctx.state.projects[change.target.id]?.alertConfigs[change.key] ?? movedRecord(change, ctx, id);
  const { fingerprint, secretFingerprints, appliedDigest, ignoredFields } = prepared;
  const kept = old === undefined ? [] : Object.keys(old).filter((field) => !REWRITTEN.has(field));
  // Built as one literal (no spread then delete, no field added later): the 20,000 records of a first apply stay
  // compact objects in the heap. Kept fields of an older record follow, so the stored JSON lists the same fields.
  if (how === 'created' && kept.length === 0 && ignoredFields === undefined) {
    const createdAt = ctx.now();
    setAlertRecord(ctx.state, change.target.id, change.key, {
      id,
      fingerprint,
      secretFingerprints,
      appliedDigest,
      createdAt,
    });
    // The owner index is kept current by every write that gives a record an id, this one included: a create's re-read
    // may record an id that was live (and unowned) when the plan was made, which a later adoption may name.
    noteOwner(ctx, change.target.id, change.key, id);
    return;
  }
  const record: OwnedAlertConfig = { id, fingerprint, secretFingerprints, appliedDigest };
  if (ignoredFields !== undefined) record.ignoredFields = ignoredFields;
  for (const field of kept) {
    (record as Record<string, unknown>)[field] = (old as Record<string, unknown>)[field];
  }
  if (how === 'created') record.createdAt = ctx.now();
  if (how === 'adopted') {
    record.adoptedAt = ctx.now();
    // `createdAt` alone says this tool made the config (a prune of one without it says "adopted"): an interrupted
    // create that this adoption recovers was ours, and a renamed key's config keeps where its old record said it came
    // from. The newest of the two times stays the adoption (attribution-window.ts), so attribution is unchanged.
    if (old?.pendingCreate !== undefined && old.createdAt === undefined) record.createdAt = old.pendingCreate.startedAt;
    const from =
      change.movedFrom === undefined ? undefined : ctx.state.projects[change.target.id]?.alertConfigs[change.movedFrom];
    if (from?.id === id && from.createdAt !== undefined) record.createdAt = from.createdAt;
  }
  setAlertRecord(ctx.state, change.target.id, change.key, record);
  noteOwner(ctx, change.target.id, change.key, id);
}

/** The record of the key a change's key was renamed from, when it still owns config `id`. */
function movedRecord(change: Change, ctx: AlertApplyContext, id: string): OwnedAlertConfig | undefined {
  if (change.movedFrom === undefined) return undefined;
  const record = ctx.state.projects[change.target.id]?.alertConfigs[change.movedFrom];
  return record?.id === id ? record : undefined;
}

/** After a renamed key's write: the old key's record goes (only if it still names this config). */
function dropMovedRecord(change: Change, ctx: AlertApplyContext, id: string): void {
  if (movedRecord(change, ctx, id) !== undefined)
    setAlertRecord(ctx.state, change.target.id, change.movedFrom as string, undefined);
}

/**
 * Brings the record of an owned config found in sync up to its desired body (`change.after`, record-refresh.ts): the
 * fingerprints and digest a write of that body would have recorded, nothing sent. A secret that no longer resolves
 * leaves the record as it was: this is bookkeeping, and the run's writes check the same secrets and report them.
 */
export async function recordVerified(change: Change, ctx: AlertApplyContext): Promise<void> {
  if (change.id === undefined || change.after === undefined) return;
  let prepared: PreparedBody;
  try {
    prepared = await prepareBody(change, ctx);
  } catch {
    return;
  }
  recordApplied(change, ctx, change.id, prepared, 'updated');
}

/** Adds `key` as an owner of `id` to the project's owner index, when it has one (the only way a record gains an id). */
function noteOwner(ctx: AlertApplyContext, projectId: string, key: string, id: string): void {
  const index = ctx.owners?.get(projectId);
  if (index === undefined) return;
  const keys = index.keysById.get(id);
  if (keys === undefined) index.keysById.set(id, [key]);
  else if (!keys.includes(key)) keys.push(key);
}

/** The first key (in the records' own order) whose record owns `id`, or undefined. */
function ownerOf(ctx: AlertApplyContext, projectId: string, id: string): string | undefined {
  const records = ctx.state.projects[projectId]?.alertConfigs ?? {};
  ctx.owners ??= new Map();
  let index = ctx.owners.get(projectId);
  if (index === undefined || index.records !== records) {
    index = { records, keysById: new Map() };
    for (const k of Object.keys(records)) {
      const owned = records[k]?.id;
      if (owned === undefined) continue;
      const keys = index.keysById.get(owned);
      if (keys === undefined) index.keysById.set(owned, [k]);
      else keys.push(k);
    }
    ctx.owners.set(projectId, index);
  }
  const owners = (index.keysById.get(id) ?? []).filter((k) => records[k]?.id === id);
  if (owners.length <= 1) return owners[0];
  // Several keys own one id (a hand-edited state): the first as the records list them, as a scan would find it.
  return Object.keys(records).find((k) => records[k]?.id === id);
}

/**
 * After a POST whose outcome is unknown: the unowned live configs equal to the desired body (sorted ids), and the
 * unowned ones of its event type that appeared since the plan was made (when the plan says what it saw).
 */
async function findCreated(
  change: Change,
  ctx: AlertApplyContext,
): Promise<{ matching: string[]; appeared: AlertConfig[] }> {
  const body = change.after as DesiredAlertBody;
  const desired = normaliseDesired(body);
  const owned = ownedIds(ctx.state, change.target.id);
  const planned = ctx.plannedIds?.();
  const seen = planned === undefined ? undefined : (planned.get(change.target.id) ?? new Set<string>());
  const live = await listAlertConfigsChecked(ctx.api, change.target.id);
  const unowned = live.filter((c) => !owned.has(c.id));
  const matching = unowned
    .filter((c) => sameNormal(normaliseLive(c), desired))
    .map((c) => c.id)
    .sort();
  const appeared =
    seen === undefined ? [] : unowned.filter((c) => !seen.has(c.id) && c.eventTypeName === body.eventTypeName);
  return { matching, appeared };
}

/**
 * After a POST whose outcome is unknown (no answer, or an answer without the new config's id): the re-read decides.
 * Exactly one matching unowned config is adopted; none keeps the pending marker for the next run; several block.
 * When the POST is known to be applied (answered 2xx) and none matches, Ops Manager stored the config otherwise than
 * it was sent (non-convergence): the one config of its event type that appeared since the plan is the created one,
 * and is recorded as a create answered with its id would be (verification then finds it differs). Leaving only the
 * pending marker would have the next run, finding no match, POST it again: a duplicate on every run.
 */
async function resolveUnknownCreate(
  change: Change,
  ctx: AlertApplyContext,
  prepared: PreparedBody,
  what: string,
  cause: unknown,
  applied = false,
): Promise<AlertApplyOutcome> {
  let reread: Awaited<ReturnType<typeof findCreated>>;
  try {
    reread = await findCreated(change, ctx);
  } catch (error) {
    // The run stopped while the re-read waited (the stop-waiting view ends it unsent). The POST was sent all the same:
    // never a write "not started" (whose marker is dropped), as the apply would take an unsent stop for. The marker
    // stays, so the next run adopts what the POST made (or recognises it as the tool's if the key leaves git).
    if (!(error instanceof OpsManagerAbortedError)) throw error;
    throw new ReconcileError(
      'AMBIGUOUS_CREATE',
      `${what} and the re-read that would find the new config was stopped (${error.message}); the pending marker stays and the next run resolves it`,
      { cause: error },
    );
  }
  const { matching: found, appeared } = reread;
  const only = found[0];
  if (found.length === 1 && only !== undefined) {
    recordApplied(change, ctx, only, prepared, 'created');
    return {
      id: only,
      message: `${what}; re-read found exactly one matching config ${only}, adopted`,
      // The re-read just found it equal to the desired body: already verified.
      wrote: false,
    };
  }
  const created = appeared[0];
  if (applied && found.length === 0 && appeared.length === 1 && created !== undefined) {
    recordApplied(change, ctx, created.id, prepared, 'created');
    return {
      id: created.id,
      message: `${what}; re-read found no config equal to the desired one but exactly one new ${created.eventTypeName} config ${created.id}, recorded as created`,
      response: created,
      wrote: true,
      desiredText: prepared.desiredText,
    };
  }
  throw new ReconcileError(
    'AMBIGUOUS_CREATE',
    found.length === 0
      ? `${what} and no matching config was found; the pending marker stays and the next run retries`
      : `${what} and ${found.length} matching configs exist (${found.join(', ')}); blocked for a human`,
    { cause },
  );
}

async function create(change: Change, ctx: AlertApplyContext, prepared: PreparedBody): Promise<AlertApplyOutcome> {
  // Null: the POST succeeded without a body, or with one too large to read (the config exists; the id check below has
  // the re-read find it).
  let created: AlertConfig | null;
  let warning: string | undefined;
  try {
    ({ value: created, warning } = await settleWrite(() =>
      ctx.api.createAlertConfig(change.target.id, prepared.request),
    ));
  } catch (error) {
    if (error instanceof AmbiguousWriteError)
      return resolveUnknownCreate(change, ctx, prepared, `the POST was ambiguous (${error.why})`, error);
    // A refusal (4xx) created nothing: drop the pending marker. Anything else may have: keep it for the next run.
    if (error instanceof OpsManagerApiError && error.status >= 400 && error.status < 500) {
      dropPendingMarker(ctx.state, change);
    }
    throw error;
  }
  // The POST succeeded, so the config exists; an answer without its id cannot say which one it is.
  const id = (created as { id?: unknown } | null)?.id;
  if (warning !== undefined)
    return { ...(await resolveUnknownCreate(change, ctx, prepared, warning, undefined, true)), warning };
  if (created === null || typeof id !== 'string' || id === '')
    return resolveUnknownCreate(
      change,
      ctx,
      prepared,
      "the POST answered without the new config's id",
      undefined,
      true,
    );
  recordApplied(change, ctx, id, prepared, 'created');
  return { id, response: created, wrote: true, desiredText: prepared.desiredText };
}

/**
 * Refuses a write to a config the applying state does not own. A fresh plan always passes (it was made from this
 * state); a saved plan is applied without a re-diff, and may come from another installation's state, from before this
 * state was lost or found corrupt, or from a hand-edited file: its delete, update, enable or disable of an id this
 * state does not record for that key would act on someone else's config, and its adoption of an id another key owns
 * would give one config two owners. One delete passes without its id in state: of the config a lost create of the key
 * made late ('late': the record is still only a marker with a digest, and no key owns the id), which the delete then
 * confirms live (confirmLateCreate) before it is sent.
 */
function assertOwnership(change: Change, ctx: AlertApplyContext): 'owned' | 'late' {
  if (change.action === 'release') {
    assertReleasable(change, ctx);
    return 'owned';
  }
  const id = change.id;
  if (id === undefined || change.action === 'create') return 'owned';
  const records = ctx.state.projects[change.target.id]?.alertConfigs ?? {};
  if (change.action === 'adopt') {
    const owner = ownerOf(ctx, change.target.id, id);
    if (owner === undefined || owner === change.key || owner === change.movedFrom) return 'owned';
    throw new ReconcileError(
      'NOT_OWNED',
      `not adopted: alert config ${id} is already owned by key "${owner}" in this state; make a new plan`,
    );
  }
  const record = records[change.key];
  if (record?.id === id) return 'owned';
  // A key renamed with renamedFrom: the old key's record owns the config until this write moves it.
  if (record === undefined && movedRecord(change, ctx, id) !== undefined) return 'owned';
  // The config a lost create of this key made late (the key left git since): no record owns it yet, and its delete
  // confirms it live first (confirmLateCreate).
  if (
    change.action === 'delete' &&
    lateCreateDigest(record) !== undefined &&
    ownerOf(ctx, change.target.id, id) === undefined
  )
    return 'late';
  throw new ReconcileError(
    'NOT_OWNED',
    `not ${change.action === 'delete' ? 'deleted' : 'written'}: alert config ${id} is not owned by key "${change.key}" in this state (the plan was made under another state, or the state was since lost or found corrupt); make a new plan`,
  );
}

/**
 * Refuses a release whose record is not the one the plan saw: the key must still own the plan's id (or, for a release
 * of a pending create's marker, still be only a marker). A release forgets ownership; forgetting a record that now owns
 * another config (the state was written since, or the plan was made under another state) would orphan that one.
 */
function assertReleasable(change: Change, ctx: AlertApplyContext): void {
  const record = ctx.state.projects[change.target.id]?.alertConfigs[change.key];
  if (record !== undefined && record.id === change.id) return;
  const owns = record?.id === undefined ? 'owns no alert config' : `owns alert config ${record.id}`;
  const planned = change.id === undefined ? 'a pending create' : `alert config ${change.id}`;
  throw new ReconcileError(
    'NOT_OWNED',
    record === undefined
      ? `not released: key "${change.key}" has no record in this state (the plan was made under another state, or the state was since lost or found corrupt); make a new plan`
      : `not released: key "${change.key}" ${owns} in this state, not ${planned} as the plan says; make a new plan`,
  );
}

/** Applies one alert-config change and updates the in-memory state. Throws on failure. */
export async function applyAlertChange(
  change: Change,
  ctx: AlertApplyContext,
  prepared?: PreparedBody,
): Promise<AlertApplyOutcome> {
  const groupId = change.target.id;
  const id = change.id;
  const ownership = assertOwnership(change, ctx);
  if (change.action === 'release') {
    // Nothing is sent: the config stays as it is, and the key's record (marker and guard with it) is forgotten.
    setAlertRecord(ctx.state, groupId, change.key, undefined);
    return {
      ...(id === undefined ? {} : { id }),
      message: 'released: left in Ops Manager, no longer managed',
      wrote: false,
    };
  }
  if (change.action === 'delete') {
    if (id === undefined) throw new ReconcileError('PLAN_INCOMPLETE', `delete of ${change.key} has no id`);
    const record = ctx.state.projects[groupId]?.alertConfigs[change.key];
    if (ownership === 'late' && record !== undefined) await confirmLateCreate(ctx.api, change, id, record);
    let warning: string | undefined;
    try {
      ({ warning } = await settleWrite(() => ctx.api.deleteAlertConfig(groupId, id)));
    } catch (error) {
      // Already gone is done; a 404 that is not Ops Manager's (a proxy's page) proves nothing and stays a failure.
      if (!(error instanceof OpsManagerApiError && error.status === 404 && error.fromOpsManager)) throw error;
    }
    setAlertRecord(ctx.state, groupId, change.key, undefined);
    return warning === undefined
      ? { id, message: 'deleted', wrote: true }
      : { id, message: `deleted; ${warning}`, wrote: true, warning };
  }
  const body = prepared ?? (await prepareBody(change, ctx));
  if (change.action === 'create') return create(change, ctx, body);
  if (id === undefined) throw new ReconcileError('PLAN_INCOMPLETE', `${change.action} of ${change.key} has no id`);
  if (change.action === 'update' || change.action === 'enable' || change.action === 'disable') {
    let sentAsPut = false;
    const toggle = async () => {
      try {
        return await ctx.api.setAlertConfigEnabled(groupId, id, change.action === 'enable');
      } catch (error) {
        // PATCH of `enabled` is the reference's, not the spec's: a server (or a proxy) that refuses the method gets
        // the full PUT an update sends, which carries `enabled` too. Never after any other answer: Ops Manager itself
        // has PATCH, and a PUT that only flips `enabled` has been seen to fail where the PATCH works.
        if (!(error instanceof OpsManagerApiError && error.status === 405)) throw error;
        sentAsPut = true;
        return ctx.api.updateAlertConfig(groupId, id, body.request);
      }
    };
    // A write answered without a body, or with one too large to read, leaves no echo: verification re-reads instead.
    const { value, warning } = await settleWrite(() =>
      change.action === 'update' ? ctx.api.updateAlertConfig(groupId, id, body.request) : toggle(),
    );
    recordApplied(change, ctx, id, body, 'updated');
    dropMovedRecord(change, ctx, id);
    const outcome: AlertApplyOutcome = { id, response: value ?? undefined, wrote: true, desiredText: body.desiredText };
    // Said as a warning: whoever runs the tool learns that their server (or a proxy before it) refuses PATCH.
    const notes = [
      ...(sentAsPut
        ? [
            `${change.action}d with a full PUT: Ops Manager (or a proxy before it) refused the PATCH of enabled (405 Method Not Allowed)`,
          ]
        : []),
      ...(warning === undefined ? [] : [warning]),
    ];
    if (notes.length > 0) {
      outcome.message = notes.join('; ');
      outcome.warning = outcome.message;
    }
    return outcome;
  }
  if (change.action === 'adopt') {
    // The live secrets are redacted, so whether they match is unknowable: re-send them once, then fingerprints hold.
    // Unless the renamed key's old record says this very request (secrets and all) is what was last sent to it, and
    // no redacted live secret shows a change made in Ops Manager since (the plan notes such a field 'changed').
    const proven =
      movedRecord(change, ctx, id)?.fingerprint === body.fingerprint &&
      !change.fields.some((f) => f.secret === true && f.note === 'changed');
    const resend = body.hasSecrets && !proven;
    const settled = resend ? await settleWrite(() => ctx.api.updateAlertConfig(groupId, id, body.request)) : undefined;
    const response = settled?.value ?? undefined;
    const warning = settled?.warning;
    recordApplied(change, ctx, id, body, 'adopted');
    dropMovedRecord(change, ctx, id);
    const message = resend ? 'adopted; secrets re-sent with a full PUT' : 'adopted';
    const outcome: AlertApplyOutcome = { id, message, wrote: resend };
    if (warning !== undefined) {
      outcome.message = `${message}; ${warning}`;
      outcome.warning = warning;
    }
    if (response !== undefined) {
      outcome.response = response;
      outcome.desiredText = body.desiredText;
    }
    return outcome;
  }
  throw new ReconcileError('NOT_A_WRITE', `${change.action} is not applied`);
}

/**
 * Marks a pending create in state (saved before the POST, so a crash leaves a trace the next run resolves). The marker
 * keeps the digest of the body sent (the `appliedDigest` it would get), so that a config the POST created late is still
 * recognised once its key has left git (late-creates.ts).
 */
export function markPending(
  state: ReconcileState,
  change: Change,
  runId: string,
  now: string,
  releasedIds: readonly string[] = [],
): void {
  const body = change.after as DesiredAlertBody | undefined;
  const pendingCreate: NonNullable<OwnedAlertConfig['pendingCreate']> =
    body === undefined
      ? { runId, startedAt: now }
      : { runId, startedAt: now, desiredDigest: textDigest(canonicalDesiredText(body)) };
  // A config released by the same plan may equal this body and was made by this tool's key minutes ago: the audit
  // check alone would take it for this create's late landing once the key left git, and delete what was released.
  if (releasedIds.length > 0) pendingCreate.releasedIds = [...releasedIds];
  // A fresh record: an old id (its config vanished) must not shadow the marker.
  projectState(state, change.target.id).alertConfigs[change.key] = { pendingCreate };
}

/** Drops the pending-create marker of a create that certainly created nothing (refused, or never sent). */
export function dropPendingMarker(state: ReconcileState, change: Change): void {
  const record = state.projects[change.target.id]?.alertConfigs[change.key];
  if (record !== undefined && record.id === undefined) setAlertRecord(state, change.target.id, change.key, undefined);
  else if (record !== undefined) delete record.pendingCreate;
}
