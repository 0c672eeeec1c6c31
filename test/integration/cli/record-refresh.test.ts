// Scenario: runCli in-process against the emulator (real HTTP, Digest). A person disables payments-prod's host-ssl-certificate-stale with their own key, then git disables it too: the config is in sync while its record still holds the enabled body. `plan --out` then `apply --plan`, and an interactive apply approving another write, each bring the record up to date (a plain `plan` does not), so the person enabling it again is drift with their name on the next plan.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import type { OwnedAlertConfig, ReconcileState } from '../../../lambdas/core/ports.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, commonOptionsFor, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const KEY = 'host-ssl-certificate-stale';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-refresh-', { project: PAYMENTS_PROD, admin: false }));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

async function cli(argv: string[], answers?: string[]) {
  const io = recordingIo({
    env: toolEnv(emulator.url),
    ...(answers === undefined ? {} : { interactive: true, answers }),
  });
  const code = await runCli([...argv, ...commonOptionsFor(common, argv)], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

async function record(): Promise<OwnedAlertConfig> {
  const state = JSON.parse(await readFile(join(dir, 'state', 'state.json'), 'utf8')) as ReconcileState;
  return state.projects[PAYMENTS_PROD]?.alertConfigs[KEY] as OwnedAlertConfig;
}

async function editPayments(edit: (text: string) => string): Promise<void> {
  const file = join(dir, 'desired', 'projects', 'payments.yaml');
  const text = await readFile(file, 'utf8');
  const edited = edit(text);
  expect(edited).not.toBe(text);
  await writeFile(file, edited);
}

/** The person (their own key) sets the config's `enabled`. */
async function personSets(enabled: boolean): Promise<void> {
  const human = createOpsManagerClient({ baseUrl: emulator.url, ...KEYS.human });
  try {
    await human.setAlertConfigEnabled(PAYMENTS_PROD, (await record()).id as string, enabled);
  } finally {
    await human.close();
  }
}

/** The person disables the config, then git does too: in sync, the record behind. */
async function inSyncWithRecordBehind(): Promise<OwnedAlertConfig> {
  expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
  const before = await record();
  await personSets(false);
  await editPayments((text) =>
    text.replace(
      `    - key: ${KEY}\n      eventTypeName: HOST_SSL_CERTIFICATE_STALE\n`,
      `    - key: ${KEY}\n      eventTypeName: HOST_SSL_CERTIFICATE_STALE\n      enabled: false\n`,
    ),
  );
  return before;
}

/** The person enables it again: the next plan calls that drift, by them. */
async function expectDriftOnRevert(): Promise<void> {
  await personSets(true);
  const plan = await cli(['plan', '--json']);
  const change = (JSON.parse(plan.out) as Plan).changes.find((c) => c.key === KEY);
  expect(change?.action).toBe('disable');
  expect(change?.drift?.detected).toBe(true);
  expect(change?.drift?.attribution?.length).toBeGreaterThan(0);
}

describe('records brought up to date through the CLI', () => {
  it('plan --out then apply --plan, and not a plain plan', async () => {
    const before = await inSyncWithRecordBehind();
    expect((await cli(['plan'])).code).toBe(0);
    expect(await record()).toEqual(before);
    const planFile = join(dir, 'refresh.plan');
    const saved = await cli(['plan', '--out', planFile, '--detailed-exitcode']);
    // Nothing to write: the saved plan only carries the in-sync config's desired body.
    expect(saved.code, saved.err).toBe(0);
    const applied = await cli(['apply', '--plan', planFile]);
    expect(applied.code, `${applied.out}\n${applied.err}`).toBe(0);
    expect((await record()).appliedDigest).not.toBe(before.appliedDigest);
    await expectDriftOnRevert();
  });

  it('an interactive apply approving another write', async () => {
    const before = await inSyncWithRecordBehind();
    // Another change from git, so the apply has a write to ask about.
    await editPayments((text) => text.replace('        threshold: 5000\n', '        threshold: 6000\n'));
    const run = await cli(['apply'], ['yes']);
    expect(run.code, `${run.out}\n${run.err}`).toBe(0);
    expect((await record()).appliedDigest).not.toBe(before.appliedDigest);
    await expectDriftOnRevert();
  });
});
