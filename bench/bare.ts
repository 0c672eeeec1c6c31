/**
 * The bare-client baseline of the overhead ratio: the same minimum set of requests a phase needs (list pages,
 * singleton reads, writes), issued with the real client at the same concurrency and doing nothing else. The
 * reconciler's wall time over this one is its overhead (target <= 1.5).
 */
import type { OpsManagerApi } from '../lambdas/core/ports.ts';
import { resolveSpecBody } from './alert-catalogue.ts';
import { type DriftSelection, type PhaseName, teamsReferenced } from './minimum.ts';
import { monthRange } from './seed.ts';
import type { World } from './world.ts';

/** One request of the baseline. */
export type BareOperation = () => Promise<unknown>;

/** Runs `operations` with at most `concurrency` in flight; resolves to the wall time in ms and the failures. */
export async function runPool(
  operations: readonly BareOperation[],
  concurrency: number,
): Promise<{ wallMs: number; failures: number; firstError?: string }> {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be >= 1');
  let next = 0;
  let failures = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const worker = async () => {
    while (next < operations.length) {
      const op = operations[next++] as BareOperation;
      try {
        await op();
      } catch (error) {
        failures++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, operations.length) }, worker));
  return { wallMs: performance.now() - started, failures, ...(firstError === undefined ? {} : { firstError }) };
}

/** What the baseline of phase 3 needs to know: which alert config ids were disabled behind the tool's back. */
export interface BareContext {
  drift: DriftSelection;
  /** Alert config ids of the drifted alerts, in the order of `drift.targets`. */
  driftIds?: string[];
  /** Lower bound of the attribution events read. */
  since?: string;
  now?: Date;
}

/** The reads of one plan: an alert list per project, their singletons and team checks, org server types. */
function planReads(world: World, api: OpsManagerApi): BareOperation[] {
  const ops: BareOperation[] = [];
  const teams = new Set<string>();
  for (const p of world.projects) {
    ops.push(() => api.listAlertConfigs(p.id));
    ops.push(() => api.getProjectDefaultServerType(p.id));
    ops.push(() => api.getAuditLogRotateConfig(p.id));
    for (const teamId of teamsReferenced(p)) {
      if (teams.has(`${p.orgId}/${teamId}`)) continue;
      teams.add(`${p.orgId}/${teamId}`);
      ops.push(() => api.getTeam(p.orgId, teamId));
    }
  }
  for (const o of world.orgs) ops.push(() => api.getOrgDefaultServerType(o.id));
  return ops;
}

/** The baseline operations of `phase` (the same counts and kinds as phaseMinimum). */
export function bareOperations(world: World, phase: PhaseName, api: OpsManagerApi, ctx: BareContext): BareOperation[] {
  switch (phase) {
    case 'apply-initial': {
      const ops = planReads(world, api);
      for (const p of world.projects) {
        for (const a of p.alerts) {
          const body = resolveSpecBody(a.body, world.secrets);
          ops.push(() => api.createAlertConfig(p.id, body));
        }
      }
      return ops;
    }
    case 'plan-noop':
      return planReads(world, api);
    case 'apply-drift': {
      const ops = planReads(world, api);
      const projects = [...new Set(ctx.drift.targets.map(([p]) => p))];
      for (const index of projects) {
        const p = world.projects[index];
        if (p) ops.push(() => api.listProjectEvents(p.id, { minDate: ctx.since ?? new Date(0).toISOString() }));
      }
      ctx.drift.targets.forEach(([index], k) => {
        const p = world.projects[index];
        const id = ctx.driftIds?.[k];
        if (p && id) ops.push(() => api.setAlertConfigEnabled(p.id, id, true));
      });
      return ops;
    }
    case 'archive': {
      const { startDate, endDate } = monthRange(ctx.now ?? new Date());
      const ops: BareOperation[] = [() => api.getVersionManifest(), () => api.listPhysicalHosts()];
      for (const p of world.projects) ops.push(() => api.listProjectHostAssignments(p.id, startDate, endDate));
      return ops;
    }
  }
}
