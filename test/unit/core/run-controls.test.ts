// Scenario: modes (observe, plan, target modes), isolation of a failing project, blocked secrets and teams, saved plans, the lease.
import { describe, expect, it } from 'vitest';
import { LeaseHeldError, SavedPlanStaleError } from '../../../lambdas/core/errors.ts';
import { PLAN_FORMAT_VERSION } from '../../../lambdas/core/model.ts';
import { runMode, stricter, targetMode } from '../../../lambdas/core/modes.ts';
import { renderPlanText } from '../../../lambdas/core/render/plan-text.ts';
import { renderRunSummary } from '../../../lambdas/core/render/run-summary.ts';
import { OpsManagerApiError } from '../../../lambdas/opsman/errors.ts';
import { serverError } from '../../helpers/fake-opsman-api.ts';
import {
  actions,
  ORG,
  ownedId,
  P1,
  P2,
  p1Alerts,
  p2Alerts,
  SECRETS,
  scenario,
  setP1,
  setP2,
  TEAM,
} from './scenario-fixture.ts';

describe('modes', () => {
  it('the stricter of run and target mode wins', () => {
    expect(stricter('apply', 'plan')).toBe('plan');
    expect(stricter('observe', 'apply')).toBe('observe');
    expect(runMode('plan', 'apply')).toBe('plan');
    expect(runMode('observe', undefined)).toBe('observe');
    expect(runMode('apply', undefined)).toBe('apply');
    // archive writes nothing to Ops Manager: its report must not say mode apply.
    expect(runMode('archive', undefined)).toBe('observe');
    expect(targetMode('apply', 'plan', 'apply')).toBe('plan');
    expect(targetMode('apply', undefined, 'observe')).toBe('observe');
    expect(targetMode('observe', 'apply', 'apply')).toBe('observe');
  });

  it('observe writes nothing and reports differences as drift', async () => {
    const h = scenario();
    const report = await h.run('observe');
    expect(actions(report)).toEqual(['disk:drift', 'no-primary:drift', 'host-down:drift']);
    expect(h.world.writes()).toEqual([]);
    expect(h.state.writes).toBe(0);
  });

  it('the plan command writes nothing even when every mode says apply', async () => {
    const h = scenario();
    const report = await h.run('plan', { mode: 'apply' });
    expect(actions(report)).toEqual(['disk:create', 'no-primary:create', 'host-down:create']);
    expect(h.world.writes()).toEqual([]);
    expect(h.state.writes).toBe(0);
    expect(h.state.lease).toBeNull();
  });

  it('a target in plan mode is planned but not written by apply; --mode observe turns everything into drift', async () => {
    const h = scenario({}, { mode: 'plan' });
    const report = await h.run('apply');
    expect(report.results.filter((r) => r.change.target.id === P2).map((r) => r.status)).toEqual(['skipped']);
    expect(h.world.writes(P2)).toEqual([]);
    expect(h.world.writes(P1).length).toBe(2);
    const observed = await h.run('apply', { mode: 'observe' });
    expect(actions(observed)).toEqual(['host-down:drift']);
  });
});

