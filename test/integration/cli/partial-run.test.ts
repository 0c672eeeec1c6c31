// Scenario: the real binary against the emulator. After a full apply, "host-ssl-certificate-stale" moves from
// payments-prod to payments-staging in one commit. A plan limited to staging says it is partial (the ids in its JSON, a
// note of what it left out) and warns that the old copy stays in payments-prod; a partial apply of staging writes only
// staging and leaves every other target's state entry byte-for-byte; a saved partial plan applies with the same note.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../../lambdas/core/model.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, type ExampleWorkspace, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const PAYMENTS_STAGING = '5e2211c17a3e5a48f5497de4';
const MOVED = `    - key: host-ssl-certificate-stale
      eventTypeName: HOST_SSL_CERTIFICATE_STALE
      notifications:
        - { typeName: EMAIL, emailAddress: dba-team@acme.example, intervalMin: 1440, delayMin: 0 }
        - { typeName: SMS, mobileNumber: "+15555550100", intervalMin: 1440, delayMin: 60 }
`;

let w: ExampleWorkspace;

beforeEach(async () => {
  w = await openExampleWorkspace('cli-partial-run-');
});

afterEach(async () => {
  await closeExampleWorkspace(w);
});

async function cli(args: string[]) {
  return runBinary([...args, ...w.common], toolEnv(w.emulator.url));
}

/** Moves the config from payments-prod's document to payments-staging's, in the one file both live in. */
async function moveToStaging(): Promise<void> {
  const file = join(w.dir, 'desired/projects/payments.yaml');
  const text = await readFile(file, 'utf8');
  expect(text).toContain(MOVED);
  const moved = text
    .replace(MOVED, '')
    .replace('  alertConfigs:\n    - key: version-behind', `  alertConfigs:\n${MOVED}    - key: version-behind`);
  expect(moved).not.toBe(text.replace(MOVED, ''));
  await writeFile(file, moved);
}

async function state(): Promise<ReconcileState> {
  return JSON.parse(await readFile(join(w.dir, 'state/state.json'), 'utf8')) as ReconcileState;
}

describe('a run limited with --project', { timeout: 120_000 }, () => {
  it('says it is partial, warns of the half of a move it leaves, and leaves other targets in the state as they were', async () => {
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    await moveToStaging();
    const planned = await cli(['plan', '--json', '--project', PAYMENTS_STAGING]);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as Plan;
    expect(plan.projects).toEqual([PAYMENTS_STAGING]);
    expect(plan.notes?.[0]).toMatch(
      /^this run covers only 1 project of 4 \(--project\); not planned: 3 other projects \(analytics-dev, payments-prod, search-prod\), 2 organizations, the pinned version manifest\./,
    );
    expect(plan.warnings).toEqual([
      `alert config "host-ssl-certificate-stale" is written to project payments-staging while payments-prod (${PAYMENTS_PROD}), which this run does not cover (--project), still owns the copy that left its file: both alert until a run covering it deletes it; add that project to the run to move it in one apply`,
    ]);

    const before = await state();
    const applied = await cli(['apply', '--auto-approve', '--no-color', '--project', PAYMENTS_STAGING]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Note: this run covers only 1 project of 4 (--project)');
    const after = await state();
    for (const id of Object.keys(before.projects).filter((p) => p !== PAYMENTS_STAGING)) {
      expect(JSON.stringify(after.projects[id]), id).toBe(JSON.stringify(before.projects[id]));
    }
    expect(JSON.stringify(after.organizations)).toBe(JSON.stringify(before.organizations));
    expect(after.projects[PAYMENTS_STAGING]?.alertConfigs['host-ssl-certificate-stale']?.id).toBeDefined();
    expect(after.projects[PAYMENTS_PROD]?.alertConfigs['host-ssl-certificate-stale']?.id).toBeDefined();

    // The other half, saved and applied: the saved plan keeps its scope and its warning.
    const file = join(w.dir, 'plan.json');
    const saved = await cli(['plan', '--out', file, '--project', PAYMENTS_PROD]);
    expect(saved.code, saved.stderr).toBe(0);
    expect((JSON.parse(await readFile(file, 'utf8')) as Plan).projects).toEqual([PAYMENTS_PROD]);
    const common = w.common;
    const run = await runBinary(
      ['apply', '--plan', file, '--auto-approve', '--no-color', ...common],
      toolEnv(w.emulator.url),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Note: this run covers only 1 project of 4 (--project)');
    expect((await state()).projects[PAYMENTS_PROD]?.alertConfigs['host-ssl-certificate-stale']).toBeUndefined();
  });

  it('refuses an organization id, naming it as one, before any request', async () => {
    const run = await cli(['plan', '--project', '5e2211c17a3e5a48f5497de0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '5e2211c17a3e5a48f5497de0 is the organization acme: a selection takes project ids only',
    );
  });
});
