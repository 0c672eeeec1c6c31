/**
 * What `export` reads of a project: its alert configs (every one checked usable, as planning checks them) and the
 * singletons the desired state manages. A project that does not exist is an error naming it; a singleton the API key
 * may not read (usage endpoints need Global Owner, audit-log rotation Project Automation Admin) is left out with a
 * warning, since the alert configs are what an export is for.
 */
import { OpsManagerApiError, OpsManagerAuthError } from '../../opsman/errors.ts';
import { errorMessage } from '../concurrency.ts';
import { ReconcileError } from '../errors.ts';
import type { OpsManagerApi } from '../ports.ts';
import { getAuditLogRotationChecked, listAlertConfigsChecked } from '../read-live.ts';
import type { ProjectLiveRead } from './export-run.ts';

/** True for a refusal of the key's role (401/403), as opposed to a missing object or a failure. */
function refusedByRole(error: unknown): boolean {
  if (error instanceof OpsManagerAuthError) return true;
  return error instanceof OpsManagerApiError && (error.status === 401 || error.status === 403) && error.fromOpsManager;
}

/** A singleton's value, or undefined with a warning when the key's role may not read it. */
async function singleton<T>(read: () => Promise<T>, what: string, warn: (m: string) => void): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!refusedByRole(error)) throw error;
    warn(`${what} not exported: the API key may not read it (${errorMessage(error)})`);
    return undefined;
  }
}

/**
 * Reads one project for export; `warn` receives what was left out, as warnings of this project (`auditLogRotation not
 * exported: ...`: the caller names the project). Throws PROJECT_NOT_FOUND for an unknown id.
 */
export async function readProjectForExport(
  api: OpsManagerApi,
  projectId: string,
  warn: (message: string) => void,
): Promise<ProjectLiveRead> {
  let alertConfigs: ProjectLiveRead['alertConfigs'];
  try {
    alertConfigs = await listAlertConfigsChecked(api, projectId);
  } catch (error) {
    if (error instanceof OpsManagerApiError && error.status === 404 && error.fromOpsManager) {
      throw new ReconcileError(
        'PROJECT_NOT_FOUND',
        `project ${projectId} does not exist in this Ops Manager (${error.errorCode}): check the --project id`,
        { cause: error },
      );
    }
    throw error;
  }
  const reads = [
    singleton(() => api.getProjectDefaultServerType(projectId), 'defaultServerType', warn),
    singleton(() => getAuditLogRotationChecked(api, projectId), 'auditLogRotation', warn),
  ] as const;
  // Both settle before a failure is passed on: a read left in flight would reach Ops Manager after the command ended.
  await Promise.allSettled(reads);
  const [defaultServerType, auditLogRotation] = await Promise.all(reads);
  const singletons: ProjectLiveRead['singletons'] = {};
  if (defaultServerType !== undefined) singletons.defaultServerType = defaultServerType;
  if (auditLogRotation !== undefined) singletons.auditLogRotation = auditLogRotation;
  return { projectId, alertConfigs, singletons };
}
