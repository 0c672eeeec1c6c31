/**
 * Reads the live state of each target. A failed read throws (the caller records a target failure): a failed or
 * partial read never counts as "absent".
 */
import type { AlertConfig, AuditLogRotateConfig, ServerType } from '../opsman/types.ts';
import { canonicalJson, digestOf, sha256Hex } from './canonical.ts';
import { ReconcileError } from './errors.ts';
import { alertConfigProblem, auditLogRotationProblem } from './live-shape.ts';
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

/** A project's audit-log rotation config, checked comparable (`auditLogRotationProblem`); throws LIVE_MALFORMED. */
export async function getAuditLogRotationChecked(api: OpsManagerApi, projectId: string): Promise<AuditLogRotateConfig> {
  const config: unknown = await api.getAuditLogRotateConfig(projectId);
  const problem = auditLogRotationProblem(config);
  if (problem !== undefined) {
    throw new ReconcileError(
      'LIVE_MALFORMED',
      `GET /groups/${projectId}/automationConfig/auditLogRotateConfig answered a malformed rotation config: it ${problem}`,
    );
  }
  return config as AuditLogRotateConfig;
}

/** Throws a ReconcileError naming the first alert config of a project's answer that cannot be planned from. */
function checkAlertConfigs(projectId: string, configs: readonly unknown[]): void {
  for (let i = 0; i < configs.length; i++) {
    const problem = alertConfigProblem(configs[i]);
    if (problem === undefined) continue;
    const id = (configs[i] as { id?: unknown } | null)?.id;
    const which = typeof id === 'string' && id !== '' ? `alert config ${id}` : `alert config #${i + 1}`;
    throw new ReconcileError(
      'LIVE_MALFORMED',
      `GET /groups/${projectId}/alertConfigs answered a malformed ${which}: it ${problem}; the project is not planned from a partial read`,
    );
  }
}

/**
 * A project's alert configs, every one checked usable (`alertConfigProblem`): every reader of the list goes through
 * here, so a malformed answer fails with the same precise message wherever it is met.
 */
export async function listAlertConfigsChecked(
  api: Pick<OpsManagerApi, 'listAlertConfigs'>,
  projectId: string,
): Promise<AlertConfig[]> {
  const configs = await api.listAlertConfigs(projectId);
  checkAlertConfigs(projectId, configs);
  return configs;
}

/** One alert config of a project, checked usable (`alertConfigProblem`); throws LIVE_MALFORMED. */
export async function getAlertConfigChecked(api: OpsManagerApi, projectId: string, id: string): Promise<AlertConfig> {
  const config: unknown = await api.getAlertConfig(projectId, id);
  const problem = alertConfigProblem(config);
  if (problem !== undefined) {
    throw new ReconcileError(
      'LIVE_MALFORMED',
      `GET /groups/${projectId}/alertConfigs/${id} answered a malformed alert config: it ${problem}`,
    );
  }
  return config as AlertConfig;
}

/** Reads the listed components of a project, in parallel (the client limits concurrency). */
export async function readProjectLive(
  api: OpsManagerApi,
  projectId: string,
  components: readonly ProjectComponent[],
): Promise<LiveProject> {
  const reads = [
    listAlertConfigsChecked(api, projectId),
    components.includes('defaultServerType') ? api.getProjectDefaultServerType(projectId) : Promise.resolve(undefined),
    components.includes('auditLogRotation') ? getAuditLogRotationChecked(api, projectId) : Promise.resolve(undefined),
  ] as const;
  // Every read settles before a failure is passed on: one left in flight would still reach Ops Manager after the run
  // had reported its API calls (and ended). The failure then thrown is the first in this order.
  await Promise.allSettled(reads);
  const [alertConfigs, serverType, rotation] = await Promise.all(reads);
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
 * Digest of a project's live state: what a saved plan is checked against. It covers each alert config's normal form
 * (canonical text) with its id, in id order, and the singletons read. `views` are the configs' live views in
 * `live.alertConfigs` order, when the caller has them already.
 */
export function projectLiveDigest(
  live: LiveProject,
  views: readonly LiveView[] = live.alertConfigs.map(liveView),
): string {
  const configs = live.alertConfigs;
  const order = configs.map((_, i) => i);
  order.sort((a, b) => {
    const x = (configs[a] as AlertConfig).id;
    const y = (configs[b] as AlertConfig).id;
    if (x !== y) return x < y ? -1 : 1;
    // Ids are unique in any real answer; one that repeats an id is still digested the same in any order.
    const p = (views[a] as LiveView).text;
    const q = (views[b] as LiveView).text;
    return p < q ? -1 : p > q ? 1 : 0;
  });
  // One flat text hashed once (not a digest per config): neither a JSON string (the id) nor a canonical text holds a
  // raw newline, so the lines cannot run into each other.
  let text = 'alerts';
  for (const i of order) text += `\n${JSON.stringify((configs[i] as AlertConfig).id)} ${(views[i] as LiveView).text}`;
  if (live.auditLogRotation !== undefined) text += `\nauditLogRotation ${canonicalJson(live.auditLogRotation)}`;
  if (live.defaultServerType !== undefined)
    text += `\ndefaultServerType ${canonicalJson(live.defaultServerType?.name ?? null)}`;
  return sha256Hex(text);
}

/** Digest of an organization's live state. */
export function orgLiveDigest(serverType: ServerType | null): string {
  return digestOf({ defaultServerType: serverType?.name ?? null });
}

/** Digest of the installation's live state. */
export function globalLiveDigest(live: LiveGlobal): string {
  return digestOf({ manifest: live.manifest.sha256 });
}
