// Scenario: for random desired states and random live states (unowned exact copies, near-misses), one apply makes the next plan empty and leaves exactly the expected configs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertSpec, alertSpecsFor, resolveSpecBody } from '../../bench/alert-catalogue.ts';
import { writeWorld } from '../../bench/case.ts';
import { EmulatorAdmin } from '../../bench/emulator-admin.ts';
import { renderSeed } from '../../bench/seed.ts';
import { buildWorld, DRIFT_KEY, type World } from '../../bench/world.ts';
import { startEmulator } from '../../emulator/index.ts';
import { createOpsManagerClient } from '../../lambdas/opsman/client.ts';
import { FAST_RETRY, pendingChanges, readLive, runOnce } from '../helpers/reliability-harness.ts';
import { compareInventory, expectedSignatures, signature } from '../helpers/reliability-inventory.ts';

const BASE = buildWorld({ projects: 3, alerts: 1 });

/** What one project looks like in a generated case. */
interface ProjectCase {
  count: number;
  offset: number;
  disabled: boolean[];
  /** Per desired alert: 0 nothing live, 1 an unowned exact copy (adopted), 2 an unowned near-miss (left alone). */
  live: number[];
}

const projectCase: fc.Arbitrary<ProjectCase> = fc.integer({ min: 0, max: 10 }).chain((count) =>
  fc.record({
    count: fc.constant(count),
    offset: fc.integer({ min: 0, max: 7 }),
    disabled: fc.array(fc.boolean(), { minLength: count, maxLength: count }),
    live: fc.array(fc.constantFrom(0, 0, 1, 2), { minLength: count, maxLength: count }),
  }),
);

function worldOf(cases: ProjectCase[]): { world: World; nearMisses: Map<string, AlertSpec['body'][]> } {
  const secrets: World['secrets'] = {};
  const nearMisses = new Map<string, AlertSpec['body'][]>();
  const projects = BASE.projects.slice(0, cases.length).map((p, i) => {
    const c = cases[i] as ProjectCase;
    const org = BASE.orgs.find((o) => o.id === p.orgId);
    const alerts = alertSpecsFor({
      projectIndex: c.offset,
      projectName: p.name,
      count: c.count,
      teamId: org?.teamId ?? '',
    }).map(
      // Inline every alert (no AlertTemplate document in these worlds).
      (a, k) => ({ ...a, template: false, body: c.disabled[k] ? { ...a.body, enabled: false } : a.body }),
    );
    for (const a of alerts) {
      for (const s of a.secrets) {
        const bucket = secrets[s.secretId] ?? {};
        bucket[s.jsonKey] = s.value;
        secrets[s.secretId] = bucket;
      }
    }
    nearMisses.set(
      p.id,
      alerts
        .filter((_, k) => c.live[k] === 2)
        .map((a) => ({
          ...a.body,
          notifications: a.body.notifications.map((n, j) => (j === 0 ? { ...n, delayMin: 100 + k0(n) } : n)),
        })),
    );
    return { ...p, alerts };
  });
  return { world: { ...BASE, projects, templateKeys: [], secrets }, nearMisses };
}

const k0 = (n: Record<string, unknown>) => Number(n.delayMin ?? 0);

describe('property: after one apply the next plan is empty', () => {
  let emulator: { url: string; close(): Promise<void> };
  let admin: EmulatorAdmin;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, host: '127.0.0.1', seed: renderSeed(BASE), admin: true });
    admin = new EmulatorAdmin(new URL(emulator.url).origin);
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('holds for random desired and live states', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(projectCase, { minLength: 1, maxLength: 3 }), async (cases) => {
        await admin.reset();
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
