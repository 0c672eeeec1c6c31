// Scenario: over real HTTP with Digest, an owned alert config whose key moves from alertConfigs to spec.release is
// released: the plan says release (never delete), apply writes nothing to Ops Manager, the config stays there, and
// the next plan lists it unmanaged with nothing else to do; with prune off it ends the blocked delete of every run.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunReport } from '../../../lambdas/core/model.ts';
import { renderPlanText } from '../../../lambdas/core/render/plan-text.ts';
import { EmulatorWorld, PROJECTS } from '../../helpers/reconcile-emulator.ts';
import { projectYaml } from '../../helpers/reconcile-world.ts';

let world: EmulatorWorld;
beforeEach(async () => {
  world = await EmulatorWorld.start();
});
afterEach(async () => {
  await world.close();
});

const PROD = PROJECTS.paymentsProd;
const ORG = '5e2211c17a3e5a48f5497de0';

function alert(key: string): Record<string, unknown> {
  return {
    key,
    eventTypeName: 'HOST_DOWN',
    notifications: [{ typeName: 'EMAIL', emailAddress: `${key}@acme.example`, intervalMin: 60, delayMin: 0 }],
  };
}

/** Replaces the example's projects with one controlled project. */
async function project(keys: string[], prune: boolean, release?: string[]): Promise<void> {
  await rm(join(world.desiredDir, 'projects'), { recursive: true, force: true });
  await writeFile(
    join(world.desiredDir, 'prod.yaml'),
    projectYaml({
      name: 'payments-prod',
      projectId: PROD,
      orgId: ORG,
      prune,
      alertConfigs: keys.map(alert),
      ...(release === undefined ? {} : { release }),
    }),
  );
}

/** Non-noop alert changes as `key:action`. */
function actions(report: RunReport): string[] {
  return report.plan.changes
    .filter((c) => c.kind === 'alertConfig' && c.action !== 'noop')
    .map((c) => `${c.key}:${c.action}`);
}

/** The live id of the config notifying `<key>@acme.example`, or undefined. */
async function liveId(key: string): Promise<string | undefined> {
  const live = await world.client().listAlertConfigs(PROD);
  return live.find((c) => c.notifications.some((n) => n.emailAddress === `${key}@acme.example`))?.id;
}

/** Releases `b` (owned, applied before) and checks everything a release promises; `blocked` is the plan before. */
async function releaseB(prune: boolean): Promise<void> {
  const id = await liveId('b');
  expect(id).toBeDefined();
  await project(['a'], prune, ['b']);
  const planned = await world.run('plan');
  expect(actions(planned)).toEqual(['b:release']);
  const text = renderPlanText(planned.plan);
  expect(text).toMatch(new RegExp(`^ {2}=> alertConfig "b" \\(id ${id}\\)$`, 'm'));
  expect(text).toContain('Plan: 0 to create, 0 to update, 0 to delete, 1 to release, 0 to adopt, 0 blocked,');

  // The request log sees this test's writes (the first apply's POSTs): an empty log after the release means none.
  expect((await world.writes()).length).toBeGreaterThan(0);
  await world.admin('DELETE', 'requests');
  const applied = await world.run('apply');
  expect(applied.failures).toEqual([]);
  expect(applied.results.filter((r) => r.change.action === 'release').map((r) => [r.change.key, r.status])).toEqual([
    ['b', 'applied'],
  ]);
  expect(await world.writes()).toEqual([]);
  expect(await liveId('b')).toBe(id);

  const next = await world.run('plan');
  expect(actions(next)).toEqual([]);
  expect(next.plan.unmanaged?.filter((u) => u.id === id).map((u) => u.summary)).toEqual(['HOST_DOWN (enabled)']);
  expect(renderPlanText(next.plan)).toContain(
    'Note: project payments-prod: released key "b" is not owned by this state',
  );
}

describe('release against the emulator', () => {
  it('with prune on: a release instead of a delete, zero writes, unmanaged from the next run', async () => {
    await project(['a', 'b'], true);
    expect((await world.run('apply')).failures).toEqual([]);
    await releaseB(true);
  });

  it('with prune off: ends the blocked delete planned on every run, with zero writes', async () => {
    await project(['a', 'b'], false);
    expect((await world.run('apply')).failures).toEqual([]);
    await project(['a'], false);
    for (let run = 0; run < 2; run++) {
      const stuck = await world.run('apply');
      expect(actions(stuck)).toEqual(['b:blocked']);
      expect(stuck.plan.changes.find((c) => c.key === 'b')?.reason).toMatch(
        /^prune is off for project payments-prod: would delete 1 owned alert config/,
      );
    }
    await releaseB(false);
  });
});
