/**
 * Reads the live state of each target. A failed read throws (the caller records a target failure): a failed or
 * partial read never counts as "absent".
 */
import type { AlertConfig, AuditLogRotateConfig, ServerType } from '../opsman/types.ts';
import { canonicalJson, digestOf, sha256Hex } from './canonical.ts';
import { type LiveView, liveView } from './normalise.ts';
import type { OpsManagerApi } from './ports.ts';

/** Components a project read may cover. */
export type ProjectComponent = 'alertConfigs' | 'defaultServerType' | 'auditLogRotation';

/** What was read of a project. */
export interface LiveProject {
  alertConfigs: AlertConfig[];
  defaultServerType?: ServerType | null;
  auditLogRotation?: AuditLogRotateConfig;
}

/** What was read of the installation (version manifest). */
export interface LiveGlobal {
  manifest: { text: string; value: unknown; sha256: string };
}

/** Reads the listed components of a project, in parallel (the client limits concurrency). */
export async function readProjectLive(
  api: OpsManagerApi,
  projectId: string,
  components: readonly ProjectComponent[],
): Promise<LiveProject> {
  const [alertConfigs, serverType, rotation] = await Promise.all([
    api.listAlertConfigs(projectId),
    components.includes('defaultServerType') ? api.getProjectDefaultServerType(projectId) : Promise.resolve(undefined),
    components.includes('auditLogRotation') ? api.getAuditLogRotateConfig(projectId) : Promise.resolve(undefined),
  ]);
  const live: LiveProject = { alertConfigs };
  if (serverType !== undefined) live.defaultServerType = serverType;
  if (rotation !== undefined) live.auditLogRotation = rotation;
  return live;
}

/** Reads the version manifest. */
export async function readGlobalLive(api: OpsManagerApi): Promise<LiveGlobal> {
  const doc = await api.getVersionManifest();
  return { manifest: { text: doc.text, value: doc.value, sha256: sha256Hex(doc.text) } };
}

/**
 * Digest of a project's live state: what a saved plan is checked against. `views` are the configs' live views in
 * `live.alertConfigs` order, when the caller has them already.
 */
export function projectLiveDigest(
  live: LiveProject,
  views: readonly LiveView[] = live.alertConfigs.map(liveView),
): string {
  const alerts = live.alertConfigs.map((c, i) => `${c.id}:${(views[i] as LiveView).digest}`).sort();
  // canonicalJson({ alerts, auditLogRotation, defaultServerType }) written out: members in sorted key order.
  // JSON.stringify of an array of strings is its canonical JSON, made in one native call as one flat string.
  let text = `{"alerts":${JSON.stringify(alerts)}`;
  if (live.auditLogRotation !== undefined) text += `,"auditLogRotation":${canonicalJson(live.auditLogRotation)}`;
  if (live.defaultServerType !== undefined)
    text += `,"defaultServerType":${canonicalJson(live.defaultServerType?.name ?? null)}`;
  return sha256Hex(`${text}}`);
}

/** Digest of an organization's live state. */
export function orgLiveDigest(serverType: ServerType | null): string {
  return digestOf({ defaultServerType: serverType?.name ?? null });
}

/** Digest of the installation's live state. */
export function globalLiveDigest(live: LiveGlobal): string {
  return digestOf({ manifest: live.manifest.sha256 });
}
