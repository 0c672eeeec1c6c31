/**
 * Planning of one target: a project (alert configs, default server type, audit-log rotation), an organization (default
 * server type) or the installation (pinned version manifest). A failed read is a target failure, never "absent".
 */
import { type DesiredAlertBody, hasSecretFields, toDesiredAlertBody } from './alert-body.ts';
import { attributeDrift } from './attribution.ts';
import { errorCode, errorHttpStatus, errorMessage } from './concurrency.ts';
import type { FingerprintCache } from './fingerprint.ts';
import { confirmLateCreatesByAudit } from './late-creates.ts';
import {
  type Change,
  type DesiredOrganization,
  type DesiredProject,
  type Mode,
  type TargetFailure,
  type TargetRef,
  targetKey,
  type UnmanagedObject,
} from './model.ts';
import { observeOnly, targetMode } from './modes.ts';
import { liveView } from './normalise.ts';
import type { PlanDependencies, PlanRequest } from './plan.ts';
import { planAlertConfigs, type ResolvedSecrets } from './plan-alerts.ts';
import { planAuditLogRotation, planServerType, planVersionManifest } from './plan-singletons.ts';
import {
  globalLiveDigest,
  orgLiveDigest,
  type ProjectComponent,
  projectLiveDigest,
  readGlobalLive,
  readProjectLive,
} from './read-live.ts';
import { resolveSecretsOf, type SecretSources } from './resolve-secrets.ts';
import { isProjectGone } from './state-retention.ts';
import { checkTeams, type TeamCache } from './team-check.ts';

/** The plan of one target, before modes are merged and gates applied across targets. */
export interface TargetPlan {
  key: string;
  mode: Mode;
  changes: Change[];
  unmanaged: UnmanagedObject[];
  digest?: string;
  reads: string[];
  failure?: TargetFailure;
  warning?: string;
  /** More loud notices for the plan's `warnings` (the planning of its alert configs). */
  warnings?: string[];
  /** Quiet notices for the plan's `notes`. */
  notes?: string[];
}

function projectTarget(p: DesiredProject): TargetRef {
  return { type: 'project', id: p.projectId, name: p.name };
}

function failure(target: TargetRef, phase: TargetFailure['phase'], error: unknown): TargetFailure {
  const f: TargetFailure = { target, phase, message: errorMessage(error) };
  const code = errorCode(error);
  if (code !== undefined) f.code = code;
  const httpStatus = errorHttpStatus(error);
  if (httpStatus !== undefined) f.httpStatus = httpStatus;
  return f;
}

/**
 * Said of a project Ops Manager does not know (404 GROUP_NOT_FOUND): a mistyped or copied id, or a project deleted, is
 * fixed in the desired state, so the failure names where the Project document is and what to do.
 */
function noSuchProject(project: DesiredProject): string {
  const { file, line, column } = project.source;
  return `; no project has the id ${project.projectId}: check metadata.projectId of Project ${project.name} at ${file}:${line}:${column}, create the project in Ops Manager first if it is new (opsman-gitops does not create projects), or remove that document if the project was deleted`;
}

/**
 * Plans one project: reads its live state, resolves secrets, checks teams, plans alerts and singletons. `teams` and
 * `fingerprints` are the plan's caches, shared by its projects.
 */