describe('isolation', () => {
  it('a project failing with 500 does not stop the others; every failure is listed', async () => {
    const h = scenario();
    h.world.faults.push({ method: 'listAlertConfigs', groupId: P1, error: () => serverError() });
    const report = await h.run('apply');
    expect(report.failures.map((f) => `${f.target.name}:${f.phase}`)).toEqual(['payments-prod:read']);
    expect(report.summary.targetsFailed).toBe(1);
    expect(h.world.writes(P2).length).toBe(1);
    expect(h.state.state?.projects[P1]).toBeUndefined();
  });

  it('an unresolvable secret blocks only that alert config', async () => {
    const h = scenario();
    delete (h.secrets.values as Record<string, string>)['notify#secret'];
    const report = await h.run('apply');
    const noPrimary = report.plan.changes.find((c) => c.key === 'no-primary');
    expect(noPrimary?.action).toBe('blocked');
    expect(noPrimary?.reason).toMatch(/secret reference notify#secret .* could not be resolved/);
    expect(report.plan.changes.find((c) => c.key === 'disk')?.action).toBe('create');
    expect(h.world.writes(P1).length).toBe(1);
  });

  it('the blocked reason of an unresolvable secret names file:line:column of its secretRef, in the plan text too', async () => {
    const h = scenario();
    delete (h.secrets.values as Record<string, string>)['notify#secret'];
    const text = h.source.files.get('p1.yaml') as string;
    // The position of the reference's string: its opening quote when quoted, like yaml's own node ranges.
    const found = text.indexOf('notify#secret');
    const offset = `"'`.includes(text[found - 1] as string) ? found - 1 : found;
    const line = text.slice(0, offset).split('\n').length;
    const column = offset - text.lastIndexOf('\n', offset - 1);
    const report = await h.run('plan');
    const reason = report.plan.changes.find((c) => c.key === 'no-primary')?.reason ?? '';
    expect(reason).toContain(
      `secret reference notify#secret (notifications[WEBHOOK].webhookSecret) at p1.yaml:${line}:${column} could not be resolved`,
    );
    expect(renderPlanText(report.plan)).toContain(`at p1.yaml:${line}:${column} could not be resolved`);
    expect(JSON.stringify(report)).not.toContain(SECRETS['notify#url']);
  });

  it('a secret that looks like a mask is refused for that object', async () => {
    const h = scenario();
    h.secrets.values['notify#secret'] = '********cafe';
    const report = await h.run('plan');
    expect(report.plan.changes.find((c) => c.key === 'no-primary')?.reason).toMatch(/looks like a redaction mask/);
  });

  it("a 404 that is not Ops Manager's (a proxy's page) neither says a team is missing nor counts a delete as done", async () => {
    const proxyPage = () =>
      new OpsManagerApiError(
        404,
        'HTTP_404',
        'https://proxy/api/public/v1.0/x answered 404 without an Ops Manager error body (text/html: "Not Found")',
        { method: 'GET', pathTemplate: '/orgs/{orgId}/teams/{teamId}' },
        { fromOpsManager: false },
      );
    const alerts = [
      ...p1Alerts(),
      { key: 'team', eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'TEAM', teamId: TEAM }] },
    ];
    const h = scenario({ alertConfigs: alerts });
    h.world.faults.push({ method: 'getTeam', times: 5, error: proxyPage });
    const planned = await h.run('plan');
    expect(planned.plan.changes.find((c) => c.key === 'team')?.reason).toMatch(
      /could not be checked: .*without an Ops Manager error body/,
    );
    expect(planned.plan.changes.find((c) => c.key === 'team')?.reason).not.toMatch(/does not exist/);
    // An owned config leaves git (prune is on): its DELETE answered by the proxy's 404 is a failure, ownership is kept.
    expect((await h.run('apply')).results.every((r) => r.status === 'applied' || r.change.key === 'team')).toBe(true);
    const id = ownedId(h, 'disk');
    setP1(h, { alertConfigs: p1Alerts().filter((c) => c.key !== 'disk') });
    h.world.faults.push({ method: 'deleteAlertConfig', times: 5, error: proxyPage });
    const report = await h.run('apply');
    expect(report.results.find((r) => r.change.key === 'disk')).toMatchObject({ status: 'failed' });
    expect(ownedId(h, 'disk')).toBe(id);
  });

  it('a missing team blocks that alert config during plan', async () => {
    const alerts = [
      ...p1Alerts(),
      {
        key: 'team',
        eventTypeName: 'HOST_DOWN',
        notifications: [{ typeName: 'TEAM', teamId: '6a1f0000000000000000ffff' }],
      },
      { key: 'team-ok', eventTypeName: 'HOST_RECOVERING', notifications: [{ typeName: 'TEAM', teamId: TEAM }] },
    ];
    const h = scenario({ alertConfigs: alerts });
    const report = await h.run('plan');
    expect(report.plan.changes.find((c) => c.key === 'team')).toMatchObject({ action: 'blocked' });
    expect(report.plan.changes.find((c) => c.key === 'team')?.reason).toMatch(
      /team 6a1f0000000000000000ffff does not exist in organization/,
    );
    expect(report.plan.changes.find((c) => c.key === 'team-ok')?.action).toBe('create');
  });
});

