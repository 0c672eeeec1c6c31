// Scenario: an in-process `apply` whose writes land but whose state cannot be saved afterwards (state.json replaced by
// a directory while the creates are in flight, as a full disk or a read-only directory would refuse the write; the
// tests run as root, so chmod would not). The last stderr line says the state was not saved and that the next run
// adopts what landed: someone who redirected stdout (where the details are) must still learn it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { REPO_ROOT, toolEnv } from '../../helpers/cli-run.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-state-save-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true });
});

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

/** POSTs the emulator received so far. */
async function postsSeen(): Promise<number> {
  const log = (await (await fetch(`${emulator.origin}/__emulator/requests`)).json()) as {
    entries: { method: string }[];
  };
  return log.entries.filter((e) => e.method === 'POST').length;
}

describe('apply whose state cannot be saved after its writes', { timeout: 60_000 }, () => {
  it('says so on stderr, not only "1 target failed (details on stdout)"', async () => {
    const state = join(dir, 'state');
    // The creates take a while to answer, so that state.json can be broken after the pending-create markers were
    // saved (before the first POST) and before the final save.
    const fault = await fetch(`${emulator.origin}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 500, times: 1_000 }),
    });
    expect(fault.ok).toBe(true);
    const io = recordingIo({ env: toolEnv(emulator.url) });
    const argv = ['apply', '--auto-approve', '--no-color', '--desired', join(REPO_ROOT, 'desired-state')];
    argv.push('--state-dir', state, '--project', PAYMENTS_PROD);
    argv.push('--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json'));
    const running = runCli(argv, { startEmulator: noEmulator, io });
    let seen = 0;
    for (let i = 0; i < 2_000 && seen === 0; i++) {
      seen = await postsSeen();
      if (seen === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(seen).toBeGreaterThan(0);
    await rm(join(state, 'state.json'), { force: true });
    await mkdir(join(state, 'state.json', 'in-the-way'), { recursive: true });
    await writeFile(join(state, 'state.json', 'in-the-way', 'file'), 'x');
    const code = await running;

    expect(code).toBe(1);
    expect(io.out()).toContain('the state could not be saved after applying');
    const last = io.err().trimEnd().split('\n').at(-1) ?? '';
    expect(last).toMatch(/^error: the state could not be saved \(the writes that landed are adopted by the next run\)/);
    expect(last).not.toContain('1 target failed');
  });
});
