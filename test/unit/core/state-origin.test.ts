// Scenario: a state dir used against two Ops Managers (a second installation, or the same one under a new address): apply records the base URL, and a run against another says so in its plan without refusing.
import { describe, expect, it } from 'vitest';
import { fingerprintKeyCheck } from '../../../lambdas/core/fingerprint.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { otherOpsManagerWarning } from '../../../lambdas/core/state-origin.ts';
import { scenario } from './scenario-fixture.ts';

const A = 'https://opsman-a.example:8443/api/public/v1.0';
const B = 'https://opsman-b.example:8443/api/public/v1.0';
/** A state last applied against `baseUrl`. */
const stateOf = (baseUrl: string): ReconcileState => ({
  formatVersion: 1,
  updatedAt: 'x',
  projects: {},
  opsManager: { baseUrl },
});
const other = (recorded: string, now: string) => otherOpsManagerWarning(stateOf(recorded), now);

describe('the Ops Manager a state was applied against', () => {
  it('apply records it; a plan against another base URL warns naming both; apply there records the new one', async () => {
    const h = scenario();
    h.opsManagerUrl = A;
    await h.run('apply');
    expect(h.state.state?.opsManager).toEqual({ baseUrl: A });
    expect((await h.run('plan')).plan.warnings ?? []).toEqual([]);

    h.opsManagerUrl = B;
    const moved = await h.run('plan');
    expect(moved.plan.warnings?.[0]).toBe(other(A, B));
    expect(moved.plan.warnings?.[0]).toBe(
      `the state was last applied against ${A}, not ${B}: if that is another Ops Manager installation, give this one its own state (--state-dir; on AWS its own stack), since ownership records are per installation (any project of the other shows below as no longer in the desired state); if it is this installation under a new address, the next apply records the new one`,
    );
    // A plan writes no state: the warning stays until an apply against the new address.
    expect(h.state.state?.opsManager).toEqual({ baseUrl: A });
    await h.run('apply');
    expect(h.state.state?.opsManager).toEqual({ baseUrl: B });
    expect((await h.run('plan')).plan.warnings ?? []).toEqual([]);
  });

  it('a state written before it was recorded, or a run that does not know its URL, warns nothing', async () => {
    const h = scenario();
    await h.run('apply');
    expect(h.state.state?.opsManager).toBeUndefined();
    h.opsManagerUrl = B;
    expect((await h.run('plan')).plan.warnings ?? []).toEqual([]);
    expect(otherOpsManagerWarning(null, B)).toBeUndefined();
    expect(otherOpsManagerWarning(stateOf(A), undefined)).toBeUndefined();
  });

  it('a save that meets another writer records this run URL on the merged state', async () => {
    const h = scenario();
    h.opsManagerUrl = A;
    await h.run('apply');
    const write = h.state.write.bind(h.state);
    let raced = false;
    h.state.write = async (state, version) => {
      if (!raced) {
        // Another run wrote meanwhile: this write fails on the version, and the retry merges onto the other's state.
        raced = true;
        h.state.text = JSON.stringify({ ...h.state.state, updatedAt: 'by another run' });
      }
      return write(state, version);
    };
    h.opsManagerUrl = B;
    await h.run('apply');
    expect(raced).toBe(true);
    expect(h.state.state?.opsManager).toEqual({ baseUrl: B });
  });

  it('a save that meets another writer records this run fingerprint key on the merged state', async () => {
    const h = scenario();
    await h.run('apply');
    const old = fingerprintKeyCheck(h.key);
    expect(h.state.state?.fingerprintKeyCheck).toBe(old);
    const write = h.state.write.bind(h.state);
    let raced = false;
    h.state.write = async (state, version) => {
      if (!raced) {
        raced = true;
        h.state.text = JSON.stringify({ ...h.state.state, updatedAt: 'by another run' });
      }
      return write(state, version);
    };
    h.key.fill(9); // the key file lost: this run has another key
    await h.run('apply');
    expect(raced).toBe(true);
    expect(h.state.state?.fingerprintKeyCheck).toBe(fingerprintKeyCheck(h.key));
    expect(h.state.state?.fingerprintKeyCheck).not.toBe(old);
  });
});
