// Scenario: `--project` takes a project's metadata.name as well as its id (the real binary against the emulator): the
// plan is limited to that project and records it by id; a name the desired state does not have is refused before any
// request, listing the projects it has by id and name.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../../lambdas/core/model.ts';
import { runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-project-name-', { secrets: 'copy' }));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

describe('--project by name', { timeout: 60_000 }, () => {
  it('limits the plan to the project of that metadata.name', async () => {
    const run = await runBinary(['plan', '--json', '--project', 'payments-prod', ...common], toolEnv(emulator.url));
    expect(run.code, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout) as Plan;
    expect(plan.projects).toEqual([PAYMENTS_PROD]);
    expect(new Set(plan.changes.map((c) => c.target.id))).toEqual(new Set([PAYMENTS_PROD]));
  });

  it('refuses a name the desired state does not have, naming the projects it has', async () => {
    const run = await runBinary(['plan', '--project', 'payments-prd', ...common], toolEnv(emulator.url));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('project payments-prd asked for (--project) but not in the desired state, which has');
    expect(run.stderr).toContain(`${PAYMENTS_PROD} (payments-prod)`);
  });
});
