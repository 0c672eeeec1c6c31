// Scenario (a run killed or timed out mid-apply, then run again): over real HTTP with Digest against the emulator, the
// POSTs of one project are answered 503 (ambiguous: sent, answer lost), so its creates keep their pending-create
// markers and nothing lands. The next plan must say that a create of the key was interrupted, by which run, and that it
// did not land, rather than a bare "not in Ops Manager" that reads as a key never seen; its apply then creates each
// once, and the plan after it is clean.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { EmulatorWorld } from '../../helpers/reconcile-emulator.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';

let world: EmulatorWorld;
beforeEach(async () => {
  world = await EmulatorWorld.start();
});
afterEach(async () => {
  await world.close();
});

async function markers(): Promise<Record<string, string>> {
  const state = JSON.parse(await readFile(join(world.dir, 'state', 'state.json'), 'utf8')) as ReconcileState;
  const out: Record<string, string> = {};
  for (const [key, r] of Object.entries(state.projects[PAYMENTS_PROD]?.alertConfigs ?? {})) {
    if (r.pendingCreate !== undefined && r.id === undefined) out[key] = r.pendingCreate.runId;
  }
  return out;
}

describe('an interrupted create that did not land', { timeout: 60_000 }, () => {
  it('the next plan names the interrupted run; its apply creates each key once', async () => {
    await world.admin('POST', 'faults', {
      method: 'POST',
      path: `/groups/${PAYMENTS_PROD}/alertConfigs`,
      status: 503,
      times: 1000,
    });
    const first = await world.run('apply');
    expect(first.summary.failed).toBeGreaterThan(0);
    await world.admin('DELETE', 'faults');
    const left = await markers();
    const keys = Object.keys(left).sort();
    expect(keys.length).toBeGreaterThan(0);

    const plan = await world.run('plan');
    const creates = plan.plan.changes.filter((c) => c.target.id === PAYMENTS_PROD && c.action === 'create');
    expect(creates.map((c) => c.key).sort()).toEqual(keys);
    for (const c of creates) {
      // (a near miss among the unmanaged configs may follow, as on any create)
      expect(c.reason?.split('; unmanaged ')[0]).toBe(
        `not in Ops Manager: a create of this key was interrupted (run ${left[c.key]}) and did not land (no unmanaged config equals what it sent); it is created now`,
      );
    }
    const applied = await world.run('apply');
    expect(applied.summary.failed).toBe(0);
    expect(applied.results.filter((r) => r.change.action === 'create').length).toBe(keys.length);
    expect(await markers()).toEqual({});
    const after = await world.run('plan');
    expect(after.plan.changes.filter((c) => !['noop', 'drift'].includes(c.action))).toEqual([]);
  });
});
