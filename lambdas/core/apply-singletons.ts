/** Executes singleton changes (default server type, audit-log rotation, version manifest) and verifies them. */
import { isRecord } from '../../shared/is-record.ts';
import type { AuditLogRotateConfig, ServerTypeName } from '../opsman/types.ts';
import { canonicalJson } from './canonical.ts';
import { ReconcileError } from './errors.ts';
import type { Change } from './model.ts';
import { ROTATION_FIELDS, rotationProjection, SERVER_TYPE_LABELS, singletonDigest } from './plan-singletons.ts';
import type { OpsManagerApi, ReconcileState } from './ports.ts';
import { getAuditLogRotationChecked } from './read-live.ts';
import { settleWrite } from './settle-write.ts';
import { organizationState, projectState } from './state.ts';

/** Reads a pinned manifest's text (checked against the plan's sha256 by the caller's implementation). */
export type PinReader = (path: string, sha256: string) => Promise<string>;

function singletons(state: ReconcileState, change: Change): Record<string, string> {
  const owner =
    change.target.type === 'organization'
      ? organizationState(state, change.target.id)
      : projectState(state, change.target.id);
  owner.singletons ??= {};
  return owner.singletons;
}

/** Records a singleton's value as applied or verified (its digest), to tell later drift from a pending change. */
export function recordSingleton(state: ReconcileState, change: Change): void {
  if (change.kind === 'defaultServerType')
    singletons(state, change).defaultServerType = singletonDigest(change.after ?? null);
  if (change.kind === 'auditLogRotation') {
    const wanted = change.after as AuditLogRotateConfig;
    singletons(state, change).auditLogRotation = singletonDigest(rotationProjection(wanted, wanted));
  }
}

/**
 * The audit-log rotation to write: the desired fields over the live ones this version models (`change.before`, the
 * config the plan was made from). Ops Manager resets a rotation field a PUT does not send to its default, so a field the
 * desired state leaves out (numTotal 15 set by hand) would be lost by a write of the desired fields alone, though the
 * desired state says nothing of it. Members this version does not model are not sent (the plan lists them).
 */
export function rotationBody(change: Change): AuditLogRotateConfig {
  const out: AuditLogRotateConfig = {};
  const live = change.before;
  if (isRecord(live)) {
    for (const field of ROTATION_FIELDS) {
      const value = live[field];
      // Numeric texts are read as numbers (live-shape.ts lets them through); anything else is not carried.
      const number = typeof value === 'number' || typeof value === 'string' ? Number(value) : Number.NaN;
      if (Number.isFinite(number) && !(typeof value === 'string' && value.trim() === '')) out[field] = number;
    }
  }
  return { ...out, ...(change.after as AuditLogRotateConfig) };
}

/**
 * Writes one singleton change. Resolves a warning when the write was applied but its answer was too large to read
 * (settle-write.ts): verification re-reads every written singleton anyway.
 */
export async function applySingletonChange(
  change: Change,
  api: OpsManagerApi,
  readPin: PinReader,
): Promise<string | undefined> {
  if (change.kind === 'defaultServerType') {
    const name = change.after as ServerTypeName;
    const serverType = { name, label: SERVER_TYPE_LABELS[name] };
    const { id, type } = change.target;
    const settled = await settleWrite(() =>
      type === 'organization'
        ? api.setOrgDefaultServerType(id, serverType)
        : api.setProjectDefaultServerType(id, serverType),
    );
    return settled.warning;
  }
  if (change.kind === 'auditLogRotation') {
    const rotation = rotationBody(change);
    return (await settleWrite(() => api.setAuditLogRotateConfig(change.target.id, rotation))).warning;
  }
  if (change.kind === 'versionManifest') {
    const pin = change.after as { path: string; sha256: string };
    const text = await readPin(pin.path, pin.sha256);
    return (await settleWrite(() => api.putVersionManifest(text))).warning;
  }
  throw new ReconcileError('NOT_A_SINGLETON', `${change.kind} is not a singleton`);
}

/** Re-reads a singleton after a write: the list of fields that still differ (empty: converged). */
export async function verifySingleton(change: Change, api: OpsManagerApi, readPin: PinReader): Promise<string[]> {
  if (change.kind === 'defaultServerType') {
    const live =
      change.target.type === 'organization'
        ? await api.getOrgDefaultServerType(change.target.id)
        : await api.getProjectDefaultServerType(change.target.id);
    return live?.name === change.after ? [] : ['defaultServerType'];
  }
  if (change.kind === 'auditLogRotation') {
    const wanted = change.after as AuditLogRotateConfig;
    const seen = rotationProjection(await getAuditLogRotationChecked(api, change.target.id), wanted);
    return Object.keys(wanted).filter(
      (f) => Number(seen[f as keyof AuditLogRotateConfig]) !== Number(wanted[f as keyof AuditLogRotateConfig]),
    );
  }
  if (change.kind === 'versionManifest') {
    const pin = change.after as { path: string; sha256: string };
    const [live, text] = await Promise.all([api.getVersionManifest(), readPin(pin.path, pin.sha256)]);
    return canonicalJson(live.value) === canonicalJson(JSON.parse(text)) ? [] : ['versionManifest'];
  }
  return [];
}
