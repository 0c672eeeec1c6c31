// Scenario: a saved plan records the state version it was made against and is refused once another run wrote the
// state, even where the Ops Manager targets it covers did not move (Terraform's "Saved plan is stale").
import { describe, expect, it } from 'vitest';
import { SavedPlanStateChangedError } from '../../../lambdas/core/errors.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { assertStateUnchanged } from '../../../lambdas/core/saved-plan.ts';
import { plan } from '../../helpers/cli-plans.ts';
import { P1, P2, scenario } from './scenario-fixture.ts';

/** A JSON round trip: what a saved file gives back. */
const roundTrip = (p: Plan): Plan => JSON.parse(JSON.stringify(p)) as Plan;

describe('assertStateUnchanged', () => {
  it('passes when the state held is the version the plan was made against (none included)', () => {
    expect(() => assertStateUnchanged(plan([], { stateVersion: 'v1' }), { version: 'v1' })).not.toThrow();
    expect(() => assertStateUnchanged(plan([], { stateVersion: null }), { version: null })).not.toThrow();
  });

  it('refuses another version, a state since stored or removed, and a plan that records none', () => {
    const lastRun = { runId: 'run-7', finishedAt: '2026-11-21T10:05:00.000Z' };
    expect(() => assertStateUnchanged(plan([], { stateVersion: 'v1' }), { version: 'v2', lastRun })).toThrow(
      'the saved plan is stale: the state changed after the plan was made (last written by run run-7 at 2026-11-21T10:05:00.000Z), so the plan can no longer be applied; nothing was written: run plan again',
    );
    expect(() => assertStateUnchanged(plan([], { stateVersion: null }), { version: 'v1' })).toThrow(
      SavedPlanStateChangedError,
    );
    expect(() => assertStateUnchanged(plan([], { stateVersion: 'v1' }), { version: null })).toThrow(
      /state changed after the plan was made \(no state is stored now\)/,
    );
    // Absent is not null: a plan that records nothing cannot be shown to be fresh.
    expect(() => assertStateUnchanged(plan([]), { version: null })).toThrow(SavedPlanStateChangedError);
    let caught: unknown;
    try {
      assertStateUnchanged(plan([], { stateVersion: 'v1' }), { version: 'v2' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'SAVED_PLAN_STATE_CHANGED', plannedVersion: 'v1', currentVersion: 'v2' });
  });
});

describe('saved plans and the state version', () => {
  it('a plan records the version of the state it was made against: null before the first apply', async () => {
    const h = scenario();
    expect((await h.run('plan')).plan.stateVersion).toBeNull();
    await h.run('apply');
    const { version } = await h.state.read();
    expect(version).not.toBeNull();
    expect((await h.run('plan')).plan.stateVersion).toBe(version);
  });

  it('is refused when another apply wrote the state since, though its own targets did not move: nothing read or written', async () => {
    const h = scenario();
    // Saved for payments-prod only; then an apply of payments-staging alone records its configs in the state.
    const saved = roundTrip((await h.run('plan', { mode: 'apply', projects: [P1] })).plan);
    expect(saved.changes.some((c) => c.action === 'create')).toBe(true);
    await h.run('apply', { projects: [P2] });
    const stateBefore = h.state.text;
    const stateWrites = h.state.writes;
    const writes = h.world.writes().length;
    const calls = h.world.apiCalls().total;

    const refused = h.run('apply', { savedPlan: saved });
    await expect(refused).rejects.toThrow(SavedPlanStateChangedError);
    await expect(refused).rejects.toThrow(
      /^the saved plan is stale: the state changed after the plan was made \(last written by run run-2 at [^)]+\), so the plan can no longer be applied; nothing was written: run plan again$/,
    );
    expect(h.world.writes().length).toBe(writes);
    // Refused before the live re-read: not one request to Ops Manager.
    expect(h.world.apiCalls().total).toBe(calls);
    expect(h.state.text).toBe(stateBefore);
    expect(h.state.writes).toBe(stateWrites);
    expect(h.state.lease).toBeNull();
  });

  it('a plan made after that apply (its own run the only writer) still applies', async () => {
    const h = scenario();
    await h.run('apply', { projects: [P2] });
    const saved = roundTrip((await h.run('plan', { mode: 'apply', projects: [P1] })).plan);
    const report = await h.run('apply', { savedPlan: saved });
    expect(report.results.filter((r) => r.status === 'applied').length).toBe(2);
  });

  it('refuses a plan that records no state version (an earlier version made it), or not a string or null', async () => {
    const h = scenario();
    const { stateVersion: _dropped, ...older } = roundTrip((await h.run('plan', { mode: 'apply' })).plan);
    const writes = h.world.writes().length;
    await expect(h.run('apply', { savedPlan: older as Plan })).rejects.toThrow(
      'the saved plan does not record the state version it was made against (it was made by an earlier version of opsman-gitops); make a new plan',
    );
    await expect(h.run('apply', { savedPlan: { ...older, stateVersion: 7 } as never })).rejects.toThrow(
      'the saved plan has a stateVersion that is neither a string nor null',
    );
    expect(h.world.writes().length).toBe(writes);
    expect(h.state.writes).toBe(0);
  });
});
