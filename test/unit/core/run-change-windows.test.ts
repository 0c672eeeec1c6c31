// Scenario: runReconcile with a fixed clock and change windows in Settings: an allow window limited to one project
// holds it outside its hours (the other is written), the hold lifts when the clock enters the window, observe takes
// no notice of windows, and ignoreWindows writes a held target with a warning (none for a target its mode keeps
// unwritten); windows are evaluated when the writes start (after a --lease-wait), and the plan's note for a held
// plan-mode target stays its mode's; a saved plan is held by the windows of the desired state when its writes start
// (its recorded ones when that cannot be loaded, with a warning).
import { describe, expect, it } from 'vitest';
import { renderPlanText } from '../../../lambdas/core/render/plan-text.ts';
import { settingsYaml } from '../../helpers/reconcile-world.ts';
import { P1, P2, STAGING_HOURS, SUNDAY, scenario } from './scenario-fixture.ts';

// The window opens Monday 09:00 in Paris (08:00Z, CET).
const MONDAY_OPEN = Date.parse('2026-03-02T08:30:00Z');
const WINDOWS = STAGING_HOURS;

describe('change windows in runReconcile', () => {
  it('holds the project outside its allow window and writes the others; writes it once the window is open', async () => {
    const h = scenario({}, {}, WINDOWS);
    h.clock.ms = SUNDAY;
    const held = await h.run('apply');
    expect(h.world.writes(P1).length).toBeGreaterThan(0);
    expect(h.world.writes(P2)).toEqual([]);
    expect(held.plan.windowHolds).toEqual({
      [`project:${P2}`]: { kind: 'allow', windows: ['staging-hours'], until: '2026-03-02T08:00:00.000Z' },
    });
    expect(held.heldByWindows?.map((x) => [x.target.id, x.kind, x.until, x.writes > 0])).toEqual([
      [P2, 'allow', '2026-03-02T08:00:00.000Z', true],
    ]);
    const skipped = held.results.filter((r) => r.change.target.id === P2);
    expect(skipped.length).toBeGreaterThan(0);
    for (const r of skipped) {
      expect(r.status).toBe('skipped');
      expect(r.message).toBe('held outside allow window staging-hours until 2026-03-02T08:00:00.000Z: not written');
    }

    h.clock.ms = MONDAY_OPEN;
    const open = await h.run('apply');
    expect(open.heldByWindows).toBeUndefined();
    expect(open.plan.windowHolds).toBeUndefined();
    expect(h.world.writes(P2).length).toBeGreaterThan(0);
  });

  it('observe records no hold (it never writes)', async () => {
    const h = scenario({}, {}, WINDOWS);
    h.clock.ms = SUNDAY;
    const observed = await h.run('observe');
    expect(observed.plan.windowHolds).toBeUndefined();
    expect(observed.plan.changeWindows).toBeUndefined();
  });

  it('ignoreWindows writes the held project and warns, naming the window', async () => {
    const h = scenario({}, {}, WINDOWS);
    h.clock.ms = SUNDAY;
    const report = await h.run('apply', { ignoreWindows: true });
    expect(h.world.writes(P2).length).toBeGreaterThan(0);
    expect(report.heldByWindows).toBeUndefined();
    expect(report.warnings).toContain(
      `CHANGE WINDOW IGNORED (--ignore-windows): project:${P2} held outside allow window staging-hours until 2026-03-02T08:00:00.000Z; written anyway`,
    );
  });

  it('ignoreWindowsBy names the override in the warning and the report (a manual Lambda event, not --ignore-windows)', async () => {
    const h = scenario({}, {}, WINDOWS);
    h.clock.ms = SUNDAY;
    const by = 'manual event "ignoreWindows": true';
    const report = await h.run('apply', { ignoreWindows: true, ignoreWindowsBy: by });
    expect(h.world.writes(P2).length).toBeGreaterThan(0);
    expect(report.windowsIgnoredBy).toBe(by);
    expect((report.warnings ?? []).filter((w) => w.startsWith('CHANGE WINDOW IGNORED'))).toEqual([
      `CHANGE WINDOW IGNORED (${by}): project:${P2} held outside allow window staging-hours until 2026-03-02T08:00:00.000Z; written anyway`,
    ]);
    // Unnamed, the override is the CLI's; a run that does not lift windows records none.
    expect((await scenario({}, {}, WINDOWS).run('apply', { ignoreWindows: true })).windowsIgnoredBy).toBe(
      '--ignore-windows',
    );
    expect((await scenario({}, {}, WINDOWS).run('apply')).windowsIgnoredBy).toBeUndefined();
    expect((await scenario({}, {}, WINDOWS).run('plan', { ignoreWindows: true })).windowsIgnoredBy).toBeUndefined();
  });

  // A freeze of every target from 10:30Z; the harness clock starts at 10:00Z.
  const FREEZE = {
    changeWindows: [{ name: 'freeze', kind: 'deny', from: '2026-03-01T10:30:00Z', until: '2026-03-02T00:00:00Z' }],
  };

  it('ignoreWindows warns "written anyway" only for targets it writes, not one its spec.mode keeps at plan', async () => {
    const h = scenario({}, { mode: 'plan' }, FREEZE);
    h.clock.ms = Date.parse('2026-03-01T11:00:00Z');
    const report = await h.run('apply', { ignoreWindows: true });
    expect(h.world.writes(P1).length).toBeGreaterThan(0);
    expect(h.world.writes(P2)).toEqual([]);
    const ignored = (report.warnings ?? []).filter((w) => w.startsWith('CHANGE WINDOW IGNORED'));
    expect(ignored).toEqual([
      `CHANGE WINDOW IGNORED (--ignore-windows): project:${P1} held by change window freeze (deny) until 2026-03-02T00:00:00.000Z; written anyway`,
    ]);
  });

  it('a --mode plan apply with ignoreWindows writes nothing and says nothing was written anyway', async () => {
    const h = scenario({}, {}, FREEZE);
    h.clock.ms = Date.parse('2026-03-01T11:00:00Z');
    const report = await h.run('apply', { ignoreWindows: true, mode: 'plan' });
    expect(h.world.writes(P1)).toEqual([]);
    expect((report.warnings ?? []).filter((w) => w.startsWith('CHANGE WINDOW IGNORED'))).toEqual([]);
  });

  it('evaluates the windows when the writes start: a run that waited for the lock into a freeze is held', async () => {
    const h = scenario({}, {}, FREEZE);
    // Another run holds the lock until 11:00Z; this one starts at 10:00Z, before the freeze, and may wait two hours.
    h.state.lease = { owner: 'other', runId: 'other-run', expiresAt: '2026-03-01T11:00:00.000Z', token: 'other' };
    const report = await h.run('apply', { leaseWaitMs: 2 * 3_600_000 });
    expect(h.clock.ms).toBeGreaterThanOrEqual(Date.parse('2026-03-01T11:00:00Z'));
    expect(h.world.writes(P1)).toEqual([]);
    expect(h.world.writes(P2)).toEqual([]);
    expect(report.heldByWindows?.map((x) => [x.target.id, x.kind, x.until])).toEqual([
      [P1, 'deny', '2026-03-02T00:00:00.000Z'],
      [P2, 'deny', '2026-03-02T00:00:00.000Z'],
    ]);
  });

  it('a saved plan is held by a freeze committed after it was made, and a plain apply by the freeze it plans with', async () => {
    const h = scenario();
    h.clock.ms = Date.parse('2026-03-01T11:00:00Z');
    const planned = await h.run('plan', { planForApply: true });
    expect(planned.plan.changeWindows).toBeUndefined();
    h.source.files.set('settings.yaml', settingsYaml({ mode: 'apply', ...FREEZE }));
    const held = await h.run('apply', { savedPlan: JSON.parse(JSON.stringify(planned.plan)) });
    expect(h.world.writes()).toEqual([]);
    expect(held.heldByWindows?.map((x) => [x.target.id, x.windows])).toEqual([
      [P1, ['freeze']],
      [P2, ['freeze']],
    ]);
    expect(held.plan.changeWindows?.map((w) => w.name)).toEqual(['freeze']);
    expect(held.warnings).toContain(
      "change windows read from the current desired state: 1 differ from the saved plan's (added: freeze); the current ones decide what is held",
    );
    // The unchanged path: an apply that plans reads the freeze with the desired state it plans from, and no notice.
    const plain = await h.run('apply');
    expect(plain.heldByWindows?.length).toBe(2);
    expect((plain.warnings ?? []).filter((w) => w.includes('change windows read'))).toEqual([]);
  });

  it('a saved plan whose desired state cannot be read again is held by its recorded windows, with a warning', async () => {
    const h = scenario({}, {}, FREEZE);
    h.clock.ms = Date.parse('2026-03-01T10:00:00Z');
    const planned = await h.run('plan', { planForApply: true });
    h.clock.ms = Date.parse('2026-03-01T11:00:00Z');
    h.source.files.set('settings.yaml', 'kind: [');
    const held = await h.run('apply', { savedPlan: JSON.parse(JSON.stringify(planned.plan)) });
    expect(h.world.writes()).toEqual([]);
    expect(held.heldByWindows?.length).toBe(2);
    expect((held.warnings ?? []).find((w) => w.startsWith('CHANGE WINDOWS NOT RE-READ'))).toMatch(
      /^CHANGE WINDOWS NOT RE-READ: the desired state could not be loaded \(.+\): the saved plan's recorded windows were used$/,
    );
  });

  it("a held target whose spec.mode is plan keeps its mode's note (the window closing will not write it)", async () => {
    const h = scenario({}, { mode: 'plan' }, FREEZE);
    h.clock.ms = Date.parse('2026-03-01T11:00:00Z');
    const report = await h.run('apply');
    const text = renderPlanText(report.plan, { mode: 'apply' });
    expect(text).toContain(
      `Project payments-prod (${P1}) [mode plan: held by change window freeze (deny) until 2026-03-02T00:00:00.000Z: shown, not applied]`,
    );
    expect(text).toContain(`Project payments-staging (${P2}) [mode plan: shown, not applied]`);
  });

  it('warns of an allow window that ended (its project held for ever) and notes a deny window that ended', async () => {
    const ended = {
      changeWindows: [
        {
          name: 'migration-slot',
          kind: 'allow',
          from: '2026-02-01T00:00:00Z',
          until: '2026-02-02T00:00:00Z',
          projects: [P2],
        },
        { name: 'old-freeze', kind: 'deny', from: '2025-12-18T00:00:00Z', until: '2026-01-04T08:00:00Z' },
      ],
    };
    const h = scenario({}, {}, ended);
    h.clock.ms = SUNDAY;
    const report = await h.run('apply');
    expect(h.world.writes(P2)).toEqual([]);
    expect(h.world.writes(P1).length).toBeGreaterThan(0);
    const forEver = `change window migration-slot (allow) ended at 2026-02-02T00:00:00.000Z and can never open again: it holds 1 target for ever (project:${P2}), nothing there is written; remove it from Settings.changeWindows, or extend its until`;
    const stale =
      'change window old-freeze (deny) ended at 2026-01-04T08:00:00.000Z: it holds nothing any more; remove it from Settings.changeWindows';
    expect(report.plan.warnings).toContain(forEver);
    expect(report.plan.notes).toEqual([stale]);
    // The report's warnings are what the Lambda logs and lists in its summary.
    expect(report.warnings).toContain(forEver);
    const text = renderPlanText(report.plan, { mode: 'apply' });
    expect(text).toContain(`Warning: ${forEver}`);
    expect(text).toContain(`Note: ${stale}`);
  });
});
