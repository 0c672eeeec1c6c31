// Scenario: runReconcile with a fixed clock and change windows in Settings: an allow window limited to one project
// holds it outside its hours (the other is written), the hold lifts when the clock enters the window, observe takes
// no notice of windows, and ignoreWindows writes a held target with a warning.
import { describe, expect, it } from 'vitest';
import { P1, P2, scenario } from './scenario-fixture.ts';

// 2026-03-01 is a Sunday; the window opens Monday 09:00 in Paris (08:00Z, CET).
const SUNDAY = Date.parse('2026-03-01T10:00:00Z');
const MONDAY_OPEN = Date.parse('2026-03-02T08:30:00Z');

const WINDOWS = {
  changeWindows: [
    {
      name: 'staging-hours',
      kind: 'allow',
      days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
      start: '09:00',
      end: '17:00',
      timeZone: 'Europe/Paris',
      projects: [P2],
    },
  ],
};

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
});
