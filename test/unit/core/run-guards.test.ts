// Scenario: the guards and the ordering of one run (run.ts, run-apply.ts): what is refused before any call, what a
// report says about a corrupt state, an interrupted run, a mode cap, a failed save, a lease not released.
import { describe, expect, it } from 'vitest';
import { ReconcileError, STATE_WAS_CORRUPT } from '../../../lambdas/core/errors.ts';
import { LEASE_RELEASE_FAILED } from '../../../lambdas/core/lease.ts';
import type { Plan, RunReport } from '../../../lambdas/core/model.ts';
import { REPORT_NOT_WRITTEN } from '../../../lambdas/core/report.ts';
import { DEFAULT_RUN_OPTIONS, runReconcile } from '../../../lambdas/core/run.ts';
import { P1, P2, p1Alerts, STAGING_HOURS, SUNDAY, scenario, setP1 } from './scenario-fixture.ts';

describe('run guards', () => {
  it('refuses an unknown command before loading anything or taking the lease', async () => {
    const h = scenario();
    const run = runReconcile({ command: 'deploy' as never, runId: 'r1', owner: 'test' }, h.deps());
    await expect(run).rejects.toThrow(ReconcileError);
    await expect(
      runReconcile({ command: 'deploy' as never, runId: 'r2', owner: 'test' }, h.deps()),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: 'unknown command deploy' });
    expect(h.world.apiCalls().total).toBe(0);
    expect(h.state.writes).toBe(0);
    expect(h.state.lease).toBeNull();
  });

  it('says once that the state was corrupt, and an apply over it still writes and saves', async () => {
    const h = scenario();
    h.state.text = '{"formatVersion": 1, "projects": {"5e22';
    const report = await h.run('apply');
    const corrupt = (report.warnings ?? []).filter((w) => w.startsWith(STATE_WAS_CORRUPT));
    expect(corrupt).toHaveLength(1);
    expect(corrupt[0]).toMatch(/nothing is pruned this run/);
    // The plan (printed, saved, reviewed) says it too, with the same why: which file and what is wrong.
    const why = corrupt[0]?.slice(STATE_WAS_CORRUPT.length).split('): ')[0];
    expect(why).toMatch(/^ \(.+/);
    expect(why).not.toBe(' (unreadable');
    expect(report.plan.warnings?.filter((w) => w.startsWith(STATE_WAS_CORRUPT))).toEqual([
      `${STATE_WAS_CORRUPT}${why}): ownership is unknown this run; owned alert configs are recovered by adoption and nothing is pruned`,
    ]);
    expect(h.state.state?.projects).toBeDefined();
    expect(h.state.lease).toBeNull();
  });

  it('a lease that cannot be released is a warning of the report, after the writes and the save', async () => {
    const h = scenario();
    h.state.releaseLease = async () => {
      throw new Error('503 SlowDown');
    };
    const report = await h.run('apply');
    expect(report.summary.applied).toBeGreaterThan(0);
    expect(h.state.state?.lastRun?.runId).toBe(report.runId);
    const warning = (report.warnings ?? []).find((w) => w.startsWith(LEASE_RELEASE_FAILED));
    expect(warning).toMatch(/^lease release failed \(it stays until .*\): 503 SlowDown$/);
    // The report stored says it too, not only the one returned.
    const stored = JSON.parse([...h.archive.objects.values()].at(-1) as string) as RunReport;
    expect(stored.warnings).toContain(warning);
  });

  it('a report that cannot be stored is said in the report returned; the run itself stands', async () => {
    const h = scenario();
    h.archive.put = async () => {
      throw new Error('AccessDenied');
    };
    const report = await h.run('apply');
    expect(report.reportLocation).toBeUndefined();
    expect(report.warnings).toContain(`${REPORT_NOT_WRITTEN}: AccessDenied`);
    expect(report.failures).toEqual([]);
    expect(h.state.lease).toBeNull();
  });

  it('a mode cap holds a saved plan made in mode apply: nothing is written, every write is reported skipped', async () => {
    for (const cap of ['plan', 'observe'] as const) {
      const h = scenario();
      const planned = await h.run('plan', { mode: 'apply', planForApply: true });
      const saved = JSON.parse(JSON.stringify(planned.plan)) as Plan;
      const report = await h.run('apply', { savedPlan: saved, mode: cap });
      expect(h.world.writes()).toEqual([]);
      expect(report.summary.applied).toBe(0);
      const writes = report.results.filter((r) => r.change.action !== 'noop');
      expect(writes.length).toBeGreaterThan(0);
      for (const r of writes) {
        expect(r).toMatchObject({ status: 'skipped' });
        expect(r.message).toContain(`target mode is ${cap}`);
      }
    }
  });

  it('keeps the lease alive while planning: a plan longer than the lease lifetime is not overtaken by another run', async () => {
    const h = scenario();
    const deps = h.deps();
    const api = deps.api;
    let intruder: 'refused' | 'took the lease' | undefined;
    deps.api = Object.assign(Object.create(api) as typeof api, {
      async listAlertConfigs(groupId: string) {
        if (groupId === P1) h.clock.ms += 16 * 60_000; // longer than the lease's 15 minutes
        if (groupId === P2) {
          intruder = await h.state.acquireLease({ owner: 'cli:bob@laptop', runId: 'other', ttlMs: 60_000 }).then(
            () => 'took the lease' as const,
            () => 'refused' as const,
          );
        }
        return api.listAlertConfigs(groupId);
      },
    });
    const options = { ...DEFAULT_RUN_OPTIONS, plan: { ...DEFAULT_RUN_OPTIONS.plan, targetConcurrency: 1 } };
    const report = await runReconcile({ command: 'apply', runId: 'long', owner: 'test' }, deps, options);
    expect(intruder).toBe('refused');
    expect(report.failures).toEqual([]);
    expect(report.summary.applied).toBe(3);
  });

  it('saves the pending-create markers before the first POST: a run killed mid-create leaves them for the next run', async () => {
    const h = scenario();
    const deps = h.deps();
    const api = deps.api;
    const storedAtPost: string[] = [];
    deps.api = Object.assign(Object.create(api) as typeof api, {
      async createAlertConfig(groupId: string, body: Parameters<typeof api.createAlertConfig>[1]) {
        const records = h.state.state?.projects[groupId]?.alertConfigs ?? {};
        storedAtPost.push(
          ...Object.entries(records)
            .filter(([, r]) => r.pendingCreate !== undefined)
            .map(([key]) => key),
        );
        return api.createAlertConfig(groupId, body);
      },
    });
    const report = await runReconcile({ command: 'apply', runId: 'marks', owner: 'test' }, deps);
    expect(report.summary.applied).toBe(3);
    expect(new Set(storedAtPost)).toEqual(new Set(['disk', 'no-primary', 'host-down']));
  });

  it('--ignore-windows on a saved plan capped by --mode plan says nothing was "written anyway": nothing was', async () => {
    const h = scenario({}, {}, STAGING_HOURS);
    h.clock.ms = SUNDAY; // a Sunday: the window is closed
    const planned = await h.run('plan', { mode: 'apply', planForApply: true });
    const saved = JSON.parse(JSON.stringify(planned.plan)) as Plan;
    const report = await h.run('apply', { savedPlan: saved, mode: 'plan', ignoreWindows: true });
    expect(h.world.writes()).toEqual([]);
    expect((report.warnings ?? []).filter((w) => w.startsWith('CHANGE WINDOW IGNORED'))).toEqual([]);
  });

  it('an interrupted apply counts as not started only the writes the stop left, not those a change window held', async () => {
    const h = scenario({}, {}, STAGING_HOURS);
    h.clock.ms = SUNDAY; // a Sunday: P2's window is closed, its create is held
    const stop = new AbortController();
    const deps = h.deps();
    const api = deps.api;
    deps.api = Object.assign(Object.create(api) as typeof api, {
      async createAlertConfig(groupId: string, body: Parameters<typeof api.createAlertConfig>[1]) {
        const created = await api.createAlertConfig(groupId, body);
        stop.abort('stopped by the test'); // after P1's first create: its second is never started
        return created;
      },
    });
    const report = await runReconcile({ command: 'apply', runId: 'stop', owner: 'test', signal: stop.signal }, deps);
    const held = report.results.filter((r) => r.status === 'skipped' && r.change.target.id === P2);
    expect(held.length).toBe(1);
    expect(report.summary.applied).toBe(1);
    expect(report.interrupted).toEqual({ reason: 'stopped by the test', notStarted: 1 });
    expect(report.warnings?.[0]).toMatch(/^INTERRUPTED \(stopped by the test\): 1 planned write\(s\) not started;/);
  });

  it("records the run's mode in the state: an apply capped by --mode plan is recorded as plan, not apply", async () => {
    const h = scenario();
    await h.run('apply', { mode: 'plan' });
    expect(h.world.writes()).toEqual([]);
    expect(h.state.state?.lastRun?.mode).toBe('plan');
    await h.run('apply');
    expect(h.state.state?.lastRun?.mode).toBe('apply');
  });

  it('a saved partial plan applied forgets no entry of the targets it left out (only a full plan made now says who left git)', async () => {
    const h = scenario();
    await h.run('apply');
    const before = JSON.parse(JSON.stringify(h.state.state)) as NonNullable<typeof h.state.state>;
    expect(Object.keys(before.projects[P2]?.alertConfigs ?? {}).length).toBeGreaterThan(0);
    h.world.groups.get(P2)?.alerts.delete(before.projects[P2]?.alertConfigs['host-down']?.id as string);
    h.clock.ms += 60_000;
    const planned = await h.run('plan', { projects: [P1], planForApply: true });
    const saved = JSON.parse(JSON.stringify(planned.plan)) as Plan;
    await h.run('apply', { savedPlan: saved });
    expect(h.state.state?.projects[P2]).toEqual(before.projects[P2]);
    expect(h.state.state?.organizations).toEqual(before.organizations);
  });

  it('an interrupted apply leaves the records of a project that left git as they were, and reads nothing of it', async () => {
    const h = scenario();
    await h.run('apply');
    const before = JSON.parse(JSON.stringify(h.state.state)) as NonNullable<typeof h.state.state>;
    // P2 leaves git, and its config is deleted in Ops Manager: a full run would forget that record.
    h.source.files.delete('p2.yaml');
    h.world.groups.get(P2)?.alerts.delete(before.projects[P2]?.alertConfigs['host-down']?.id as string);
    const extra = (key: string) => ({
      key,
      eventTypeName: 'HOST_DOWN',
      notifications: [{ typeName: 'EMAIL', emailAddress: `${key}@acme.example`, intervalMin: 60, delayMin: 0 }],
    });
    setP1(h, { alertConfigs: [...p1Alerts(), extra('one'), extra('two')] });
    h.clock.ms += 60_000;
    const stop = new AbortController();
    const deps = h.deps();
    const api = deps.api;
    const readAfterStop: string[] = [];
    deps.api = Object.assign(Object.create(api) as typeof api, {
      async createAlertConfig(groupId: string, body: Parameters<typeof api.createAlertConfig>[1]) {
        const created = await api.createAlertConfig(groupId, body);
        stop.abort('stopped by the test');
        return created;
      },
      async listAlertConfigs(groupId: string) {
        if (stop.signal.aborted) readAfterStop.push(groupId);
        return api.listAlertConfigs(groupId);
      },
    });
    const report = await runReconcile({ command: 'apply', runId: 'stop', owner: 'test', signal: stop.signal }, deps);
    expect(report.interrupted?.notStarted).toBe(1);
    expect(readAfterStop).toEqual([]);
    expect(h.state.state?.projects[P2]).toEqual(before.projects[P2]);
  });
});
