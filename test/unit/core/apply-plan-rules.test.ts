// Rules of applyPlan (lambdas/core/apply.ts) seen through whole runs: what a target this run may not write keeps, what
// a failed or stopped write leaves in the state, and what the report and the progress say of it.
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { ProjectState, ReconcileState } from '../../../lambdas/core/ports.ts';
import { ORG, ownedId, P1, P2, p1Alerts, p2Alerts, scenario, setP1, setP2 } from './scenario-fixture.ts';

describe('a target this run may not write', () => {
  it('keeps its own record of an in-sync singleton: only a target that may be written is brought up to date', async () => {
    const h = scenario(
      { defaultServerType: 'PRODUCTION_SERVER', mode: 'observe' },
      { defaultServerType: 'TEST_SERVER' },
    );
    h.world.serverTypes.set(P1, { name: 'PRODUCTION_SERVER' });
    h.world.serverTypes.set(P2, { name: 'TEST_SERVER' });
    const report = await h.run('apply');
    const inSync = report.plan.changes.filter((c) => c.kind === 'defaultServerType').map((c) => c.action);
    expect(inSync).toEqual(['noop', 'noop']);
    expect(h.state.state?.projects[P2]?.singletons?.defaultServerType).toBeDefined();
    expect(h.state.state?.projects[P1]?.singletons?.defaultServerType).toBeUndefined();
  });

  it('is not stamped reconciled and forgets no record when all is in sync: it was only observed', async () => {
    const h = scenario();
    await h.run('apply');
    const before = structuredClone(h.state.state?.projects[P1]);
    h.clock.ms += 3_600_000;
    setP1(h, { mode: 'observe' });
    // A record of a key neither desired nor live: an apply forgets it only in a project it may write.
    const state = h.state.state as ReconcileState;
    const stale = { id: '64b0000000000000000000aa', appliedDigest: 'x' };
    (state.projects[P1] as ProjectState).alertConfigs.gone = stale;
    (state.projects[P2] as ProjectState).alertConfigs.gone = stale;
    h.state.text = JSON.stringify(state);
    const report = await h.run('apply');
    expect(report.plan.changes.filter((c) => c.action !== 'noop')).toEqual([]);
    expect(h.state.state?.projects[P1]).toEqual({ ...before, alertConfigs: { ...before?.alertConfigs, gone: stale } });
    expect(h.state.state?.projects[P2]?.lastReconciledAt).toBe(report.plan.createdAt);
    expect(h.state.state?.projects[P2]?.alertConfigs.gone).toBeUndefined();
  });
});

describe('pending-create markers that cannot be saved', () => {
  it('write nothing at all: every write of the run fails, saying the state was not saved', async () => {
    const h = scenario();
    const write = h.state.write.bind(h.state);
    let refused = false;
    h.state.write = async (state, expected) => {
      // The first save of the apply is the markers' one.
      if (!refused) {
        refused = true;
        throw Object.assign(new Error('disk full'), { code: 'STATE_WRITE_FAILED' });
      }
      return write(state, expected);
    };
    const report = await h.run('apply');
    expect(refused).toBe(true);
    expect(h.world.writes()).toEqual([]);
    expect(report.results.length).toBeGreaterThan(0);
    for (const r of report.results) {
      expect(r).toMatchObject({
        status: 'failed',
        message: 'state not saved before creating: disk full',
        code: 'STATE_WRITE_FAILED',
      });
    }
  });

  it('leave no marker behind in the state the run saves at its end: nothing was sent, no duplicate to look for', async () => {
    const h = scenario();
    await h.run('apply');
    // A marker left behind would block the next create as an interrupted one with duplicates as soon as two configs
    // equal to its body exist, where the oldest is to be adopted.
    const notifications = [
      { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 60, delayMin: 0, emailEnabled: true },
    ];
    const body = { eventTypeName: 'NO_PRIMARY', enabled: true, notifications };
    const write = h.state.write.bind(h.state);
    let refused = false;
    h.state.write = async (state, expected) => {
      if (!refused) {
        refused = true;
        throw new Error('throttled');
      }
      return write(state, expected);
    };
    setP2(h, { alertConfigs: [...p2Alerts(), { key: 'oplog', ...body }] });
    const failed = await h.run('apply');
    expect(failed.results.map((r) => `${r.change.key}:${r.change.action}:${r.status}`)).toEqual([
      'oplog:create:failed',
    ]);
    expect(h.state.state?.projects[P2]?.alertConfigs.oplog).toBeUndefined();
    // Then someone makes two such configs by hand.
    h.world.seedAlert(P2, body);
    h.world.seedAlert(P2, body);
    const next = await h.run('apply');
    expect(next.plan.changes.filter((c) => c.action !== 'noop').map((c) => `${c.key}:${c.action}`)).toEqual([
      'oplog:adopt',
    ]);
  });
});

describe('a project left with a drift this apply could not revert', () => {
  it('keeps its older reconciled time, so the next run still finds who made the drift', async () => {
    const h = scenario();
    await h.run('apply');
    const stamped = h.state.state?.projects[P1]?.lastReconciledAt;
    h.clock.ms += 3_600_000;
    // A hand edit of disk, and a desired disk whose revert is blocked (a team missing in the organization).
    await h.world.as('jdoekey1').setAlertConfigEnabled(P1, ownedId(h, 'disk'), false);
    const missingTeam = { typeName: 'TEAM', teamId: '6a1f0000000000000000dead', intervalMin: 60, delayMin: 0 };
    setP1(h, {
      alertConfigs: p1Alerts().map((a) =>
        a.key === 'disk' ? { ...a, notifications: [...(a.notifications as unknown[]), missingTeam] } : a,
      ),
    });
    const report = await h.run('apply');
    expect(report.plan.changes.filter((c) => c.action !== 'noop').map((c) => `${c.key}:${c.action}`)).toEqual([
      'disk:blocked',
    ]);
    expect(h.state.state?.projects[P1]?.lastReconciledAt).toBe(stamped);
    expect(h.state.state?.projects[P2]?.lastReconciledAt).toBe(report.plan.createdAt);
  });
});

describe('an organization applied without failure', () => {
  it('is stamped reconciled with the plan start, as a project is', async () => {
    const h = scenario();
    h.source.files.set(
      'org.yaml',
      stringify({
        apiVersion: 'opsman-gitops/v1',
        kind: 'Organization',
        metadata: { name: 'acme', orgId: ORG },
        spec: { defaultServerType: 'PRODUCTION_SERVER' },
      }),
    );
    const report = await h.run('apply');
    expect(report.results.filter((r) => r.change.target.type === 'organization').map((r) => r.status)).toEqual([
      'applied',
    ]);
    expect(h.state.state?.organizations?.[ORG]?.lastReconciledAt).toBe(report.plan.createdAt);
  });
});

describe('a config moved to a project this run may not write', () => {
  it('is deleted from the old project all the same: a create skipped by mode is no failure, and would hold it for good', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = p1Alerts().find((a) => a.key === 'disk') as Record<string, unknown>;
    setP1(h, { alertConfigs: p1Alerts().filter((a) => a.key !== 'disk') });
    setP2(h, { mode: 'plan', alertConfigs: [...p2Alerts(), disk] });
    const report = await h.run('apply');
    expect(
      report.results
        .filter((r) => r.change.key === 'disk')
        .map((r) => `${r.change.target.id}:${r.change.action}:${r.status}`)
        .sort(),
    ).toEqual([`${P1}:delete:applied`, `${P2}:create:skipped`].sort());
  });
});
