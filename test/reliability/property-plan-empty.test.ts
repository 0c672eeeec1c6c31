// Scenario: for random desired states and random live states (unowned exact copies, near-misses), one apply makes the next plan empty and leaves exactly the expected configs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSpecBody } from '../../bench/alert-catalogue.ts';
import { writeWorld } from '../../bench/case.ts';
import { DRIFT_KEY } from '../../bench/world.ts';
import { createOpsManagerClient } from '../../lambdas/opsman/client.ts';
import { FAST_RETRY, pendingChanges, readLive, runOnce } from '../helpers/reliability-harness.ts';
import { compareInventory, expectedSignatures, signature } from '../helpers/reliability-inventory.ts';
import {
  type BaseEmulator,
  type ProjectCase,
  projectCase,
  startBaseEmulator,
  worldOf,
} from '../helpers/reliability-random.ts';

describe('property: after one apply the next plan is empty', () => {
  let emulator: BaseEmulator;
  beforeAll(async () => {
    emulator = await startBaseEmulator();
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('holds for random desired and live states', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(projectCase, { minLength: 1, maxLength: 3 }), async (cases) => {
        await emulator.admin.reset();
        const { world, nearMisses } = worldOf(cases);
        const dir = await mkdtemp(join(tmpdir(), 'opsman-rel-prop-'));
        const human = createOpsManagerClient({
          baseUrl: emulator.url,
          publicKey: DRIFT_KEY.publicKey,
          privateKey: DRIFT_KEY.privateKey,
          retry: FAST_RETRY,
        });
        try {
          const paths = await writeWorld(world, dir);
          // Live state before the tool ever ran: exact unowned copies and near-misses, made by a human key.
          for (const [i, p] of world.projects.entries()) {
            const c = cases[i] as ProjectCase;
            for (const [k, a] of p.alerts.entries()) {
              if (c.live[k] === 1) await human.createAlertConfig(p.id, resolveSpecBody(a.body, world.secrets));
            }
            for (const body of nearMisses.get(p.id) ?? [])
              await human.createAlertConfig(p.id, resolveSpecBody(body, world.secrets));
          }
          const apply = await runOnce(emulator.url, paths, { command: 'apply' });
          expect(apply.error).toBeUndefined();
          expect(apply.report?.failures).toEqual([]);
          expect(apply.report?.summary.failed).toBe(0);
          const plan = await runOnce(emulator.url, paths, { command: 'plan' });
          expect(pendingChanges(plan.report)).toEqual({});

          // Exactly desired + seed defaults + the untouched near-misses: nothing lost, nothing duplicated.
          const expected = expectedSignatures(world);
          for (const [id, list] of nearMisses) expected.get(id)?.push(...list.map((b) => signature(b)));
          expect(compareInventory(expected, await readLive(emulator.url, world))).toEqual([]);
        } finally {
          await human.close();
          await rm(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 20 },
    );
  }, 180_000);
});
