// Scenario: the real binary against the emulator. payments-prod is applied, then `host-ssl-certificate-stale` moves from
// its alertConfigs to spec.release: `plan --out` shows `=>` release (no delete, prune is on), `apply --plan` releases it
// with no write to Ops Manager, and the next plan is empty, with a note that the key has nothing left to release.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../../lambdas/core/model.ts';
import { runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const KEY = 'host-ssl-certificate-stale';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

async function requests(): Promise<{ method: string; status: number }[]> {
  const res = await fetch(`${emulator.origin}/__emulator/requests`);
  return ((await res.json()) as { entries: { method: string; status: number }[] }).entries;
}

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-release-', { project: PAYMENTS_PROD }));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

describe('releasing an alert config with the CLI', { timeout: 120_000 }, () => {
  it('plan --out shows a release, apply --plan writes nothing to Ops Manager, the next plan is empty', async () => {
    const env = toolEnv(emulator.url);
    const first = await runBinary(['apply', '--auto-approve', ...common], env);
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    const stateFile = join(dir, 'state', 'state.json');
    const owned = JSON.parse(await readFile(stateFile, 'utf8')).projects[PAYMENTS_PROD].alertConfigs[KEY].id as string;

    // The key leaves alertConfigs for spec.release (prune stays on).
    const file = join(dir, 'desired', 'projects', 'payments.yaml');
    const text = await readFile(file, 'utf8');
    const start = text.indexOf(`    - key: ${KEY}\n`);
    const end = text.indexOf('  prune: true', start);
    expect(start).toBeGreaterThan(0);
    await writeFile(file, `${text.slice(0, start)}  release: [${KEY}]\n${text.slice(end)}`);

    const planFile = join(dir, 'plan.json');
    const planned = await runBinary(['plan', '--out', planFile, ...common], env);
    expect(planned.code, `${planned.stdout}\n${planned.stderr}`).toBe(0);
    expect(planned.stdout).toContain(`  => alertConfig "${KEY}" (id ${owned})`);
    expect(planned.stdout).not.toContain(`- alertConfig "${KEY}"`);
    expect(planned.stdout).toMatch(/Plan: 0 to create, 0 to update, 0 to delete, 1 to release, 0 to adopt, 0 blocked/);
    const saved = JSON.parse(await readFile(planFile, 'utf8')) as Plan;
    expect(saved.changes.filter((c) => c.action !== 'noop').map((c) => [c.key, c.action, c.id])).toEqual([
      [KEY, 'release', owned],
    ]);

    expect((await fetch(`${emulator.origin}/__emulator/requests`, { method: 'DELETE' })).ok).toBe(true);
    // A saved plan is applied as made (its --project was given to plan --out).
    const applied = await runBinary(['apply', '--plan', planFile, ...common.slice(0, -2)], env);
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    expect(applied.stdout).toContain(`=> payments-prod alertConfig "${KEY}" (id ${owned}): release applied`);
    // Reads only (the saved plan's freshness check): not one write.
    const log = await requests();
    expect(log.length).toBeGreaterThan(0);
    expect(log.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(JSON.parse(await readFile(stateFile, 'utf8')).projects[PAYMENTS_PROD].alertConfigs[KEY]).toBeUndefined();

    const next = await runBinary(['plan', ...common], env);
    expect(next.code, `${next.stdout}\n${next.stderr}`).toBe(0);
    expect(next.stdout).toContain(
      `Note: project payments-prod: released key "${KEY}" is not owned by this state (already released, or never managed): nothing to release`,
    );
    expect(next.stdout).toContain('No changes. Ops Manager matches the desired state.');
    const json = await runBinary(['plan', '--json', ...common], env);
    const after = JSON.parse(json.stdout) as Plan;
    expect(after.unmanaged?.map((u) => u.id)).toContain(owned);
  });
});
