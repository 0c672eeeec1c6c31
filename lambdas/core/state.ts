/**
 * Helpers over ReconcileState: the ownership records and fingerprints the reconciler keeps between runs. The state
 * never holds a secret in clear: only ids, HMAC fingerprints and digests of non-secret bodies.
 */

import type { OrganizationState, OwnedAlertConfig, ProjectState, ReconcileState } from './ports.ts';

/** A fresh, empty state. */
export function emptyState(now: string): ReconcileState {
  return { formatVersion: 1, updatedAt: now, projects: {} };
}

/** A deep copy (states are plain JSON). */
export function cloneState(state: ReconcileState): ReconcileState {
  return JSON.parse(JSON.stringify(state)) as ReconcileState;
}

/**
 * Projects the state records owned alert configs for (an id recorded) that are not among `desired`: a project file
 * removed from git. Their configs are left alone; the plan says so (plan.ts).
 */
export function projectsLeftOut(
  state: ReconcileState | null,
  desired: ReadonlySet<string>,
): { projectId: string; keys: string[] }[] {
  const out: { projectId: string; keys: string[] }[] = [];
  for (const [projectId, project] of Object.entries(state?.projects ?? {})) {
    if (desired.has(projectId)) continue;
    const keys = Object.keys(project.alertConfigs ?? {}).filter((k) => project.alertConfigs[k]?.id !== undefined);
    if (keys.length > 0) out.push({ projectId, keys: keys.sort() });
  }
  return out.sort((a, b) => (a.projectId < b.projectId ? -1 : a.projectId > b.projectId ? 1 : 0));
}

/** The project's state, created when missing. */
export function projectState(state: ReconcileState, projectId: string): ProjectState {
  let p = state.projects[projectId];
  if (p === undefined) {
    p = { alertConfigs: {} };
    state.projects[projectId] = p;
  }
  return p;
}

/** The organization's state, created when missing. */
export function organizationState(state: ReconcileState, orgId: string): OrganizationState {
  state.organizations ??= {};
  let o = state.organizations[orgId];
  if (o === undefined) {
    o = {};
    state.organizations[orgId] = o;
  }
  return o;
}

/** Replaces (or with `undefined` removes) the record of one alert key. */
export function setAlertRecord(
  state: ReconcileState,
  projectId: string,
  key: string,
  record: OwnedAlertConfig | undefined,
): void {
  const p = projectState(state, projectId);
  if (record === undefined) delete p.alertConfigs[key];
  else p.alertConfigs[key] = record;
}

/** Ids owned by any key of a project. */
export function ownedIds(state: ReconcileState, projectId: string): Set<string> {
  const records = Object.values(state.projects[projectId]?.alertConfigs ?? {});
  return new Set(records.flatMap((r) => (r.id === undefined ? [] : [r.id])));
}
