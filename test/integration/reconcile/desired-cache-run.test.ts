// Scenario: over real HTTP, runReconcile with the filesystem desired-state cache: the first plan misses, the second hits and plans identically, an edit misses again, apply and archive hit.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { desiredCacheDir, FsDesiredStateCache } from '../../../lambdas/adapters/local/desired-cache-fs.ts';
import type { Plan, RunReport } from '../../../lambdas/core/model.ts';
import type { RunDependencies } from '../../../lambdas/core/run-types.ts';
import { EmulatorWorld } from '../../helpers/reconcile-emulator.ts';

let world: EmulatorWorld;
beforeEach(async () => {
  world = await EmulatorWorld.start();
});
afterEach(async () => {
  await world.close();
});

function withCache(): RunDependencies {
  return { ...world.deps(), desiredCache: new FsDesiredStateCache(desiredCacheDir(join(world.dir, 'state'))) };
}

/** The plan without what differs by run (id, time). */
function comparable(plan: Plan): Omit<Plan, 'runId' | 'createdAt'> {
  const { runId: _runId, createdAt: _createdAt, ...rest } = plan;
  return rest;
}

describe('runReconcile with a desired-state cache', () => {
  it('reports miss then hit, with identical plans; reports off without a cache', async () => {
    const first = await world.run('plan', {}, withCache());
    const second = await world.run('plan', {}, withCache());
    const uncached = await world.run('plan');
    expect(first.desiredCache).toBe('miss');
    expect(second.desiredCache).toBe('hit');
    expect(uncached.desiredCache).toBe('off');
    expect(second.plan.changes.length).toBeGreaterThan(0);
    expect(comparable(second.plan)).toStrictEqual(comparable(first.plan));
    expect(comparable(uncached.plan)).toStrictEqual(comparable(first.plan));
  });

  it('an edited desired state misses and plans the edit; apply, observe and archive then hit', async () => {
    await world.run('plan', {}, withCache());
    await world.editDesired('projects/search.yaml', (text) => `${text}\n# a comment changes the bytes\n`);
    const edited = await world.run('plan', {}, withCache());
    expect(edited.desiredCache).toBe('miss');
    const reports: RunReport[] = [];
    for (const command of ['apply', 'observe', 'archive'] as const)
      reports.push(await world.run(command, {}, withCache()));
    expect(reports.map((r) => r.desiredCache)).toEqual(['hit', 'hit', 'hit']);
    expect(reports[0]?.summary.failed).toBe(0);
    expect(reports[0]?.plan.desired).toStrictEqual(edited.plan.desired);
  });
});
