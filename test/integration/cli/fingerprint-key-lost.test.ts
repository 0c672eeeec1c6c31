// Scenario (disaster recovery): the state directory is kept but its fingerprint key is lost (or OPSMAN_FINGERPRINT_KEY
// changes). runCli in-process against the emulator (real HTTP, Digest). Every secret then reads as "(secret changed)";
// the plan must say why (a key, not the secrets, changed), how many configs it re-sends, and that putting the key back
// avoids it. Putting it back does; applying instead re-sends each secret once and records the new key: no storm.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, commonOptionsFor, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const KEY_WARNING = 'the fingerprint key is not the one the state was last applied with';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-fp-lost-', { project: PAYMENTS_PROD, admin: false }));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

async function cli(argv: string[], env: Record<string, string> = {}) {
  const io = recordingIo({ env: toolEnv(emulator.url, env) });
  const code = await runCli([...argv, ...commonOptionsFor(common, argv)], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

async function planJson(env: Record<string, string> = {}): Promise<Plan> {
  const run = await cli(['plan', '--json'], env);
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out) as Plan;
}

const keyFile = () => join(dir, 'state', 'fingerprint.key');
const stateCheck = async () =>
  (JSON.parse(await readFile(join(dir, 'state', 'state.json'), 'utf8')) as ReconcileState).fingerprintKeyCheck;
const writes = (plan: Plan) => plan.changes.filter((c) => c.action !== 'noop');

describe('the fingerprint key lost, the state kept', { timeout: 120_000 }, () => {
  it('the plan says the key changed and how many configs re-send; the old key back ends it, an apply records the new one', async () => {
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    const oldKey = await readFile(keyFile(), 'utf8');
    const recorded = await stateCheck();
    expect(recorded).toMatch(/^[0-9a-f]{16}$/);
    expect(oldKey).not.toContain(recorded as string);
    const clean = await planJson();
    expect(writes(clean)).toEqual([]);
    expect((clean.warnings ?? []).filter((w) => w.includes(KEY_WARNING))).toEqual([]);

    // The key file is lost: the next run makes a new one, and every secret reads as changed.
    await rm(keyFile());
    const lost = await planJson();
    const resent = writes(lost);
    expect(resent.map((c) => `${c.action} ${c.key}`)).toEqual(['update no-primary']);
    expect(resent[0]?.fields?.every((f) => f.secret === true && f.note === 'changed')).toBe(true);
    const warning = (lost.warnings ?? []).find((w) => w.includes(KEY_WARNING));
    expect(warning).toContain(`key check ${recorded}, now `);
    expect(warning).toContain(
      '1 alert config(s) below show "(secret changed)" for it, whether or not the values changed, and an apply re-sends their secrets once',
    );
    expect(warning).toContain('put the previous one back before applying');
    const newKey = await readFile(keyFile(), 'utf8');
    expect(newKey).not.toBe(oldKey);
    for (const key of [oldKey, newKey]) expect(JSON.stringify(lost)).not.toContain(key.trim());

    // Put back, the key makes the plan clean again.
    await writeFile(keyFile(), oldKey);
    const restored = await planJson();
    expect(writes(restored)).toEqual([]);
    expect((restored.warnings ?? []).filter((w) => w.includes(KEY_WARNING))).toEqual([]);

    // Another key given by the environment: warned the same; one apply re-sends once and records it; then clean.
    const env = { OPSMAN_FINGERPRINT_KEY: 'ab'.repeat(32) };
    expect((await planJson(env)).warnings?.some((w) => w.includes(KEY_WARNING))).toBe(true);
    const applied = await cli(['apply', '--auto-approve'], env);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out + applied.err).toContain('1 applied');
    expect(await stateCheck()).not.toBe(recorded);
    const after = await planJson(env);
    expect(writes(after)).toEqual([]);
    expect((after.warnings ?? []).filter((w) => w.includes(KEY_WARNING))).toEqual([]);
  });

  it('with a state from a backup older than a config (adopted, its secrets sent anyway), the warning counts no re-send', async () => {
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    const statePath = join(dir, 'state', 'state.json');
    const state = JSON.parse(await readFile(statePath, 'utf8')) as ReconcileState;
    // The backup was taken before no-primary was created: its record is not in it.
    delete state.projects[PAYMENTS_PROD]?.alertConfigs['no-primary'];
    await writeFile(statePath, JSON.stringify(state));
    await rm(keyFile());
    const plan = await planJson();
    const adopt = writes(plan);
    expect(adopt.map((c) => `${c.action} ${c.key}`)).toEqual(['adopt no-primary']);
    expect(adopt[0]?.fields?.some((f) => f.secret === true && f.note !== 'changed')).toBe(true);
    const warning = (plan.warnings ?? []).find((w) => w.includes(KEY_WARNING));
    expect(warning).toContain('no alert config of this plan re-sends a secret for it');
  });
});
