/**
 * Planning: reads live state per target (bounded concurrency, targets fail independently), resolves secrets, checks
 * team references, plans every kind, applies modes and safety gates, attributes drift, and returns the Plan value.
 * Writes nothing.
 */
import { windowHolds } from './change-windows.ts';
import { mapLimit } from './concurrency.ts';
import { STATE_WAS_CORRUPT } from './errors.ts';
import { markFights } from './fight-notice.ts';
import type { FingerprintCache } from './fingerprint.ts';
import { RunInterruptedError } from './interrupt.ts';
import { type Change, type DesiredState, type Mode, PLAN_FORMAT_VERSION, type Plan } from './model.ts';
import { runMode } from './modes.ts';
import { partialScopeNotices } from './partial-scope.ts';
import { sortChanges } from './plan-order.ts';
import { planGlobal, planOrganization, planProject, type TargetPlan } from './plan-targets.ts';
import type { OpsManagerApi, ReconcileState, Reporter, SecretResolver } from './ports.ts';
import type { RunCommand } from './run-types.ts';
import { applySafetyGates } from './safety.ts';
import { projectsLeftOut } from './state.ts';
import { otherFingerprintKeyWarning, otherOpsManagerWarning } from './state-origin.ts';
import type { TeamCache } from './team-check.ts';
import { endedWindowNotices } from './window-notices.ts';

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
  /** What the caller calls that selection (`--project`), in the plan's notice that it is partial. */
  projectsField?: string;
  state: ReconcileState | null;
  stateCorrupt: boolean;
  /** Why the stored state could not be used (which file, what is wrong), said in the plan's warning. */
  stateCorruptMessage?: string;
  /** The store's version of `state` (null: none was stored), recorded in the plan: a saved plan checks it at apply. */
  stateVersion?: string | null;
  overrides?: { maxDeletes?: number; allowEmpty?: boolean };
  /** The Public API base URL planned against: a state last applied against another one is warned about. */
  opsManagerUrl?: string;
  /**
   * In-sync alert configs whose records fell behind carry their desired body (record-refresh.ts). Always on for an
   * apply; for a plan, when it is to be applied (RunRequest.planForApply).
   */
  refreshRecords?: boolean;
}

/** What planning talks to. */
export interface PlanDependencies {
  api: OpsManagerApi;
  secrets: SecretResolver;
  fingerprintKey: Uint8Array;
  /** Events made by this public key (our own writes) are left out of drift attribution. */
  actorPublicKey?: string;
  reporter: Reporter;
  /** Called after each target is planned (apply renews its lease here); an error aborts the plan. */
  keepAlive?: () => Promise<void>;
  /** Once aborted, no further target is planned and makePlan throws RunInterruptedError. */
  signal?: AbortSignal;
}