describe('saved plans', () => {
  it('applies a saved plan when live state has not moved', async () => {
    const h = scenario();
    const planned = await h.run('plan', { mode: 'apply' });
    const saved = JSON.parse(JSON.stringify(planned.plan));
    const report = await h.run('apply', { savedPlan: saved });
    expect(report.results.filter((r) => r.status === 'applied').length).toBe(3);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('refuses a saved plan whose targets moved, naming them', async () => {
    const h = scenario();
    await h.run('apply');
    const planned = await h.run('plan');
    await h.world.as('jdoekey1').setAlertConfigEnabled(P1, ownedId(h, 'disk'), false);
    const writes = h.world.writes().length;
    await expect(h.run('apply', { savedPlan: planned.plan })).rejects.toThrow(SavedPlanStaleError);
    await expect(h.run('apply', { savedPlan: planned.plan })).rejects.toThrow(/payments-prod/);
    expect(h.world.writes().length).toBe(writes);
  });
});

describe('lease', () => {
  it('a second apply fails fast naming the holder; an expired lease is taken over', async () => {
    const h = scenario();
    await h.state.acquireLease({ owner: 'cli:alice@laptop', runId: 'other-run', ttlMs: 60_000 });
    await expect(h.run('apply')).rejects.toThrow(LeaseHeldError);
    await expect(h.run('apply')).rejects.toThrow(/cli:alice@laptop .*other-run/);
    expect(h.world.writes()).toEqual([]);
    const plan = await h.run('plan');
    expect(plan.failures).toEqual([]);
    h.clock.ms += 61_000;
    const report = await h.run('apply');
    expect(report.failures).toEqual([]);
    expect(h.state.lease).toBeNull();
  });

  it('says once an apply holds the lease (onLeaseHeld), never while it waits for one or for another command', async () => {
    const h = scenario();
    const held: string[] = [];
    const onLeaseHeld = () => held.push(h.state.lease === null ? 'no lease' : 'lease held');
    await h.run('plan', { onLeaseHeld });
    expect(held).toEqual([]);
    await h.state.acquireLease({ owner: 'x', runId: 'r', ttlMs: 60_000 });
    await expect(h.run('apply', { leaseWaitMs: 1_000, onLeaseHeld })).rejects.toThrow(/waited/);
    expect(held).toEqual([]);
    h.clock.ms += 61_000;
    await h.run('apply', { onLeaseHeld });
    expect(held).toEqual(['lease held']);
  });

  it('waits up to leaseWaitMs for a held lease', async () => {
    const h = scenario();
    await h.state.acquireLease({ owner: 'x', runId: 'r', ttlMs: 2_000 });
    const report = await h.run('apply', { leaseWaitMs: 5_000 });
    expect(report.failures).toEqual([]);
    await h.state.acquireLease({ owner: 'x', runId: 'r', ttlMs: 60_000 });
    await expect(h.run('apply', { leaseWaitMs: 1_000 })).rejects.toThrow(/waited 10\d\d ms/);
  });
});

describe('state save failure', () => {
  it('keeps the report and says how the next run recovers', async () => {
    const h = scenario();
    const original = h.state.write.bind(h.state);
    let calls = 0;
    h.state.write = async (state, version) => {
      calls++;
      if (calls > 1) throw new Error('disk full');
      return original(state, version);
    };
    const report = await h.run('apply');
    expect(report.summary.applied).toBe(3);
    const message =
      'the state could not be saved after applying: disk full; the next run recovers ownership by adoption';
    expect(report.failures.map((f) => f.message)).toEqual([message]);
    // A warning too, one failed target, and the lease released all the same.
    expect(report.warnings).toContain(message);
    expect(report.summary.targetsFailed).toBe(1);
    expect(h.state.lease).toBeNull();
    // Titled as the state store it is, never as Ops Manager (which took every write).
    const summary = renderRunSummary(report);
    expect(summary).toContain(
      '\n  x state [apply]: the state could not be saved after applying: disk full; the next run recovers',
    );
    expect(summary).not.toContain('Ops Manager (global)');
    h.state.write = original;
    const next = await h.run('apply');
    expect(actions(next)).toEqual(['disk:adopt', 'no-primary:adopt', 'host-down:adopt']);
    expect(h.world.writes().filter((w) => w.method === 'createAlertConfig').length).toBe(3);
    expect(actions(await h.run('plan'))).toEqual([]);
  });
});

describe('saved plan validation', () => {
  it('refuses a file that is not a plan of this version', async () => {
    const h = scenario();
    const current = PLAN_FORMAT_VERSION;
    await expect(h.run('apply', { savedPlan: { formatVersion: String(current) } as never })).rejects.toThrow(
      `formatVersion "${current}"; expected ${current}`,
    );
    // A later release's plan (applied after a rollback) is named as such, with the version found and the one read.
    await expect(h.run('apply', { savedPlan: { formatVersion: current + 1 } as never })).rejects.toThrow(
      `the saved plan was made by a newer version of opsman-gitops: it has formatVersion ${current + 1}; this version reads formatVersion ${current}: apply it with that version, or make a new plan`,
    );
    // An earlier release's plan (saved before an upgrade) is named as such: only a new plan helps.
    await expect(
      h.run('apply', { savedPlan: { formatVersion: 1, changes: [], failures: [] } as never }),
    ).rejects.toThrow(
      `the saved plan was made by an older version of opsman-gitops: it has formatVersion 1; this version reads formatVersion ${current}: make a new plan`,
    );
    // Below 1 is no version that ever existed: malformed, not older.
    await expect(h.run('apply', { savedPlan: { formatVersion: 0 } as never })).rejects.toThrow(
      `the saved plan has formatVersion 0; expected ${current}`,
    );
    // Any other JSON object: said plainly, never "formatVersion undefined".
    await expect(h.run('apply', { savedPlan: {} as never })).rejects.toThrow(
      `the saved plan has no formatVersion (expected ${current})`,
    );
    await expect(h.run('apply', { savedPlan: null as never })).rejects.toThrow(/not a JSON object/);
    await expect(
      h.run('apply', {
        savedPlan: {
          formatVersion: current,
          runId: 'r',
          createdAt: '2026-11-27T00:00:00.000Z',
          mode: 'apply',
          desired: { digest: 'd', files: [] },
          changes: [{}],
          failures: [],
          liveDigests: {},
        } as never,
      }),
    ).rejects.toThrow(/malformed change/);
    await expect(h.run('plan', { savedPlan: (await h.run('plan')).plan })).rejects.toThrow(/can only be applied/);
  });
});

describe('project selection', () => {
  it('plans only the selected projects (no organizations)', async () => {
    const h = scenario();
    const report = await h.run('plan', { projects: [P2] });
    expect([...new Set(report.plan.changes.map((c) => c.target.id))]).toEqual([P2]);
    expect(report.warnings ?? []).toEqual([]);
  });

  it.each(['plan', 'apply', 'archive'] as const)(
    '%s refuses an unknown project before any API call',
    async (command) => {
      const h = scenario();
      const error = await h.run(command, { projects: [P2, '0000000000000000000000ff'] }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'UNKNOWN_PROJECT' });
      expect(String((error as Error).message)).toMatch(
        /^project 0000000000000000000000ff asked for .* nothing was read/,
      );
      expect(h.world.calls).toEqual([]);
    },
  );
});

describe('a project named in the selection', () => {
  it('stands for its id: the plan is limited to that project, recorded by id, each project once', async () => {
    const h = scenario();
    const report = await h.run('plan', { projects: ['payments-staging', P2], projectsField: '--project' });
    expect(report.plan.projects).toEqual([P2]);
    expect([...new Set(report.plan.changes.map((c) => c.target.id))]).toEqual([P2]);
  });

  it('a name no project has is refused like an unknown id, listing the known projects', async () => {
    const h = scenario();
    const error = await h.run('plan', { projects: ['payments-prd'], projectsField: '--project' }).catch((e) => e);
    expect((error as Error).message).toBe(
      `project payments-prd asked for (--project) but not in the desired state, which has 2: ${P1} (payments-prod), ${P2} (payments-staging); nothing was read or written`,
    );
  });
});

describe('a plan limited to some projects says so', () => {
  it('records the selection and notes what it did not plan; a full plan has neither', async () => {
    const h = scenario();
    const partial = await h.run('plan', { projects: [P2], projectsField: '--project' });
    expect(partial.plan.projects).toEqual([P2]);
    expect(partial.plan.notes?.[0]).toBe(
      'this run covers only 1 project of 2 (--project); not planned: 1 other project (payments-prod). Their changes and drift are not shown, and nothing of theirs is written or forgotten',
    );
    const full = await h.run('plan');
    expect(full.plan.projects).toBeUndefined();
    expect(full.plan.notes ?? []).toEqual([]);
  });

  it('an archive limited to some projects records them in its report', async () => {
    const h = scenario();
    expect((await h.run('archive', { projects: [P2] })).plan.projects).toEqual([P2]);
    expect((await h.run('archive')).plan.projects).toBeUndefined();
  });

  it('warns when a config moving between projects has only one half in the run', async () => {
    const h = scenario();
    await h.run('apply');
    // "disk" moves from payments-prod (prune: true) to payments-staging in one commit.
    setP1(h, { alertConfigs: p1Alerts().filter((a) => a.key !== 'disk') });
    const disk = p1Alerts().find((a) => a.key === 'disk') as Record<string, unknown>;
    setP2(h, { alertConfigs: [...p2Alerts(), disk] });
    const deleteHalf = await h.run('plan', { projects: [P1], projectsField: '--project' });
    expect(deleteHalf.plan.changes.find((c) => c.key === 'disk')?.action).toBe('delete');
    expect(deleteHalf.warnings).toEqual([
      `alert config "disk" is deleted from project payments-prod and desired in payments-staging (${P2}), which this run does not cover (--project): until a run covers it, the config is in neither; add that project to the run to move it in one apply`,
    ]);
    const createHalf = await h.run('plan', { projects: [P2], projectsField: '--project' });
    expect(createHalf.plan.changes.find((c) => c.key === 'disk')?.action).toBe('create');
    expect(createHalf.warnings).toEqual([
      `alert config "disk" is written to project payments-staging while payments-prod (${P1}), which this run does not cover (--project), still owns the copy that left its file: both alert until a run covering it deletes it; add that project to the run to move it in one apply`,
    ]);
    // Both halves in one run: nothing to warn of.
    expect((await h.run('plan', { projects: [P1, P2] })).warnings ?? []).toEqual([]);
    expect((await h.run('plan')).warnings ?? []).toEqual([]);
  });

  it('a partial apply leaves the records of the projects and organizations it did not plan as they were', async () => {
    const h = scenario();
    await h.run('apply');
    const stored = h.state.state;
    if (stored === null) throw new Error('no state');
    const p1 = stored.projects[P1];
    if (p1 === undefined) throw new Error('no record of payments-prod');
    // What a full apply would change or forget: a pending create that created nothing, a record of a key neither
    // desired nor live, a fight streak, an organization and a departed project with nothing owned.
    p1.alertConfigs.ghost = { pendingCreate: { runId: 'r0', at: '2026-01-01T00:00:00Z' } } as never;
    p1.alertConfigs.gone = { id: 'ffffffffffffffffffffffff', appliedDigest: 'x' } as never;
    p1.driftStreaks = { disk: { runs: 2, since: '2026-01-01T00:00:00Z' } } as never;
    stored.organizations = { [ORG]: { lastReconciledAt: '2026-01-01T00:00:00Z' } };
    stored.projects['5e2211c17a3e5a48f5497dff'] = { alertConfigs: {}, lastReconciledAt: '2026-01-01T00:00:00Z' };
    h.state.text = JSON.stringify(stored);
    const before = JSON.parse(h.state.text) as typeof stored;
    setP2(h, { alertConfigs: [{ ...(p2Alerts()[0] as Record<string, unknown>), enabled: false }] });
    const report = await h.run('apply', { projects: [P2] });
    expect(report.results.map((r) => r.status)).toContain('applied');
    const after = h.state.state;
    expect(JSON.stringify(after?.projects[P1])).toBe(JSON.stringify(before.projects[P1]));
    expect(JSON.stringify(after?.organizations)).toBe(JSON.stringify(before.organizations));
    expect(after?.projects['5e2211c17a3e5a48f5497dff']).toEqual(before.projects['5e2211c17a3e5a48f5497dff']);
  });
});

describe('an unknown project in the selection', () => {
  it('says so when the id is an organization of the desired state', async () => {
    const h = scenario();
    h.source.files.set(
      'org.yaml',
      `apiVersion: opsman-gitops/v1\nkind: Organization\nmetadata:\n  name: acme\n  orgId: ${ORG}\nspec:\n  defaultServerType: PRODUCTION_SERVER\n`,
    );
    const error = await h.run('plan', { projects: [ORG], projectsField: '--project' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNKNOWN_PROJECT' });
    expect((error as Error).message).toContain(
      `; ${ORG} is the organization acme: a selection takes project ids only, and an organization is planned by a run without one; nothing was read or written`,
    );
    expect(h.world.calls).toEqual([]);
  });

  // The core does not know what its caller calls the selection: the CLI says --project, the Lambda its event field.
  it.each([
    [{ projectsField: '--project' }, ' (--project)'],
    [{ projectsField: 'the event\'s "projects"' }, ' (the event\'s "projects")'],
    [{}, ''],
  ])('names the selection as the caller asks (%j)', async (naming, quoted) => {
    const h = scenario();
    const error = await h.run('plan', { projects: ['0000000000000000000000ff'], ...naming }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^project 0000000000000000000000ff asked for${quoted.replace(/[()]/g, '\\$&')} but not in the desired state`,
      ),
    );
  });

  it('names each known project by its id and metadata.name, so the one meant can be found', async () => {
    const h = scenario();
    const error = await h.run('plan', { projects: ['5e2211c17a3e5a48f5497de9'] }).catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      `but not in the desired state, which has 2: ${P1} (payments-prod), ${P2} (payments-staging); nothing was read`,
    );
  });

  it('lists at most five unknown ids, then counts the rest', async () => {
    const h = scenario();
    const ids = Array.from({ length: 1000 }, (_, i) => i.toString(16).padStart(24, 'f'));
    const error = await h.run('plan', { projects: ids }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNKNOWN_PROJECT' });
    expect((error as Error).message).toContain(`projects ${ids.slice(0, 5).join(', ')} and 995 more asked for but`);
    expect(h.world.calls).toEqual([]);
  });
});

describe('a project file removed from the desired state', () => {
  it('prunes nothing, warns on every full plan with what it owns, and the documented way out deletes them', async () => {
    const h = scenario();
    await h.run('apply');
    const live = () => h.world.groups.get(P1)?.alerts.size ?? 0;
    const ownedBefore = live();
    h.source.files.delete('p1.yaml');
    const warning = `project ${P1} is no longer in the desired state; the 2 alert config(s) it owns (disk, no-primary) are left alone in Ops Manager. To delete them, restore its file with prune: true and no alertConfigs, alertTemplates or protect, apply with --allow-empty (and --max-deletes when they are more than Settings.prune.maxDeletes), then remove the file; to keep them but stop managing them (and this warning), restore its file with no alertConfigs or alertTemplates and their keys in spec.release, apply, then remove the file`;
    const plan = await h.run('plan');
    expect(plan.warnings).toEqual([warning]);
    expect(plan.plan.changes.some((c) => c.target.id === P1)).toBe(false);
    expect((await h.run('apply')).warnings).toEqual([warning]);
    expect(live()).toBe(ownedBefore);
    // A run limited to other projects does not speak for the whole desired state.
    expect((await h.run('plan', { projects: [P2] })).warnings).toBeUndefined();

    setP1(h, { alertConfigs: [], prune: true });
    const emptied = await h.run('apply', { overrides: { allowEmpty: true } });
    expect(actions(emptied).sort()).toEqual(['disk:delete', 'no-primary:delete']);
    h.source.files.delete('p1.yaml');
    expect((await h.run('plan')).warnings).toBeUndefined();
    expect(live()).toBe(ownedBefore - 2);
  });
});
