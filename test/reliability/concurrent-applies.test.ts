// Scenario: two applies start at once on the same state; only one writes, the other fails fast on the lease (or, told to wait, finds nothing left to do); nothing is duplicated.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { injectDrift } from '../../bench/drift.ts';
import { LeaseHeldError } from '../../lambdas/core/errors.ts';
import { type Harness, pendingChanges, startHarness } from '../helpers/reliability-harness.ts';

const CREATES = 'POST /groups/{groupId}/alertConfigs';

describe('two applies at once', () => {
  let h: Harness;
  // A fresh world for every test: nothing applied yet, an empty request log, no state.
  beforeEach(async () => {
    h = await startHarness({ projects: 3, alerts: 8 });
  });
  afterEach(async () => {
    await h?.close();
  });

  it('lets exactly one write when the other fails fast', async () => {
    // Slow creates keep the first apply inside its lease while the second one tries to take it.
    await h.admin.fault({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 20, times: 1000 });
    const [a, b] = await Promise.all([
      h.run({ command: 'apply', leaseWaitMs: 0 }),
      h.run({ command: 'apply', leaseWaitMs: 0 }),
    ]);
    const refused = [a, b].filter((r) => r.error !== undefined);
    const ran = [a, b].filter((r) => r.report !== undefined);
    expect(refused).toHaveLength(1);
    expect(ran).toHaveLength(1);
    const error = refused[0]?.error;
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect(error instanceof LeaseHeldError ? error.holder.owner : '').toMatch(/^test:/);
    // The refused run wrote nothing.
    expect(refused[0]?.counts.byMethod.POST ?? 0).toBe(0);
    expect((await h.admin.requests()).byRoute[CREATES]).toBe(24);
    expect(await h.inventory()).toEqual([]);
  });

  it('lets the waiting one run after the holder, with nothing left to write', async () => {
    // A converged world with its state saved.
    const converge = await h.run({ command: 'apply' });
    expect(converge.error).toBeUndefined();
    expect(converge.counts.byMethod.POST).toBe(24);
    expect(await h.inventory()).toEqual([]);
    // Someone disables two owned configs: there is work for exactly one apply.
    await injectDrift(
      h.world,
      {
        targets: [
          [0, 0],
          [1, 0],
        ],
        projects: 2,
      },
      { baseUrl: h.url, stateDir: h.paths.stateDir, concurrency: 2 },
    );
    await h.admin.clearRequests();
    const [a, b] = await Promise.all([
      h.run({ command: 'apply', leaseWaitMs: 20_000 }),
      h.run({ command: 'apply', leaseWaitMs: 20_000 }),
    ]);
    expect(a.error).toBeUndefined();
    expect(b.error).toBeUndefined();
    // One of them re-enabled both; the other, once it had the lease, planned nothing.
    const patches = [a, b].map((r) => r.counts.byMethod.PATCH ?? 0).sort();
    expect(patches).toEqual([0, 2]);
    const pending = [a, b].map((r) => Object.keys(pendingChanges(r.report)).length).sort();
    expect(pending[0]).toBe(0);
    expect((await h.admin.requests()).byRoute['PATCH /groups/{groupId}/alertConfigs/{alertConfigId}']).toBe(2);
    expect(await h.inventory()).toEqual([]);
  });
});