/** The plan's note when no state was stored and it adopts: ownership starts from what equals git. */
export const NO_STATE_NOTE =
  'no state was stored before this run (a first run, or the state is kept elsewhere): each alert config git declares that equals one Ops Manager has is adopted (<=), not created; if earlier runs kept a state, point this run at it (--state-dir; on AWS the data bucket) before applying';

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
  const fingerprints: FingerprintCache = new Map();
  let done = 0;
  const total = projects.length + orgs.length;
  const { signal } = deps;
  const tick = async (name: string, target: TargetPlan) => {
    // After a stop the plan is dropped: a target that ended then (its reads abandoned) was not planned.
    if (signal?.aborted) return;
    done++;
    // A target that failed was not planned: its progress line must not say it was (its error is with the plan's).
    const what = target.failure === undefined ? `planned ${name}` : `could not plan ${name}`;
    deps.reporter.progress(`${what} (${done}/${total})`, { done, total });
    await deps.keepAlive?.();
  };
  // A stopped run plans no further target; the targets in flight end as soon as their reads are stopped (runReconcile
  // plans through an API view the same signal stops; without one they finish) and the plan is dropped.
  const planned = [
    ...(await mapLimit(projects, options.targetConcurrency, async (p) => {
      if (signal?.aborted) return undefined;
      const r = await planProject(p, request, deps, teams, fingerprints);
      await tick(p.name, r);
      return r;
    })),
    ...(await mapLimit(orgs, options.targetConcurrency, async (o) => {
      if (signal?.aborted) return undefined;
      const r = await planOrganization(o, request, deps);
      await tick(o.name, r);
      return r;
    })),
  ];
  if (signal?.aborted) throw new RunInterruptedError(signal);
  const targets = planned as TargetPlan[];
  const global = await planGlobal(request, deps);
  if (signal?.aborted) throw new RunInterruptedError(signal);
  if (global !== undefined) targets.push(global);

  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: request.runId,
    createdAt: request.createdAt,
    mode: runMode(request.command, request.modeCap),
    desired: { digest: request.desired.digest, files: request.desired.files },
    liveDigests: {},
    ...(request.stateVersion === undefined ? {} : { stateVersion: request.stateVersion }),
    ...(only === undefined ? {} : { projects: [...only].sort() }),
    changes: [],
    failures: [],
    targetModes: {},
    liveReads: {},
    unmanaged: [],
    warnings: [],
  };
  const changeWindows = request.desired.settings.changeWindows;
  if (changeWindows !== undefined && changeWindows.length > 0 && request.command !== 'observe') {
    plan.changeWindows = changeWindows;
    const holds = windowHolds(
      changeWindows,
      targets.map((t) => t.key),
      request.createdAt,
    );
    if (Object.keys(holds).length > 0) plan.windowHolds = holds;
    const ended = endedWindowNotices(
      changeWindows,
      targets.map((t) => t.key),
      request.createdAt,
    );
    plan.warnings?.push(...ended.warnings);
    if (ended.notes.length > 0) plan.notes = [...ended.notes];
  }
  const changes: Change[] = [];
  for (const t of targets) {
    (plan.targetModes as Record<string, Mode>)[t.key] = t.mode;
    (plan.liveReads as Record<string, string[]>)[t.key] = t.reads;
    if (t.digest !== undefined) plan.liveDigests[t.key] = t.digest;
    if (t.failure !== undefined) plan.failures.push(t.failure);
    if (t.warning !== undefined) plan.warnings?.push(t.warning);
    if (t.warnings !== undefined) plan.warnings?.push(...t.warnings);
    if (t.notes !== undefined) plan.notes = [...(plan.notes ?? []), ...t.notes];
    changes.push(...t.changes);
    plan.unmanaged?.push(...t.unmanaged);
  }
  // A project file removed from git prunes nothing (a lost file must not delete a project's alerts): say so each run.
  if (request.projects === undefined) {
    const known = new Set(request.desired.projects.map((p) => p.projectId));
    for (const { projectId, keys } of projectsLeftOut(request.state, known)) {
      const shown = keys.length > 5 ? `${keys.slice(0, 5).join(', ')}, ...` : keys.join(', ');
      plan.warnings?.push(
        `project ${projectId} is no longer in the desired state; the ${keys.length} alert config(s) it owns (${shown}) are left alone in Ops Manager. To delete them, restore its file with prune: true and no alertConfigs, alertTemplates or protect, apply with --allow-empty (and --max-deletes when they are more than Settings.prune.maxDeletes), then remove the file; to keep them but stop managing them (and this warning), restore its file with no alertConfigs or alertTemplates and their keys in spec.release, apply, then remove the file`,
      );
    }
  }
  const resent = changes.filter((c) => c.fields?.some((f) => f.secret === true && f.note === 'changed')).length;
  const otherKey = otherFingerprintKeyWarning(request.state, deps.fingerprintKey, resent);
  if (otherKey !== undefined) plan.warnings?.unshift(otherKey);
  const otherOpsManager = otherOpsManagerWarning(request.state, request.opsManagerUrl);
  if (otherOpsManager !== undefined) plan.warnings?.unshift(otherOpsManager);
  if (request.stateCorrupt) {
    plan.warnings?.unshift(
      `${STATE_WAS_CORRUPT}${request.stateCorruptMessage === undefined ? '' : ` (${request.stateCorruptMessage})`}: ownership is unknown this run; owned alert configs are recovered by adoption and nothing is pruned`,
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
  // No stored state (a corrupt one has a version, and its own warning): a first run, or a --state-dir that points at
  // the wrong place. Adoptions are then how ownership starts; said once, so a state kept elsewhere is noticed.
  if (request.stateVersion === null && plan.changes.some((c) => c.action === 'adopt')) {
    plan.notes = [...(plan.notes ?? []), NO_STATE_NOTE];
  }
  // A partial plan says so, and names the moves between projects whose other half it leaves undone.
  if (only !== undefined) {
    const scope = partialScopeNotices(
      request.desired,
      only,
      request.projectsField ?? 'a project selection',
      request.state,
      plan.changes,
    );
    plan.notes = [...scope.notes, ...(plan.notes ?? [])];
    plan.warnings?.push(...scope.warnings);
  }
  // After the gates: a drift they block is not put back this run, so it is no fight this run. Nor is one of a target
  // that apply will skip for its mode (the `plan` command's targets keep theirs: its plan previews the apply).
  const writes = (key: string) => plan.targetModes?.[key] === 'apply' && plan.windowHolds?.[key] === undefined;
  plan.warnings?.push(...markFights(plan.changes, request.state, request.createdAt, writes));
  return plan;
}
