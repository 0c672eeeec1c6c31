// applyPlan (lambdas/core/apply.ts) called directly on a plan made by a real run: what a stopped run, a failed write and
// the progress lines leave behind, change by change.
import { describe, expect, it } from 'vitest';
import { type ApplyContext, applyPlan } from '../../../lambdas/core/apply.ts';
import { INTERRUPTED_MESSAGE } from '../../../lambdas/core/interrupt.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import type { OpsManagerApi, ReconcileState } from '../../../lambdas/core/ports.ts';
import { emptyState } from '../../../lambdas/core/state.ts';
import { OpsManagerAbortedError } from '../../../lambdas/opsman/errors.ts';
import type { ReconcileHarness } from '../../helpers/reconcile-world.ts';
import { P1, P2, p1Alerts, scenario, setP1 } from './scenario-fixture.ts';

/** An apply context over the harness's world, with `state` as its working state; counts the saves. */
function context(h: ReconcileHarness, state: ReconcileState, extra: Partial<ApplyContext> = {}) {
  const saves = { count: 0 };
  const progress: string[] = [];
  const ctx: ApplyContext = {
    api: h.world.as('gitopsbt'),
    secrets: h.secrets,
    fingerprintKey: h.key,
    clock: h.clock,
    reporter: { progress: (m: string) => progress.push(m), metric() {} },
    runId: 'direct-1',
    state,
    skipReason: () => undefined,
    persist: async () => {
      saves.count++;
    },
    keepAlive: async () => {},
    readPin: async () => '',
    ...extra,
  };
  return { ctx, saves, progress };
}

/** The plan of a first apply of the scenario (every alert config to create). */
async function firstPlan(h: ReconcileHarness): Promise<Plan> {
  return (await h.run('plan')).plan;
}

describe('applyPlan on a run already stopped', () => {
  it('marks no create, saves nothing, writes nothing, and keeps the record a create would have replaced', async () => {
    const h = scenario();
    const plan = await firstPlan(h);
    const state = emptyState(h.clock.now().toISOString());
    // The record of a config that vanished (deleted by hand): its former id tells the next run who deleted it.
    state.projects[P1] = { alertConfigs: { disk: { id: '64b000000000000000000001', appliedDigest: 'd' } } };
    const before = structuredClone(state.projects[P1]);
    const stop = new AbortController();
    stop.abort('stopped by the test');
    const { ctx, saves } = context(h, state, { signal: stop.signal });
    const out = await applyPlan(plan, ctx);
    expect(saves.count).toBe(0);
    expect(h.world.writes()).toEqual([]);
    expect(state.projects[P1]).toEqual(before);
    expect(out.results.length).toBeGreaterThan(0);
    for (const r of out.results) expect(r).toMatchObject({ status: 'skipped', message: INTERRUPTED_MESSAGE });
  });
});

describe('a write the run stopped while it waited for the answer', () => {
  /** The first POST in P1 lands, then answers "stopped" as the client does when the run's signal fires mid-flight. */
  function stopDuringFirstPost(h: ReconcileHarness, stop: AbortController | undefined, sent: boolean): void {
    h.world.faults.push({
      method: 'createAlertConfig',
      groupId: P1,
      times: 1,
      phase: sent ? 'after' : 'before',
      error: () => {
        stop?.abort('stopped by the test');
        return new OpsManagerAbortedError('stopped by the test', sent, {
          method: 'POST',
          pathTemplate: '/groups/{groupId}/alertConfigs',
        });
      },
    });
  }

  it('is failed, not "not started", and keeps its pending marker: the POST may have created the config', async () => {
    const h = scenario();
    const plan = await firstPlan(h);
    const state = emptyState(h.clock.now().toISOString());
    const stop = new AbortController();
    stopDuringFirstPost(h, stop, true);
    const { ctx } = context(h, state, { signal: stop.signal, api: h.world.as('gitopsbt') });
    const out = await applyPlan(plan, ctx, { targetConcurrency: 1 });
    const p1 = out.results.filter((r) => r.change.target.id === P1);
    expect(p1.map((r) => r.status)).toEqual(['failed', 'skipped']);
    expect(p1[0]?.message).toContain('may or may not have been applied');
    expect(p1[1]?.message).toBe(INTERRUPTED_MESSAGE);
    const first = p1[0]?.change.key ?? '';
    const second = p1[1]?.change.key ?? '';
    expect(state.projects[P1]?.alertConfigs[first]?.pendingCreate?.runId).toBe('direct-1');
    // The one never sent leaves no marker.
    expect(state.projects[P1]?.alertConfigs[second]).toBeUndefined();
    expect(out.results.filter((r) => r.change.target.id === P2).map((r) => r.status)).toEqual(['skipped']);
    // A project left with writes not started is not reconciled: the next run's drift window starts where it did.
    expect(state.projects[P2]?.lastReconciledAt).toBeUndefined();
  });

  it('stopped unsent while the run goes on (not the run signal): a failure, never a write left for later', async () => {
    const h = scenario();
    const plan = await firstPlan(h);
    const state = emptyState(h.clock.now().toISOString());
    stopDuringFirstPost(h, undefined, false);
    const { ctx, progress } = context(h, state);
    const out = await applyPlan(plan, ctx, { targetConcurrency: 1 });
    const p1 = out.results.filter((r) => r.change.target.id === P1);
    expect(p1.map((r) => r.status)).toEqual(['failed', 'applied']);
    expect(progress[0]).toBe('finished payments-prod with 1 failed write (1/2)');
    // A failed write leaves its project unreconciled (the next run's drift window starts where it did).
    expect(state.projects[P1]?.lastReconciledAt).toBeUndefined();
    expect(state.projects[P2]?.lastReconciledAt).toBe(plan.createdAt);
  });
});

