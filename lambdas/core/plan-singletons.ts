/**
 * Plans the singleton settings of a target: default server type (projects and organizations), audit-log rotation
 * (projects; written only with `enforce`), and the pinned version manifest (the installation).
 */
import { SERVER_TYPE_LABELS } from '../opsman/normalize.ts';
import type { AuditLogRotateConfig, ServerType, ServerTypeName } from '../opsman/types.ts';
import { canonicalJson, digestOf } from './canonical.ts';
import type { Change, DesiredAuditLogRotation, FieldChange, TargetRef } from './model.ts';
import { unknownMembers, unmodelledReason } from './unmodelled.ts';

/** Labels of the server types, sent with the name on PUT: the client's table (one place for the product's labels). */
export { SERVER_TYPE_LABELS };

/** Values the real product fills when a rotation field is not written (shared/reference/ops-manager-api.md). */
export const AUDIT_LOG_DEFAULTS: Readonly<AuditLogRotateConfig> = {
  numUncompressed: 5,
  percentOfDiskspace: 0.02,
  numTotal: 0,
};

/** The numeric fields of an audit-log rotation config that the desired state can set. */
export const ROTATION_FIELDS = [
  'sizeThresholdMB',
  'timeThresholdHrs',
  'numUncompressed',
  'percentOfDiskspace',
  'numTotal',
] as const;

/** The rotation config to write: the fields the desired state sets, `enforce` dropped. */
export function desiredRotation(desired: DesiredAuditLogRotation): AuditLogRotateConfig {
  const out: AuditLogRotateConfig = {};
  for (const field of ROTATION_FIELDS) if (desired[field] !== undefined) out[field] = desired[field];
  return out;
}

/** Digest of a singleton value, kept in state to tell drift (live moved) from a pending change (desired moved). */
export function singletonDigest(value: unknown): string {
  return digestOf(value ?? null);
}

/** Plans the default server type of a project or organization. */
export function planServerType(
  target: TargetRef,
  desired: ServerTypeName,
  live: ServerType | null,
  lastApplied: string | undefined,
): Change {
  const before = live?.name ?? null;
  const change: Change = {
    target,
    kind: 'defaultServerType',
    key: 'defaultServerType',
    action: before === desired ? 'noop' : 'update',
    // Kept on noops too: apply records it as verified, to tell later drift from a pending change.
    after: desired,
    fields: before === desired ? [] : [{ path: 'defaultServerType', before, after: desired }],
    reason: before === desired ? 'in sync' : `default server type is ${before ?? 'not set'}, desired ${desired}`,
  };
  if (change.action !== 'noop') {
    change.before = before;
    if (lastApplied !== undefined && lastApplied !== singletonDigest(before)) change.drift = { detected: true };
  }
  return change;
}

/** Plans the audit-log rotation of a project: only the fields the desired state sets are compared. */
export function planAuditLogRotation(
  target: TargetRef,
  desired: DesiredAuditLogRotation,
  live: AuditLogRotateConfig,
  lastApplied: string | undefined,
): Change {
  const wanted = desiredRotation(desired);
  const fields: FieldChange[] = [];
  for (const field of ROTATION_FIELDS) {
    const want = wanted[field];
    if (want === undefined) continue;
    const have = live[field] ?? AUDIT_LOG_DEFAULTS[field];
    if (have === undefined || Number(have) !== Number(want))
      fields.push({ path: field, before: have ?? null, after: want });
  }
  const change: Change = {
    target,
    kind: 'auditLogRotation',
    key: 'auditLogRotation',
    action: 'noop',
    after: wanted,
    fields,
    reason: 'in sync',
  };
  if (fields.length === 0) return change;
  // The fields this version models, as answered (what the write carries over: rotationBody). A member a newer Ops
  // Manager adds is named by path only, never by value: it may hold a secret, and plans and reports are shown and kept.
  const before: AuditLogRotateConfig = {};
  for (const field of ROTATION_FIELDS) if (live[field] !== undefined) before[field] = live[field];
  change.before = before;
  if (desired.enforce) {
    change.action = 'update';
    change.reason = `${fields.length} rotation field(s) differ; enforce is on`;
    // The write carries the live fields this version models (apply-singletons.ts rotationBody), never the others.
    // `links` is the API's hypermedia, server-generated on every object: nothing a write could set or reset.
    const unsent = unknownMembers(live, (m) => m === 'links' || (ROTATION_FIELDS as readonly string[]).includes(m), '');
    if (unsent.length > 0) {
      fields.push(...unsent);
      change.reason += unmodelledReason(unsent);
    }
  } else {
    change.action = 'drift';
    change.reason = `${fields.length} rotation field(s) differ; not written because enforce is off (set auditLogRotation.enforce: true)`;
  }
  if (lastApplied !== undefined && rotationMoved(live, lastApplied)) change.drift = { detected: true };
  return change;
}

/**
 * Whether the live rotation moved since it was last applied or verified. The state keeps the digest of the fields the
 * desired state set then (`recordSingleton`), not which fields those were; but the digest covers the field names, so
 * the live config projected onto some set of fields matches it exactly when that set is the recorded one and none of
 * its fields moved. Trying every set (31 of the 5 fields) finds it: comparing over the fields set now instead would
 * call a field added to (or dropped from) git a change someone made on live, and count it as an update fight.
 */
export function rotationMoved(live: AuditLogRotateConfig, lastApplied: string): boolean {
  for (let mask = 1; mask < 1 << ROTATION_FIELDS.length; mask++) {
    const over: AuditLogRotateConfig = {};
    ROTATION_FIELDS.forEach((field, i) => {
      if ((mask & (1 << i)) !== 0) over[field] = 0;
    });
    if (singletonDigest(rotationProjection(live, over)) === lastApplied) return false;
  }
  return true;
}

/** The live rotation seen through the fields the desired state sets (server defaults filled): what is compared. */
export function rotationProjection(live: AuditLogRotateConfig, wanted: AuditLogRotateConfig): AuditLogRotateConfig {
  const out: AuditLogRotateConfig = {};
  for (const field of ROTATION_FIELDS) {
    if (wanted[field] === undefined) continue;
    const have = live[field] ?? AUDIT_LOG_DEFAULTS[field];
    if (have !== undefined) out[field] = Number(have);
  }
  return out;
}

/** Plans the pinned version manifest: an update when Ops Manager's differs (as JSON values) from the pin. */
export function planVersionManifest(
  target: TargetRef,
  pin: { path: string; text: string; sha256: string },
  live: { text: string; value: unknown; sha256: string },
): Change {
  let pinned: unknown;
  try {
    pinned = JSON.parse(pin.text);
  } catch {
    return {
      target,
      kind: 'versionManifest',
      key: 'versionManifest',
      action: 'blocked',
      fields: [],
      reason: `pinned manifest ${pin.path} is not valid JSON`,
    };
  }
  const same = canonicalJson(pinned) === canonicalJson(live.value);
  const change: Change = {
    target,
    kind: 'versionManifest',
    key: 'versionManifest',
    action: same ? 'noop' : 'update',
    fields: same ? [] : [{ path: 'versionManifest', before: live.sha256, after: pin.sha256 }],
    reason: same ? 'Ops Manager serves the pinned manifest' : `Ops Manager's manifest differs from the pin ${pin.path}`,
  };
  if (!same) {
    change.before = { sha256: live.sha256 };
    change.after = { path: pin.path, sha256: pin.sha256 };
  }
  return change;
}
