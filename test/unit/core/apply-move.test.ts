// Scenario: an alert config moved from one project's file to another's in one commit. Apply runs every delete after
// every create and update (a second wave, as Argo CD's PruneLast), and holds the old project's delete while the new
// copy could not be created (a failed POST, or a create blocked at plan): the config never vanishes from both.
import { describe, expect, it } from 'vitest';
import { P1, P2, p1Alerts, p2Alerts, scenario, setP1, setP2 } from './scenario-fixture.ts';

/** Moves `disk` from project 1 to project 2 (with `extra` notifications on the new copy). */
function moveDisk(h: ReturnType<typeof scenario>, extra: Record<string, unknown>[] = []): void {
  const disk = p1Alerts().find((a) => a.key === 'disk') as Record<string, unknown>;
  setP1(h, { alertConfigs: p1Alerts().filter((a) => a.key !== 'disk') });
  setP2(h, {
    alertConfigs: [...p2Alerts(), { ...disk, notifications: [...(disk.notifications as unknown[]), ...extra] }],
  });
}

/** The next POST of an alert config in `project` is refused before it reaches Ops Manager. */
function failNextCreateIn(h: ReturnType<typeof scenario>, project: string): void {
  h.world.faults.push({
    method: 'createAlertConfig',
    groupId: project,
    times: 1,
    phase: 'before',
    error: () => new Error('refused by a test fault'),
  });
}

const diskIn = (h: ReturnType<typeof scenario>, project: string) =>
  [...(h.world.groups.get(project)?.alerts.values() ?? [])].filter(
    (a) => (a as { eventTypeName?: string }).eventTypeName === 'OUTSIDE_METRIC_THRESHOLD',
  ).length;

describe('a config moved between projects', () => {
  it('is deleted from the old project only after its create in the new one succeeded', async () => {
    const h = scenario();
    await h.run('apply');
    moveDisk(h);
    failNextCreateIn(h, P2);
    const first = await h.run('apply');
    expect(first.results.find((r) => r.change.key === 'disk' && r.change.action === 'create')?.status).toBe('failed');
    expect(first.results.find((r) => r.change.key === 'disk' && r.change.action === 'delete')).toMatchObject({
      status: 'skipped',
      message: expect.stringContaining('"disk" was not created in payments-staging this run'),
    });
    expect([diskIn(h, P1), diskIn(h, P2)]).toEqual([1, 0]);

    const second = await h.run('apply');
    expect(
      second.results
        .filter((r) => r.change.key === 'disk')
        .map((r) => `${r.change.action}:${r.status}`)
        .sort(),
    ).toEqual(['create:applied', 'delete:applied']);
    expect([diskIn(h, P1), diskIn(h, P2)]).toEqual([0, 1]);
  });

  it('stays in the old project while the new copy is blocked at plan (a team missing in that organization)', async () => {
    const h = scenario();
    await h.run('apply');
    moveDisk(h, [{ typeName: 'TEAM', teamId: '6a1f0000000000000000dead', intervalMin: 60, delayMin: 0 }]);
    const report = await h.run('apply');
    expect(report.plan.changes.find((c) => c.key === 'disk' && c.target.id === P2)?.action).toBe('blocked');
    // Known at plan: the old project's delete is shown blocked with why, and the apply has nothing to skip.
    expect(report.plan.changes.find((c) => c.key === 'disk' && c.target.id === P1)).toMatchObject({
      action: 'blocked',
      reason: expect.stringContaining('"disk" was not created in payments-staging this run'),
    });
    expect(report.results.filter((r) => r.change.key === 'disk')).toEqual([]);
    expect(diskIn(h, P1)).toBe(1);
  });

  it('a saved plan of an earlier version that still shows that delete: the apply holds it', async () => {
    const h = scenario();
    await h.run('apply');
    moveDisk(h, [{ typeName: 'TEAM', teamId: '6a1f0000000000000000dead', intervalMin: 60, delayMin: 0 }]);
    const planned = await h.run('plan');
    // As an earlier version planned it: the delete not gated by the blocked create.
    const older = {
      ...planned.plan,
      changes: planned.plan.changes.map((c) =>
        c.key === 'disk' && c.target.id === P1 ? { ...c, action: 'delete' as const, reason: 'key left git' } : c,
      ),
    };
    const report = await h.run('apply', { savedPlan: older });
    expect(report.results.find((r) => r.change.key === 'disk' && r.change.action === 'delete')).toMatchObject({
      status: 'skipped',
      message: expect.stringContaining('"disk" was not created in payments-staging this run'),
    });
    expect(diskIn(h, P1)).toBe(1);
  });
});

describe('the second wave of deletes, as the report and the progress show it', () => {
  /** The targets of `results` in order, consecutive repeats collapsed: each project once when grouped. */
  const runs = (report: { results: { change: { target: { name: string } } }[] }) =>
    report.results.map((r) => r.change.target.name).filter((name, i, all) => i === 0 || all[i - 1] !== name);

  it("lists each project's results together, its deletes after its own creates and updates", async () => {
    const h = scenario();
    await h.run('apply');
    moveDisk(h);
    // payments-prod also updates no-primary: a write in the first wave and a delete in the second.
    const edited = p1Alerts()
      .filter((a) => a.key !== 'disk')
      .map((a) => (a.key === 'no-primary' ? { ...a, eventTypeName: 'NO_PRIMARY', enabled: false } : a));
    setP1(h, { alertConfigs: edited });
    const report = await h.run('apply');
    const prod = report.results.filter((r) => r.change.target.id === P1).map((r) => r.change.action);
    expect(prod).toEqual(['disable', 'delete']);
    expect(runs(report)).toEqual(['payments-prod', 'payments-staging']);
  });

  it('counts a project whose deletes were all held as done: the progress reaches its total', async () => {
    const h = scenario();
    await h.run('apply');
    moveDisk(h);
    failNextCreateIn(h, P2);
    h.reporter.messages.length = 0;
    await h.run('apply');
    const counts = h.reporter.messages
      .map((m) => /\((\d+)\/(\d+)\)$/.exec(m))
      .filter((m) => m !== null && /^(applied|held) /.test(m.input))
      .map((m) => `${m?.[1]}/${m?.[2]}`);
    expect(counts.at(-1)).toBe('2/2');
  });
});
