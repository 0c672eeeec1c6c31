/**
 * Checks team references during planning: a TEAM notification whose team does not exist in the project's organization
 * blocks that alert config with a clear reason, instead of failing at apply.
 */
import { OpsManagerApiError } from '../opsman/errors.ts';
import { errorMessage } from './concurrency.ts';
import type { DesiredProject } from './model.ts';
import type { OpsManagerApi } from './ports.ts';

/** Per-run cache of team lookups: `orgId/teamId` -> problem (null when the team exists). */
export type TeamCache = Map<string, Promise<string | null>>;

async function lookUp(api: OpsManagerApi, orgId: string, teamId: string): Promise<string | null> {
  try {
    await api.getTeam(orgId, teamId);
    return null;
  } catch (error) {
    // Only Ops Manager's own 404 says the team is missing; a proxy's 404 says nothing about it.
    if (error instanceof OpsManagerApiError && error.status === 404 && error.fromOpsManager) {
      // The organization itself is missing: the id to fix is the project's orgId, not the team's.
      if (error.errorCode === 'ORG_NOT_FOUND') {
        return `organization ${orgId} does not exist in this Ops Manager (ORG_NOT_FOUND), so team ${teamId} cannot be checked: fix the organization id (metadata.orgId; export's --org)`;
      }
      // Most often the team is another organization's: the project's orgId (or export's one --org for projects of
      // several organizations) is not the project's organization. Say what to check, not only what failed.
      return `team ${teamId} does not exist in organization ${orgId} (${error.errorCode}): fix the teamId, or the organization id if the project belongs to another organization (metadata.orgId; export's --org, one organization per export)`;
    }
    return `team ${teamId} could not be checked: ${errorMessage(error)}`;
  }
}

/** Per alert key: why its team references block it. Keys without a problem are absent. */
export async function checkTeams(
  project: DesiredProject,
  api: OpsManagerApi,
  cache: TeamCache,
): Promise<Map<string, string>> {
  const problems = new Map<string, string>();
  for (const config of project.alertConfigs) {
    const teamIds = config.notifications.flatMap((n) => (typeof n.teamId === 'string' ? [n.teamId] : []));
    for (const teamId of teamIds) {
      if (project.orgId === undefined) {
        problems.set(
          config.key,
          `notification names team ${teamId} but project ${project.name} has no orgId to check it against (set metadata.orgId)`,
        );
        break;
      }
      const cacheKey = `${project.orgId}/${teamId}`;
      let pending = cache.get(cacheKey);
      if (pending === undefined) {
        pending = lookUp(api, project.orgId, teamId);
        cache.set(cacheKey, pending);
      }
      const problem = await pending;
      if (problem !== null) {
        problems.set(config.key, problem);
        break;
      }
    }
  }
  return problems;
}
