/**
 * Planning: reads live state per target (bounded concurrency, targets fail independently), resolves secrets, checks
 * team references, plans every kind, applies modes and safety gates, attributes drift, and returns the Plan value.
 * Writes nothing.
 */
import { toDesiredAlertBody } from './alert-body.ts';
import { attributeDrift } from './attribution.ts';
import { errorCode, errorMessage, mapLimit } from './concurrency.ts';
import {
  type Change,
  type DesiredOrganization,
  type DesiredProject,
  type DesiredState,
  type Mode,
  type Plan,
  type TargetFailure,
  type TargetRef,
  targetKey,
  type UnmanagedObject,
} from './model.ts';
import { observeOnly, runMode, targetMode } from './modes.ts';
import { planAlertConfigs, type ResolvedSecrets } from './plan-alerts.ts';
import { sortChanges } from './plan-order.ts';
import { planAuditLogRotation, planServerType, planVersionManifest } from './plan-singletons.ts';
import type { OpsManagerApi, ReconcileState, Reporter, SecretResolver } from './ports.ts';
import {
  globalLiveDigest,
  orgLiveDigest,
  type ProjectComponent,
  projectLiveDigest,
  readGlobalLive,
  readProjectLive,
} from './read-live.ts';
import { resolveBodySecrets } from './resolve-secrets.ts';
import type { RunCommand } from './run-types.ts';
import { applySafetyGates } from './safety.ts';
import { checkTeams, type TeamCache } from './team-check.ts';

/** Options of planning. */
export interface PlanOptions {
  /** Targets planned at once (each target's reads also go through the client's own limiter). Default 8. */
  targetConcurrency: number;
}

/** Defaults of PlanOptions. */
export const DEFAULT_PLAN_OPTIONS: PlanOptions = { targetConcurrency: 8 };

/** What a plan is made from. */
export interface PlanRequest {
  runId: string;
  createdAt: string;
  command: RunCommand;
  modeCap?: Mode;
  desired: DesiredState;
  /** Only these project ids (and no organizations) when set. */
  projects?: string[];
  state: ReconcileState | null;
  stateCorrupt: boolean;
  overrides?: { maxDeletes?: number; allowEmpty?: boolean };
}

/** What planning talks to. */
export interface PlanDependencies {
  api: OpsManagerApi;
  secrets: SecretResolver;
  fingerprintKey: Uint8Array;
  reporter: Reporter;
  /** Called after each target is planned (apply renews its lease here); an error aborts the plan. */
  keepAlive?: () => Promise<void>;
}

interface TargetPlan {
  key: string;
  mode: Mode;
  changes: Change[];
  unmanaged: UnmanagedObject[];
  digest?: string;
  reads: string[];
  failure?: TargetFailure;
  warning?: string;
}

function projectTarget(p: DesiredProject): TargetRef {
  return { type: 'project', id: p.projectId, name: p.name };
}

function failure(target: TargetRef, phase: TargetFailure['phase'], error: unknown): TargetFailure {
  const f: TargetFailure = { target, phase, message: errorMessage(error) };
  const code = errorCode(error);
  if (code !== undefined) f.code = code;
  return f;
}