export async function planProject(
  project: DesiredProject,
  request: PlanRequest,
  deps: PlanDependencies,
  teams: TeamCache,
  fingerprints?: FingerprintCache,
): Promise<TargetPlan> {
  const target = projectTarget(project);
  const mode = targetMode(request.command, request.modeCap, project.mode ?? request.desired.settings.mode);
  const reads: ProjectComponent[] = ['alertConfigs'];
  if (project.defaultServerType !== undefined) reads.push('defaultServerType');
  if (project.auditLogRotation !== undefined) reads.push('auditLogRotation');
  const result: TargetPlan = { key: targetKey(target), mode, changes: [], unmanaged: [], reads };
  let live: Awaited<ReturnType<typeof readProjectLive>>;
  try {
    live = await readProjectLive(deps.api, project.projectId, reads);
  } catch (error) {
    result.failure = failure(target, 'read', error);
    if (isProjectGone(error))
      result.failure.message = `${result.failure.message.replace(/\.$/, '')}${noSuchProject(project)}`;
    return result;
  }
  const views = live.alertConfigs.map(liveView);
  result.digest = projectLiveDigest(live, views);
  const state = request.state?.projects[project.projectId];
  try {
    // A key missing from `secrets` has none: no body is built for the many configs without a secret, and the
    // project's references are resolved together (one await per project, not one per reference).
    const withSecrets = new Map<string, DesiredAlertBody>();
    const secretSources = new Map<string, SecretSources>();
    for (const config of project.alertConfigs) {
      if (!hasSecretFields(config.notifications)) continue;
      withSecrets.set(config.key, toDesiredAlertBody(config));
      if (config.secretSources !== undefined) secretSources.set(config.key, config.secretSources);
    }
    const secrets: ReadonlyMap<string, ResolvedSecrets> =
      withSecrets.size === 0 ? new Map() : await resolveSecretsOf(withSecrets, deps.secrets, secretSources);
    const teamProblems = await checkTeams(project, deps.api, teams);
    const alerts = planAlertConfigs({
      target,
      project,
      live: live.alertConfigs,
      views,
      state,
      secrets,
      teamProblems,
      fingerprintKey: deps.fingerprintKey,
      fingerprintCache: fingerprints,
      stateCorrupt: request.stateCorrupt,
      refreshRecords: request.command === 'apply' || request.refreshRecords === true,
    });
    // A late create's delete stands only when Ops Manager's audit shows this tool's key made the config.
    const audited = await confirmLateCreatesByAudit(
      deps.api,
      target,
      alerts.changes,
      state?.alertConfigs ?? {},
      deps.actorPublicKey,
    );
    result.changes.push(...audited.changes);
    if (alerts.notes.length > 0) result.notes = alerts.notes;
    if (alerts.warnings.length > 0) result.warnings = alerts.warnings;
    // Late-create candidates the audit did not show as ours join the unmanaged list (kept in id order); the usual
    // case has none, and the list planAlertConfigs sorted is taken as it is.
    const notOurs = new Set(audited.notOurs);
    const unmanaged =
      notOurs.size === 0
        ? alerts.unmanaged
        : [...alerts.unmanaged, ...live.alertConfigs.filter((c) => notOurs.has(c.id))].sort((a, b) =>
            a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
          );
    result.unmanaged = unmanaged.map((u) => ({
      target,
      kind: 'alertConfig',
      id: u.id,
      summary: `${u.eventTypeName} (${u.enabled ? 'enabled' : 'disabled'})`,
    }));
    if (project.defaultServerType !== undefined && live.defaultServerType !== undefined) {
      result.changes.push(
        planServerType(target, project.defaultServerType, live.defaultServerType, state?.singletons?.defaultServerType),
      );
    }
    if (project.auditLogRotation !== undefined && live.auditLogRotation !== undefined) {
      result.changes.push(
        planAuditLogRotation(
          target,
          project.auditLogRotation,
          live.auditLogRotation,
          state?.singletons?.auditLogRotation,
        ),
      );
    }
    if (mode === 'observe') result.changes = result.changes.map(observeOnly);
    result.warning = await attributeDrift(deps.api, result.changes, state?.lastReconciledAt, {
      formerIds: alerts.formerIds,
      ignoreActor: deps.actorPublicKey,
      stateSavedAt: request.state?.updatedAt,
      records: state?.alertConfigs,
    });
  } catch (error) {
    // A target that failed was not planned: nothing of its planning half-done reaches the plan, only its failure.
    result.failure = failure(target, 'plan', error);
    result.changes = [];
    result.unmanaged = [];
    delete result.notes;
    delete result.warnings;
  }
  return result;
}

/** Plans one organization's default server type. */
export async function planOrganization(
  org: DesiredOrganization,
  request: PlanRequest,
  deps: PlanDependencies,
): Promise<TargetPlan> {
  const target: TargetRef = { type: 'organization', id: org.orgId, name: org.name };
  const mode = targetMode(request.command, request.modeCap, org.mode ?? request.desired.settings.mode);
  const result: TargetPlan = { key: targetKey(target), mode, changes: [], unmanaged: [], reads: ['defaultServerType'] };
  if (org.defaultServerType === undefined) return result;
  // As for a project: a failure after the read is the plan's (its changes dropped), not the read's.
  let phase: 'read' | 'plan' = 'read';
  try {
    const live = await deps.api.getOrgDefaultServerType(org.orgId);
    phase = 'plan';
    result.digest = orgLiveDigest(live);
    const last = request.state?.organizations?.[org.orgId];
    const change = planServerType(target, org.defaultServerType, live, last?.singletons?.defaultServerType);
    result.changes = [mode === 'observe' ? observeOnly(change) : change];
    result.warning = await attributeDrift(deps.api, result.changes, last?.lastReconciledAt, {
      ignoreActor: deps.actorPublicKey,
      stateSavedAt: request.state?.updatedAt,
    });
  } catch (error) {
    result.failure = failure(target, phase, error);
    result.changes = [];
  }
  return result;
}

/** Plans the pinned version manifest (not when the run is limited to some projects). */
export async function planGlobal(request: PlanRequest, deps: PlanDependencies): Promise<TargetPlan | undefined> {
  const pin = request.desired.settings.versionManifest?.pin;
  if (pin === undefined || request.projects !== undefined) return undefined;
  const target: TargetRef = { type: 'global', id: 'global', name: 'Ops Manager' };
  const mode = targetMode(request.command, request.modeCap, request.desired.settings.mode);
  const result: TargetPlan = { key: targetKey(target), mode, changes: [], unmanaged: [], reads: ['versionManifest'] };
  try {
    const live = await readGlobalLive(deps.api);
    result.digest = globalLiveDigest(live);
    const change = planVersionManifest(target, pin, live.manifest);
    result.changes = [mode === 'observe' ? observeOnly(change) : change];
  } catch (error) {
    result.failure = failure(target, 'read', error);
  }
  return result;
}
