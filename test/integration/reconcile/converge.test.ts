// Scenario: the example desired state against the emulator over HTTP: one apply converges, the next plans are empty, repeated applies write nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmulatorWorld } from '../../helpers/reconcile-emulator.ts';

let world: EmulatorWorld;
beforeEach(async () => {
  world = await EmulatorWorld.start();
});
afterEach(async () => {
  await world.close();
});

function pending(report: { plan: { changes: { key: string; action: string; target: { name: string } }[] } }): string[] {
  return report.plan.changes.filter((c) => c.action !== 'noop').map((c) => `${c.target.name}/${c.key}:${c.action}`);
}

describe('convergence against the emulator', () => {
  it('one apply converges; a second plan is empty; three applies write nothing after the first', async () => {
    const first = await world.run('apply');
    expect(first.failures).toEqual([]);
    expect(
      first.results
        .filter((r) => r.status !== 'applied')
        .map((r) => `${r.change.target.name}/${r.change.key}:${r.status}:${r.message}`),
    ).toEqual([]);
    expect(first.summary.applied).toBeGreaterThan(5);

    const plan = await world.run('plan');
    expect(plan.failures).toEqual([]);
    // Only the example's deliberate, unenforced audit-log drift remains (auditLogRotation.enforce: false).
    expect(pending(plan)).toEqual(['search-prod/auditLogRotation:drift']);

    await world.admin('DELETE', 'requests');
    for (let i = 0; i < 3; i++) {
      const again = await world.run('apply');
      expect(again.failures).toEqual([]);
    }
    expect(await world.writes()).toEqual([]);
  });
});