describe('the bookkeeping after an apply', () => {
  it('keeps every record and the reconciled time of a project whose planning failed after its reads', async () => {
    const h = scenario();
    await h.run('apply');
    h.clock.ms += 3_600_000;
    const planned = (await h.run('plan')).plan;
    // As makePlan leaves a project that fails late (its drift attribution threw): its live digest, no change of it,
    // and its failure.
    const target = planned.changes.find((c) => c.target.id === P1)?.target;
    if (target === undefined) throw new Error('no change of P1');
    const plan: Plan = {
      ...planned,
      changes: planned.changes.filter((c) => c.target.id !== P1),
      failures: [{ target, phase: 'plan', message: 'the events answer is not a list' }],
    };
    expect(plan.liveDigests[`project:${P1}`]).toBeDefined();
    const state = h.state.state as ReconcileState;
    const before = structuredClone(state.projects[P1]);
    expect(Object.keys(before?.alertConfigs ?? {}).sort()).toEqual(['disk', 'no-primary']);
    // The apply ends a minute after the plan began: the stamp is the plan's start (a hand edit made meanwhile is
    // drift the next run must find inside its window).
    h.clock.ms += 60_000;
    const { ctx } = context(h, state);
    await applyPlan(plan, ctx);
    expect(state.projects[P1]).toEqual(before);
    // The project planned is stamped (the control: the stamp is the plan's start).
    expect(state.projects[P2]?.lastReconciledAt).toBe(plan.createdAt);
  });
});

