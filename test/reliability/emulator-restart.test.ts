// Scenario: the emulator (its own process, with a data file) is killed in the middle of an apply and restarted on the same port with the same file; the next run converges with nothing lost or duplicated.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeWorld } from '../../bench/case.ts';
import { EmulatorAdmin } from '../../bench/emulator-admin.ts';
import { type EmulatorProcess, startEmulatorProcess } from '../../bench/emulator-process.ts';
import type { RunPaths } from '../../bench/run-deps.ts';
import { renderSeed } from '../../bench/seed.ts';
import { buildWorld } from '../../bench/world.ts';
import { pendingChanges, readLive, runOnce } from '../helpers/reliability-harness.ts';
import { compareInventory, expectedSignatures } from '../helpers/reliability-inventory.ts';

const world = buildWorld({ projects: 4, alerts: 12 });
const CREATES = 'POST /groups/{groupId}/alertConfigs';

describe('emulator restarted mid-apply with its data file', () => {
  let dir: string;
  let paths: RunPaths & { seedFile: string };
  let dataFile: string;
  let emulator: EmulatorProcess | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'opsman-rel-restart-'));
    paths = await writeWorld(world, dir);
    await writeFile(paths.seedFile, JSON.stringify(renderSeed(world)));
    dataFile = join(dir, 'emulator-data.json');
    emulator = await startEmulatorProcess({ seed: paths.seedFile, dataFile });
  }, 60_000);
  afterAll(async () => {
    await emulator?.kill();
    await rm(dir, { recursive: true, force: true });
  });

  it('loses nothing the emulator acknowledged and duplicates nothing after the restart', async () => {
    const first = emulator as EmulatorProcess;
    const admin = new EmulatorAdmin(first.origin);
    // Slow the creates down a little so the kill lands in the middle of the apply.
    await admin.fault({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 40, times: 1000 });
    const apply = runOnce(first.url, paths, { command: 'apply' }, { retry: { maxAttempts: 2, deadlineMs: 2_000 } });
    let created = 0;
    for (let i = 0; i < 400 && created < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      created = (await admin.requests()).byRoute[CREATES] ?? 0;
    }
    expect(created).toBeGreaterThanOrEqual(10);
    await first.kill();
    const interrupted = await apply;
    // The interrupted run ended (with failures or a thrown error), it did not hang.
    const failedSomething =
      interrupted.error !== undefined ||
      (interrupted.report?.summary.failed ?? 0) + (interrupted.report?.summary.targetsFailed ?? 0) > 0;
    expect(failedSomething).toBe(true);

    emulator = await startEmulatorProcess({ seed: paths.seedFile, dataFile, port: first.port });
    expect(emulator.port).toBe(first.port);
    const live = await readLive(emulator.url, world);
    const persisted = [...live.values()].reduce((n, list) => n + list.length, 0);
    // Every create logged before the kill survived the restart (besides the 3 seed defaults of each project).
    expect(persisted).toBeGreaterThanOrEqual(4 * 3 + created);

    const again = await runOnce(emulator.url, paths, { command: 'apply' });
    expect(again.error).toBeUndefined();
    expect(again.report?.summary.failed).toBe(0);
    const plan = await runOnce(emulator.url, paths, { command: 'plan' });
    expect(pendingChanges(plan.report)).toEqual({});
    expect(compareInventory(expectedSignatures(world), await readLive(emulator.url, world))).toEqual([]);
  }, 60_000);
});