async function planProject(
  project: DesiredProject,
  request: PlanRequest,
  deps: PlanDependencies,
  teams: TeamCache,
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
    return result;
  }
  result.digest = projectLiveDigest(live);
  const state = request.state?.projects[project.projectId];
  try {
    const secrets = new Map<string, ResolvedSecrets>();
    for (const config of project.alertConfigs) {
      secrets.set(config.key, await resolveBodySecrets(toDesiredAlertBody(config), deps.secrets));
    }
    const teamProblems = await checkTeams(project, deps.api, teams);
    const alerts = planAlertConfigs({
      target,
      project,
      live: live.alertConfigs,
      state,
      secrets,
      teamProblems,
      fingerprintKey: deps.fingerprintKey,
    });
    result.changes.push(...alerts.changes);
    result.unmanaged = alerts.unmanaged.map((u) => ({
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
    result.warning = await attributeDrift(deps.api, result.changes, state?.lastReconciledAt, alerts.formerIds);
  } catch (error) {
    result.failure = failure(target, 'plan', error);
    result.changes = [];
  }
  return result;
}

async function planOrganization(
  org: DesiredOrganization,
  request: PlanRequest,
  deps: PlanDependencies,
): Promise<TargetPlan> {
  const target: TargetRef = { type: 'organization', id: org.orgId, name: org.name };
  const mode = targetMode(request.command, request.modeCap, org.mode ?? request.desired.settings.mode);
  const result: TargetPlan = { key: targetKey(target), mode, changes: [], unmanaged: [], reads: ['defaultServerType'] };
  if (org.defaultServerType === undefined) return result;
  try {
    const live = await deps.api.getOrgDefaultServerType(org.orgId);
    result.digest = orgLiveDigest(live);
    const last = request.state?.organizations?.[org.orgId];
    const change = planServerType(target, org.defaultServerType, live, last?.singletons?.defaultServerType);
    result.changes = [mode === 'observe' ? observeOnly(change) : change];
    result.warning = await attributeDrift(deps.api, result.changes, last?.lastReconciledAt);
  } catch (error) {
    result.failure = failure(target, 'read', error);
  }
  return result;
}

async function planGlobal(request: PlanRequest, deps: PlanDependencies): Promise<TargetPlan | undefined> {
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

/** Makes the plan. Never throws for a target's problem: those become failures or blocked changes. */
export async function makePlan(
  request: PlanRequest,
  deps: PlanDependencies,
  options: PlanOptions = DEFAULT_PLAN_OPTIONS,
): Promise<Plan> {
  const only = request.projects === undefined ? undefined : new Set(request.projects);
  const projects = request.desired.projects.filter((p) => only === undefined || only.has(p.projectId));
  const orgs = only === undefined ? request.desired.organizations : [];
  const teams: TeamCache = new Map();
  let done = 0;
  const total = projects.length + orgs.length;
  const tick = async (name: string) => {
    done++;
    deps.reporter.progress(`planned ${name} (${done}/${total})`, { done, total });
    await deps.keepAlive?.();
  };
  const targets: TargetPlan[] = [
    ...(await mapLimit(projects, options.targetConcurrency, async (p) => {
      const r = await planProject(p, request, deps, teams);
      await tick(p.name);
      return r;
    })),
    ...(await mapLimit(orgs, options.targetConcurrency, async (o) => {
      const r = await planOrganization(o, request, deps);
      await tick(o.name);
      return r;
    })),
  ];
  const global = await planGlobal(request, deps);
  if (global !== undefined) targets.push(global);

  const plan: Plan = {
    formatVersion: 1,
    runId: request.runId,
    createdAt: request.createdAt,
    mode: runMode(request.command, request.modeCap),
    desired: { digest: request.desired.digest, files: request.desired.files },
    liveDigests: {},
    changes: [],
    failures: [],
    targetModes: {},
    liveReads: {},
    unmanaged: [],
    warnings: [],
  };
  const changes: Change[] = [];
  for (const t of targets) {
    (plan.targetModes as Record<string, Mode>)[t.key] = t.mode;
    (plan.liveReads as Record<string, string[]>)[t.key] = t.reads;
    if (t.digest !== undefined) plan.liveDigests[t.key] = t.digest;
    if (t.failure !== undefined) plan.failures.push(t.failure);
    if (t.warning !== undefined) plan.warnings?.push(t.warning);
    changes.push(...t.changes);
    plan.unmanaged?.push(...t.unmanaged);
  }
  if (request.stateCorrupt) {
    plan.warnings?.unshift(
      'STATE WAS CORRUPT: ownership is unknown this run; owned alert configs are recovered by adoption and nothing is pruned',
    );
  }
  plan.changes = sortChanges(
    applySafetyGates(changes, {
      projects,
      settings: request.desired.settings,
      overrides: request.overrides,
      stateCorrupt: request.stateCorrupt,
    }),
  );
  return plan;
}
