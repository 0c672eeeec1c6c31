// Scenario: a POST times out and lands after the run's re-read (its answer lost), then its key leaves git: with prune off the config is blocked and stays; with prune on the next apply deletes exactly that config.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pendingChanges } from '../helpers/reliability-harness.ts';
import { signature } from '../helpers/reliability-inventory.ts';
import { LATENCY_MS, ModelWorld, variantBody } from '../helpers/reliability-model.ts';

/** Sets `prune` in the rendered Project documents (the model renders prune: true). */
async function setPrune(w: ModelWorld, prune: boolean): Promise<void> {
  const dir = w.paths.desiredDir;
  for (const entry of await readdir(dir, { recursive: true })) {
    const path = join(dir, String(entry));
    if (!path.endsWith('.yaml')) continue;
    const text = await readFile(path, 'utf8');
    if (text.includes('kind: Project')) await writeFile(path, text.replace(/prune: (true|false)/, `prune: ${prune}`));
  }
}

/** The state file's record of `key` in the model's project. */
async function record(w: ModelWorld, key: string): Promise<Record<string, unknown> | undefined> {
  const state = JSON.parse(await readFile(join(w.paths.stateDir, 'state.json'), 'utf8'));
  return state.projects?.[w.project.id]?.alertConfigs?.[key];
}

let world: ModelWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('a create that lands after its answer was lost, for a key that left git', () => {
  it('is blocked with prune off, then deleted (and nothing else) with prune on', async () => {
    const w = new ModelWorld();
    world = w;
    await w.start();
    await w.edit({ t: 'desire', entry: 0, variant: 0 });
    const initial = await w.run('apply');
    expect(initial.error).toBeUndefined();
    expect(initial.report?.failures).toEqual([]);

    // Ops Manager stores the POST of entry 1, then answers past the client's header timeout: the answer is lost and the
    // run's re-read does not resolve it (the client's breaker refuses it at once), so only the pending marker is left.
    await w.edit({ t: 'desire', entry: 1, variant: 0 });
    const key = w.model.desired.get(1)?.key as string;
    const started = Date.now();
    await w.inject('post-latency-after', 1);
    const lost = await w.run('apply');
    const result = lost.report?.results.find((r) => r.change.key === key);
    expect(result?.status).toBe('failed');
    const wait = started + LATENCY_MS + 300 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const sig = signature(variantBody(1, 0));
    const late = (await w.live()).filter((c) => signature(c) === sig).map((c) => c.id);
    expect(late.length).toBe(1);
    expect(await record(w, key)).toMatchObject({ pendingCreate: { desiredDigest: expect.any(String) } });
    expect((await record(w, key))?.id).toBeUndefined();

    // The key leaves git with prune off: the late config is recognised, and blocked like any owned config.
    await w.edit({ t: 'undesire', entry: 1 });
    await setPrune(w, false);
    const liveBefore = (await w.live()).map((c) => c.id).sort();
    const blocked = await w.run('apply');
    expect(blocked.error).toBeUndefined();
    const change = blocked.report?.plan.changes.find((c) => c.key === key);
    expect(change).toMatchObject({ action: 'blocked', id: late[0] });
    expect(change?.reason).toMatch(/^prune is off for project/);
    expect(blocked.counts.byMethod.DELETE ?? 0).toBe(0);
    expect((await w.live()).map((c) => c.id).sort()).toEqual(liveBefore);

    // Prune on: exactly that config is deleted; the plan after is empty and the marker is gone.
    await setPrune(w, true);
    const pruned = await w.run('apply');
    expect(pruned.error).toBeUndefined();
    expect(pruned.report?.failures).toEqual([]);
    const deleted = pruned.report?.plan.changes.find((c) => c.key === key);
    expect(deleted).toMatchObject({ action: 'delete', id: late[0] });
    expect(deleted?.reason).toMatch(/created by run rel-\S+ .*answer was lost/);
    expect(pruned.counts.byMethod.DELETE).toBe(1);
    expect((await w.live()).map((c) => c.id).sort()).toEqual(liveBefore.filter((id) => id !== late[0]));
    expect(await record(w, key)).toBeUndefined();
    const after = await w.run('plan');
    expect(pendingChanges(after.report)).toEqual({});
  }, 60_000);
});
