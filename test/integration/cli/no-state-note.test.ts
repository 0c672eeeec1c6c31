// A plan made without any stored state (a first run, a lost state, or --state-dir pointing at the wrong place) adopts
// every alert config that equals one git declares: it says so once, so a state kept elsewhere is noticed before an
// apply. runCli in-process against the emulator (real HTTP, Digest).
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { NO_STATE_NOTE } from '../../../lambdas/core/plan.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, commonOptionsFor, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-no-state-', { project: PAYMENTS_PROD, admin: false }));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

async function cli(argv: string[]) {
  const io = recordingIo({ env: toolEnv(emulator.url, {}) });
  const code = await runCli([...argv, ...commonOptionsFor(common, argv)], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

async function planJson(): Promise<Plan> {
  const run = await cli(['plan', '--json']);
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out) as Plan;
}

const stateFile = () => join(dir, 'state', 'state.json');

describe('a plan without a stored state', { timeout: 120_000 }, () => {
  it('notes it when it adopts; not once a state is stored, nor for a corrupt one (which warns instead)', async () => {
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    // A stored state that lost one record: that config is adopted back, with no note (a state exists).
    const state = JSON.parse(await readFile(stateFile(), 'utf8')) as ReconcileState;
    const project = state.projects[PAYMENTS_PROD] as ReconcileState['projects'][string];
    const [forgotten] = Object.keys(project.alertConfigs);
    delete project.alertConfigs[forgotten as string];
    await writeFile(stateFile(), JSON.stringify(state));
    const kept = await planJson();
    expect(kept.changes.filter((c) => c.action === 'adopt').map((c) => c.key)).toEqual([forgotten]);
    expect(kept.notes ?? []).not.toContain(NO_STATE_NOTE);

    await rm(stateFile());
    const lost = await planJson();
    expect(lost.changes.filter((c) => c.action === 'adopt').length).toBeGreaterThan(0);
    expect(lost.changes.filter((c) => c.action === 'create')).toEqual([]);
    expect(lost.notes ?? []).toContain(NO_STATE_NOTE);
    const text = await cli(['plan']);
    expect(text.out).toContain(`Note: ${NO_STATE_NOTE}`);

    await writeFile(stateFile(), '{ not json');
    const corrupt = await planJson();
    expect(corrupt.notes ?? []).not.toContain(NO_STATE_NOTE);
    expect(corrupt.warnings?.some((w) => w.startsWith('STATE WAS CORRUPT'))).toBe(true);
  });
});
