// Scenario: over real HTTP with Digest, alert keys that are names of Object.prototype members (`constructor`,
// `toString`, `valueOf`, `hasOwnProperty`: valid keys by the schema's pattern) are planned, applied, converged, renamed
// and pruned like any other key: the state's records are looked up as own members only, never as an inherited one.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunReport } from '../../../lambdas/core/model.ts';
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
const KEYS = ['constructor', 'hasOwnProperty', 'toString', 'valueOf'];

function alert(key: string, interval = 60): Record<string, unknown> {
  return {
    key,
    eventTypeName: 'HOST_DOWN',
    notifications: [{ typeName: 'EMAIL', emailAddress: `${key}@acme.example`, intervalMin: interval, delayMin: 0 }],
  };
}

async function project(alerts: Record<string, unknown>[], release?: string[]): Promise<void> {
  await rm(join(world.desiredDir, 'projects'), { recursive: true, force: true });
  await writeFile(
    join(world.desiredDir, 'prod.yaml'),
    projectYaml({
      name: 'payments-prod',
      projectId: PROD,
      orgId: ORG,
      prune: true,
      alertConfigs: alerts,
      ...(release === undefined ? {} : { release }),
    }),
  );
}

function actions(report: RunReport): string[] {
  return report.plan.changes
    .filter((c) => c.kind === 'alertConfig' && c.action !== 'noop')
    .map((c) => `${c.key}:${c.action}`)
    .sort();
}

describe('alert keys named like Object.prototype members', () => {
  it('are created once, converge, update, release and prune like any key', async () => {
    await project(KEYS.map((k) => alert(k)));
    const first = await world.run('apply');
    expect(first.failures).toEqual([]);
    expect(actions(first)).toEqual(KEYS.map((k) => `${k}:create`).sort());
    expect(actions(await world.run('plan'))).toEqual([]);
    const live = await world.client().listAlertConfigs(PROD);
    for (const k of KEYS) {
      expect(live.filter((c) => c.notifications.some((n) => n.emailAddress === `${k}@acme.example`))).toHaveLength(1);
    }

    await project([alert('constructor', 30), alert('toString'), alert('valueOf')], ['hasOwnProperty']);
    const second = await world.run('apply');
    expect(second.failures).toEqual([]);
    expect(actions(second)).toEqual(['constructor:update', 'hasOwnProperty:release']);

    await project([alert('constructor', 30)], []);
    const third = await world.run('apply');
    expect(third.failures).toEqual([]);
    expect(actions(third)).toEqual(['toString:delete', 'valueOf:delete']);
    expect(actions(await world.run('plan'))).toEqual([]);
  });

  it('a fresh state does not take an inherited member for a record: each key is a create, never an adoption or a guard', async () => {
    await project(KEYS.map((k) => alert(k)));
    const planned = await world.run('plan');
    expect(planned.failures).toEqual([]);
    expect(actions(planned)).toEqual(KEYS.map((k) => `${k}:create`).sort());
    for (const c of planned.plan.changes.filter((x) => x.action === 'create')) {
      expect(c.reason).not.toMatch(/marker|pending|owned|not converging/i);
    }
  });
});
