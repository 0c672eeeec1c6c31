/**
 * What the state forgets of targets that left the desired state, so that years of projects and organizations added
 * to and removed from git do not pile up in a file every run reads and rewrites whole.
 */
import { OpsManagerApiError } from '../opsman/errors.ts';
import { mapLimit } from './concurrency.ts';
import type { OpsManagerApi, ReconcileState } from './ports.ts';
import { listAlertConfigsChecked } from './read-live.ts';

/** The fields of an entry this release writes; an entry holding any other (a later release's) is kept, see below. */
const PROJECT_FIELDS: ReadonlySet<string> = new Set(['lastReconciledAt', 'singletons', 'alertConfigs', 'driftStreaks']);
const ORGANIZATION_FIELDS: ReadonlySet<string> = new Set(['lastReconciledAt', 'singletons', 'driftStreaks']);

/** How many entries {@link forgetDeparted} dropped. */
export interface DepartedCount {
  projects: number;
  organizations: number;
}

/**
 * Drops the entries of targets a full run did not plan (`planned`: the plan's target keys, `project:<id>` and
 * `organization:<id>`): an organization's entry (its singleton digests and `lastReconciledAt` serve only a planned
 * organization), and a project's entry holding no alert config record. A project that left git while it still owns
 * configs keeps its entry: those records are what its "no longer in the desired state" warning names and what a
 * restored file prunes with (README "Adoption and unmanaged objects"). Only for a run that planned every desired target
 * (no `--project`, no saved plan): a narrower plan does not say which targets left git. An entry holding a field this
 * release does not know is kept: a later release may keep other things there (even for targets it does not plan), and
 * a rollback must not lose them (README "Upgrades and rollbacks").
 */
export function forgetDeparted(state: ReconcileState, planned: ReadonlySet<string>): DepartedCount {
  const count: DepartedCount = { projects: 0, organizations: 0 };
  for (const [projectId, project] of Object.entries(state.projects)) {
    if (planned.has(`project:${projectId}`)) continue;
    if (Object.keys(project.alertConfigs ?? {}).length > 0 || !onlyKnown(project, PROJECT_FIELDS)) continue;
    delete state.projects[projectId];
    count.projects++;
  }
  for (const [orgId, org] of Object.entries(state.organizations ?? {})) {
    if (planned.has(`organization:${orgId}`) || !onlyKnown(org, ORGANIZATION_FIELDS)) continue;
    delete state.organizations?.[orgId];
    count.organizations++;
  }
  return count;
}

function onlyKnown(entry: object, known: ReadonlySet<string>): boolean {
  return Object.keys(entry).every((field) => known.has(field));
}

/**
 * Forgets the records of departed projects (not in `planned`) whose configs are gone from Ops Manager: deleted by hand,
 * or with the whole project (Ops Manager's own 404 GROUP_NOT_FOUND). A departed project is never planned, so without this its
 * records, and the "no longer in the desired state" warning naming them, stayed for ever, and the way out the warning
 * gives (restoring the file) cannot work for a deleted project. One alert-config list read per departed project that
 * still holds records; a read that fails otherwise leaves them as they are. Records holding a pending-create marker
 * are left to the pending-create bookkeeping. Returns the number of records forgotten.
 */
export async function forgetGoneDeparted(
  state: ReconcileState,
  planned: ReadonlySet<string>,
  api: Pick<OpsManagerApi, 'listAlertConfigs'>,
  concurrency: number,
): Promise<number> {
  const departed = Object.keys(state.projects).filter(
    (id) => !planned.has(`project:${id}`) && Object.keys(state.projects[id]?.alertConfigs ?? {}).length > 0,
  );
  const counts = await mapLimit(departed, concurrency, async (projectId) => {
    let live: ReadonlySet<string>;
    try {
      // Checked like every live read (read-live.ts): a config answered without its id must not pass for a deleted one.
      live = new Set((await listAlertConfigsChecked(api, projectId)).map((config) => config.id));
    } catch (error) {
      // Only Ops Manager's own "no such project": a proxy's 404, or any other answer, proves nothing.
      if (!isProjectGone(error)) return 0;
      live = new Set();
    }
    const records = state.projects[projectId]?.alertConfigs ?? {};
    let forgotten = 0;
    for (const [key, record] of Object.entries(records)) {
      if (record.pendingCreate !== undefined || record.id === undefined || live.has(record.id)) continue;
      delete records[key];
      forgotten++;
    }
    return forgotten;
  });
  return counts.reduce((a, b) => a + b, 0);
}

/** Ops Manager's own answer that the project does not exist (404 GROUP_NOT_FOUND), not a proxy's page. */
export function isProjectGone(error: unknown): boolean {
  return (
    error instanceof OpsManagerApiError &&
    error.status === 404 &&
    error.fromOpsManager &&
    error.errorCode === 'GROUP_NOT_FOUND'
  );
}