describe('a project whose writes landed but could not be re-read', () => {
  it('fails in verify, and is not stamped reconciled: its writes are not known to have converged', async () => {
    const h = scenario();
    await h.run('apply');
    const stamped = h.state.state?.projects[P1]?.lastReconciledAt;
    expect(stamped).toBeDefined();
    h.clock.ms += 3_600_000;
    setP1(h, { defaultServerType: 'PRODUCTION_SERVER' });
    const plan = (await h.run('plan')).plan;
    expect(plan.changes.filter((c) => c.action !== 'noop').map((c) => `${c.target.id}:${c.kind}:${c.action}`)).toEqual([
      `${P1}:defaultServerType:update`,
    ]);
    const api = h.world.as('gitopsbt');
    const verifyApi = Object.assign(Object.create(api) as OpsManagerApi, {
      getProjectDefaultServerType: async () => {
        throw Object.assign(new Error('connection reset'), { code: 'OPSMAN_NETWORK' });
      },
    });
    const state = h.state.state as ReconcileState;
    const { ctx, progress } = context(h, state, { verifyApi });
    const out = await applyPlan(plan, ctx);
    expect(out.results.map((r) => r.status)).toEqual(['applied']);
    expect(out.failures).toMatchObject([
      {
        target: { id: P1 },
        phase: 'verify',
        code: 'OPSMAN_NETWORK',
        message: expect.stringContaining('connection reset'),
      },
    ]);
    expect(progress).toEqual(['finished payments-prod with errors (1/1)']);
    expect(state.projects[P1]?.lastReconciledAt).toBe(stamped);
    expect(state.projects[P2]?.lastReconciledAt).toBe(plan.createdAt);
  });

  it('holds its deletes of the second wave, naming the phase that failed', async () => {
    const h = scenario();
    await h.run('apply');
    setP1(h, { defaultServerType: 'PRODUCTION_SERVER', alertConfigs: p1Alerts().filter((a) => a.key !== 'disk') });
    const plan = (await h.run('plan')).plan;
    expect(
      plan.changes
        .filter((c) => c.action !== 'noop')
        .map((c) => `${c.key}:${c.action}`)
        .sort(),
    ).toEqual(['defaultServerType:update', 'disk:delete']);
    const api = h.world.as('gitopsbt');
    const verifyApi = Object.assign(Object.create(api) as OpsManagerApi, {
      getProjectDefaultServerType: async () => {
        throw Object.assign(new Error('connection reset'), { code: 'OPSMAN_NETWORK' });
      },
    });
    const state = h.state.state as ReconcileState;
    const { ctx } = context(h, state, { verifyApi });
    const earlier = h.world.writes(P1).length;
    const out = await applyPlan(plan, ctx);
    expect(out.results.map((r) => `${r.change.key}:${r.status}`)).toEqual([
      'defaultServerType:applied',
      'disk:skipped',
    ]);
    expect(out.results[1]?.message).toBe(
      'not deleted: this project stopped before its deletes (verify failed: OPSMAN_NETWORK)',
    );
    expect(
      h.world
        .writes(P1)
        .slice(earlier)
        .map((c) => c.method),
    ).toEqual(['setProjectDefaultServerType']);
    expect(state.projects[P1]?.alertConfigs.disk).toBeDefined();
  });
});

describe('the progress line of a project the run stopped', () => {
  it('says how many writes were not started, one included, never "applied"', async () => {
    const h = scenario();
    const plan = await firstPlan(h);
    const state = emptyState(h.clock.now().toISOString());
    const stop = new AbortController();
    const api = h.world.as('gitopsbt');
    // The first POST lands and is answered; the run is stopped right after it.
    const stopping = Object.assign(Object.create(api) as OpsManagerApi, {
      createAlertConfig: async (...args: Parameters<OpsManagerApi['createAlertConfig']>) => {
        const created = await api.createAlertConfig(...args);
        stop.abort('stopped by the test');
        return created;
      },
    });
    const { ctx, progress } = context(h, state, { api: stopping, signal: stop.signal });
    const out = await applyPlan(plan, ctx, { targetConcurrency: 1 });
    expect(out.results.filter((r) => r.change.target.id === P1).map((r) => r.status)).toEqual(['applied', 'skipped']);
    expect(progress).toEqual(['stopped payments-prod: 1 write not started (1/2)']);
  });
});

describe('a project whose lease check failed before a write', () => {
  it("is a failure of the outcome in phase apply, with the error's own code", async () => {
    const h = scenario();
    const plan = await firstPlan(h);
    const state = emptyState(h.clock.now().toISOString());
    const keepAlive = async () => {
      throw Object.assign(new Error('the state store did not answer'), { code: 'STATE_UNREACHABLE' });
    };
    const { ctx } = context(h, state, { keepAlive });
    const out = await applyPlan(plan, ctx, { targetConcurrency: 1 });
    expect(h.world.writes()).toEqual([]);
    expect(out.failures.map((f) => `${f.target.id}:${f.phase}:${f.code}`)).toEqual([
      `${P1}:apply:STATE_UNREACHABLE`,
      `${P2}:apply:STATE_UNREACHABLE`,
    ]);
  });
});

describe('a failed write that is no alert config', () => {
  it("holds none of the project's alert config deletes", async () => {
    const h = scenario();
    await h.run('apply');
    setP1(h, { defaultServerType: 'PRODUCTION_SERVER', alertConfigs: p1Alerts().filter((a) => a.key !== 'disk') });
    h.world.faults.push({
      method: 'setProjectDefaultServerType',
      groupId: P1,
      times: 1,
      error: () => new Error('refused by a test fault'),
    });
    const report = await h.run('apply');
    expect(report.results.map((r) => `${r.change.key}:${r.status}`).sort()).toEqual([
      'defaultServerType:failed',
      'disk:applied',
    ]);
  });
});
