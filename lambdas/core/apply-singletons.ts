/** Executes singleton changes (default server type, audit-log rotation, version manifest) and verifies them. */
import type { AuditLogRotateConfig, ServerTypeName } from '../opsman/types.ts';
import { canonicalJson } from './canonical.ts';
import { ReconcileError } from './errors.ts';
import type { Change } from './model.ts';
import { rotationProjection, SERVER_TYPE_LABELS, singletonDigest } from './plan-singletons.ts';
import type { OpsManagerApi, ReconcileState } from './ports.ts';
import { getAuditLogRotationChecked } from './read-live.ts';
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

/** Writes one singleton change. */
export async function applySingletonChange(change: Change, api: OpsManagerApi, readPin: PinReader): Promise<void> {
  if (change.kind === 'defaultServerType') {
    const name = change.after as ServerTypeName;
    const serverType = { name, label: SERVER_TYPE_LABELS[name] };
    if (change.target.type === 'organization') await api.setOrgDefaultServerType(change.target.id, serverType);
    else await api.setProjectDefaultServerType(change.target.id, serverType);
    return;
  }
  if (change.kind === 'auditLogRotation') {
    await api.setAuditLogRotateConfig(change.target.id, change.after as AuditLogRotateConfig);
    return;
  }
  if (change.kind === 'versionManifest') {
    const pin = change.after as { path: string; sha256: string };
    await api.putVersionManifest(await readPin(pin.path, pin.sha256));
    return;
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
