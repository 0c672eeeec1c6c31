// Scenario: the real binary against the emulator. A plan saved by `plan --out`, edited and re-sealed by hand with the
// state dir's key (the seal's MAC key is the operator's own), with an unmanaged entry that lost its target: `apply
// --plan` refuses it by path, exit 1, before any write. Before the check, every write of the plan was applied and the
// CLI then crashed with a TypeError printing the plan.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { sealedPlanText } from '../../../lambdas/cli/commands/saved-plan.ts';
import { currentToolVersion } from '../../../lambdas/cli/tool-version.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { REPO_ROOT, runBinary, toolEnv } from '../../helpers/cli-run.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const KEY_HEX = 'ab'.repeat(32);

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

/** Methods of the requests the emulator logged. */
async function methods(): Promise<string[]> {
  const res = await fetch(`${emulator.origin}/__emulator/requests`);
  return ((await res.json()) as { entries: { method: string }[] }).entries.map((e) => e.method);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-plan-members-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true });
  common = ['--state-dir', join(dir, 'state'), '--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json')];
});

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a re-sealed saved plan with a malformed member', { timeout: 120_000 }, () => {
  it('is refused by path before any write: exit 1, no write request, no TypeError', async () => {
    const env = toolEnv(emulator.url, { OPSMAN_FINGERPRINT_KEY: KEY_HEX });
    const file = join(dir, 'plan.json');
    const saved = await runBinary(['plan', '--out', file, '--project', PAYMENTS_PROD, ...common], env);
    expect(saved.code, `${saved.stdout}\n${saved.stderr}`).toBe(0);
    const { savedFor, ...plan } = JSON.parse(await readFile(file, 'utf8')) as Plan & { savedFor: { baseUrl: string } };
    expect(plan.changes.some((c) => c.action === 'create')).toBe(true);
    const [first, ...rest] = plan.unmanaged ?? [];
    if (first === undefined) throw new Error('the emulator seeds unmanaged default alerts in payments-prod');
    const { target: _target, ...untargeted } = first;
    const edited = { ...plan, unmanaged: [untargeted, ...rest] } as unknown as Plan;
    const key = new Uint8Array(Buffer.from(KEY_HEX, 'hex'));
    await writeFile(file, sealedPlanText(edited, savedFor.baseUrl, key, await currentToolVersion()));
    await fetch(`${emulator.origin}/__emulator/requests`, { method: 'DELETE' });

    const refused = await runBinary(['apply', '--plan', file, ...common], env);
    expect(refused.code, `${refused.stdout}\n${refused.stderr}`).toBe(1);
    expect(refused.stderr).toContain(
      'the saved plan has a malformed member (unmanaged[0].target.type is not project, organization or global)',
    );
    expect(refused.stderr).not.toContain('TypeError');
    expect((await methods()).filter((m) => m !== 'GET')).toEqual([]);
  });
});
