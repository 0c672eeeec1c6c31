// Scenario: the real binary against the emulator. A plan saved for payments-prod, then a separate apply of another
// project writes the state: `apply --plan` refuses the saved plan (the state changed after it was made), exit 1,
// without one request to Ops Manager and with the state file untouched; a plan whose own run is the only writer
// applies. Editing the recorded state version to pass the check breaks the seal.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { REPO_ROOT, runBinary, toolEnv } from '../../helpers/cli-run.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const SEARCH_PROD = '5e2211c17a3e5a48f5497de5';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

/** Requests the emulator logged since the log was last cleared. */
async function requests(): Promise<{ method: string; status: number }[]> {
  const res = await fetch(`${emulator.origin}/__emulator/requests`);
  return ((await res.json()) as { entries: { method: string; status: number }[] }).entries;
}

async function clearRequests(): Promise<void> {
  expect((await fetch(`${emulator.origin}/__emulator/requests`, { method: 'DELETE' })).ok).toBe(true);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-plan-state-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true });
  common = ['--state-dir', join(dir, 'state'), '--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json')];
});

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a saved plan and the state it was made against', { timeout: 120_000 }, () => {
  it('is refused once another apply wrote the state: exit 1, no request to Ops Manager, state unchanged', async () => {
    const file = join(dir, 'plan.json');
    const stateFile = join(dir, 'state', 'state.json');
    const saved = await runBinary(
      ['plan', '--out', file, '--project', PAYMENTS_PROD, ...common],
      toolEnv(emulator.url),
    );
    expect(saved.code, `${saved.stdout}\n${saved.stderr}`).toBe(0);
    // No state existed when the plan was made.
    expect((JSON.parse(await readFile(file, 'utf8')) as Plan).stateVersion).toBeNull();

    // Another operation: an apply of search-prod alone. payments-prod's live state does not move, the state does.
    const other = await runBinary(
      ['apply', '--auto-approve', '--project', SEARCH_PROD, ...common],
      toolEnv(emulator.url),
    );
    expect(other.code, `${other.stdout}\n${other.stderr}`).toBe(0);
    expect(other.stdout).toMatch(/Apply complete: [1-9]\d* applied, 0 failed/);
    const state = await readFile(stateFile, 'utf8');
    await clearRequests();

    const refused = await runBinary(['apply', '--plan', file, ...common], toolEnv(emulator.url));
    expect(refused.code, `${refused.stdout}\n${refused.stderr}`).toBe(1);
    expect(refused.stderr).toMatch(
      /^error: the saved plan is stale: the state changed after the plan was made \(last written by run \S+ at [^)]+\), so the plan can no longer be applied; nothing was written: run plan again \(SAVED_PLAN_STATE_CHANGED\)$/m,
    );
    expect(refused.stdout).toBe('');
    // With --json: the failure document, with the stable code.
    const json = await runBinary(['apply', '--plan', file, '--json', ...common], toolEnv(emulator.url));
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'SAVED_PLAN_STATE_CHANGED' } });
    // Refused before the live re-read: no request at all, so no write; the state file is byte for byte the same.
    expect(await requests()).toEqual([]);
    expect(await readFile(stateFile, 'utf8')).toBe(state);

    // Setting the recorded version to the current one is an edit: the seal refuses it.
    const edited = JSON.parse(await readFile(file, 'utf8')) as Plan;
    edited.stateVersion = createHash('sha256').update(state).digest('hex');
    const editedFile = join(dir, 'edited.json');
    await writeFile(editedFile, JSON.stringify(edited));
    const tampered = await runBinary(['apply', '--plan', editedFile, ...common], toolEnv(emulator.url));
    expect(tampered.code, tampered.stderr).toBe(1);
    expect(tampered.stderr).toContain('its seal does not match: the file was edited since it was saved');
    expect(await requests()).toEqual([]);
    expect(await readFile(stateFile, 'utf8')).toBe(state);

    // Planned again, with no run in between: the plan's own apply is the only writer, and it applies.
    const again = await runBinary(
      ['plan', '--out', file, '--project', PAYMENTS_PROD, ...common],
      toolEnv(emulator.url),
    );
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0);
    expect((JSON.parse(await readFile(file, 'utf8')) as Plan).stateVersion).toBe(
      createHash('sha256').update(state).digest('hex'),
    );
    const applied = await runBinary(['apply', '--plan', file, ...common], toolEnv(emulator.url));
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    expect(applied.stdout).toMatch(/Apply complete: [1-9]\d* applied, 0 failed/);
  });
});
