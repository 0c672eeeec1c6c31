// Scenario: after a converged apply, a human randomly disables, enables, deletes or rewrites owned alert configs; one apply corrects everything and the next plan is empty.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSpecBody } from '../../bench/alert-catalogue.ts';
import { writeWorld } from '../../bench/case.ts';
import { DRIFT_KEY } from '../../bench/world.ts';
import { FsStateStore } from '../../lambdas/adapters/local/state-fs.ts';
import { createOpsManagerClient } from '../../lambdas/opsman/client.ts';
import { FAST_RETRY, pendingChanges, readLive, runOnce } from '../helpers/reliability-harness.ts';
import { compareInventory, expectedSignatures } from '../helpers/reliability-inventory.ts';
import { type BaseEmulator, projectCase, startBaseEmulator, worldOf } from '../helpers/reliability-random.ts';

/** What the human does to one owned config: nothing, flip `enabled`, delete it, or rewrite it with another delay. */
const EDITS = ['none', 'toggle', 'delete', 'rewrite'] as const;
type Edit = (typeof EDITS)[number];

describe('property: drift made by hand is corrected in one apply', () => {
  let emulator: BaseEmulator;
  beforeAll(async () => {
    emulator = await startBaseEmulator();
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('holds for random desired states and random edits', async () => {
    let editsTotal = 0;
    const arbitrary = fc.array(projectCase, { minLength: 1, maxLength: 3 }).chain((cases) =>
      fc.record({
        cases: fc.constant(cases.map((c) => ({ ...c, live: c.live.map(() => 0) }))),
        edits: fc.array(fc.array(fc.constantFrom<Edit>(...EDITS), { minLength: 10, maxLength: 10 }), {
          minLength: cases.length,
          maxLength: cases.length,
        }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(arbitrary, async ({ cases, edits }) => {
        await emulator.admin.reset();
        const { world } = worldOf(cases);
        const dir = await mkdtemp(join(tmpdir(), 'opsman-rel-drift-'));
        const human = createOpsManagerClient({
          baseUrl: emulator.url,
          publicKey: DRIFT_KEY.publicKey,
          privateKey: DRIFT_KEY.privateKey,
          retry: FAST_RETRY,
        });
        try {
          const paths = await writeWorld(world, dir);
          const first = await runOnce(emulator.url, paths, { command: 'apply' });
          expect(first.report?.summary.failed).toBe(0);
          const { state } = await new FsStateStore(paths.stateDir).read();
          let made = 0;

          for (const [i, p] of world.projects.entries()) {
            for (const [k, a] of p.alerts.entries()) {
              const id = state?.projects[p.id]?.alertConfigs[a.key]?.id;
              const edit = edits[i]?.[k] ?? 'none';
              if (!id || edit === 'none') continue;
              made++;
              if (edit === 'toggle') await human.setAlertConfigEnabled(p.id, id, !a.body.enabled);
              if (edit === 'delete') await human.deleteAlertConfig(p.id, id);
              if (edit === 'rewrite') {
                const notifications = a.body.notifications.map((n, j) =>
                  j === 0 ? { ...n, delayMin: Number(n.delayMin ?? 0) + 50 } : n,
                );
                await human.updateAlertConfig(p.id, id, resolveSpecBody({ ...a.body, notifications }, world.secrets));
              }
            }
          }

          const fix = await runOnce(emulator.url, paths, { command: 'apply' });
          expect(fix.error).toBeUndefined();
          expect(fix.report?.failures).toEqual([]);
          expect(fix.report?.summary.failed).toBe(0);
          // One correcting write per edit: enable/disable, re-create, or a full PUT.
          expect(fix.report?.summary.applied).toBe(made);
          editsTotal += made;
          const plan = await runOnce(emulator.url, paths, { command: 'plan' });
          expect(pendingChanges(plan.report)).toEqual({});
          expect(compareInventory(expectedSignatures(world), await readLive(emulator.url, world))).toEqual([]);
        } finally {
          await human.close();
          await rm(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 15 },
    );
    // The runs were not vacuous: the human edited something.
    expect(editsTotal).toBeGreaterThan(0);
  }, 180_000);
});
