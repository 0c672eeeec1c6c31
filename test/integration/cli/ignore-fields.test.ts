// Scenario: runCli in-process against the emulator (real HTTP, Digest). payments-prod's primary-connections-high
// ignores enabled and metricThreshold: after an apply, a person disables it and raises its threshold with their own
// key; the next plan is empty (exit 0 with --detailed-exitcode, observe too), and a desired change of its notification
// is an update whose full PUT keeps the person's values (read back from the emulator). A config made by hand that
// differs only in those members is adopted on the first apply instead of duplicated. ignoreFields added to a config
// already applied: a person's edit of the ignored member is no drift when git changes another field. A fight over a
// member not ignored still warns on the third apply.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import type { AlertConfig, AlertConfigRequest } from '../../../lambdas/opsman/types.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, commonOptionsFor, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const KEY = 'primary-connections-high';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-ignore-', { project: PAYMENTS_PROD, admin: false }));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

async function cli(argv: string[]) {
  const io = recordingIo({ env: toolEnv(emulator.url) });
  const code = await runCli([...argv, ...commonOptionsFor(common, argv)], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

/** Edits payments.yaml of the copy. */
async function editPayments(edit: (text: string) => string): Promise<void> {
  const file = join(dir, 'desired', 'projects', 'payments.yaml');
  const text = await readFile(file, 'utf8');
  const edited = edit(text);
  expect(edited).not.toBe(text);
  await writeFile(file, edited);
}

/** The config's entry gains `ignoreFields: [enabled, metricThreshold]`. */
const ignoring = (text: string) =>
  text.replace(
    `    - key: ${KEY}\n      eventTypeName: OUTSIDE_METRIC_THRESHOLD\n`,
    `    - key: ${KEY}\n      eventTypeName: OUTSIDE_METRIC_THRESHOLD\n      ignoreFields: [enabled, metricThreshold]\n`,
  );

async function state(): Promise<ReconcileState> {
  return JSON.parse(await readFile(join(dir, 'state', 'state.json'), 'utf8')) as ReconcileState;
}

/** Runs `act` as the person (their own API key), closing the client after. */
async function asHuman<T>(act: (api: ReturnType<typeof createOpsManagerClient>) => Promise<T>): Promise<T> {
  const human = createOpsManagerClient({ baseUrl: emulator.url, ...KEYS.human });
  try {
    return await act(human);
  } finally {
    await human.close();
  }
}

/** The request that rewrites `live` as it is, with `patch`. */
function requestOf(live: AlertConfig, patch: Partial<AlertConfigRequest>): AlertConfigRequest {
  const notifications = live.notifications.map((n) => {
    const { teamName: _name, ...rest } = n as unknown as Record<string, unknown>;
    return rest;
  }) as unknown as AlertConfigRequest['notifications'];
  return {
    eventTypeName: live.eventTypeName,
    enabled: live.enabled,
    matchers: live.matchers,
    notifications,
    ...(live.metricThreshold === undefined ? {} : { metricThreshold: live.metricThreshold }),
    ...patch,
  };
}

describe('ignoreFields against the emulator', { timeout: 60_000 }, () => {
  it('keeps the on-call edit of enabled and the threshold through a plan and an update of another field', async () => {
    await editPayments(ignoring);
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    const id = (await state()).projects[PAYMENTS_PROD]?.alertConfigs[KEY]?.id as string;
    expect(id).toBeDefined();
    expect((await state()).projects[PAYMENTS_PROD]?.alertConfigs[KEY]?.ignoredFields).toEqual([
      'enabled',
      'metricThreshold',
    ]);

    // On call: disabled during maintenance, threshold raised, with their own key.
    await asHuman(async (api) => {
      const live = (await api.listAlertConfigs(PAYMENTS_PROD)).find((c) => c.id === id) as AlertConfig;
      expect(live.enabled).toBe(true);
      const metricThreshold = {
        ...(live.metricThreshold as NonNullable<AlertConfig['metricThreshold']>),
        threshold: 9000,
      };
      await api.updateAlertConfig(PAYMENTS_PROD, id, requestOf(live, { enabled: false, metricThreshold }));
    });

    const plan = await cli(['plan', '--detailed-exitcode']);
    expect(plan.code, `${plan.out}\n${plan.err}`).toBe(0);
    expect((await cli(['observe', '--detailed-exitcode'])).code).toBe(0);

    // Git changes the notification's interval: an update of that field alone, sending the live enabled and threshold.
    await editPayments((text) =>
      text.replace(
        '{ typeName: TEAM, teamId: 6a1f00000000000000000001, intervalMin: 10,',
        '{ typeName: TEAM, teamId: 6a1f00000000000000000001, intervalMin: 15,',
      ),
    );
    const json = await cli(['plan', '--json']);
    const change = (JSON.parse(json.out) as Plan).changes.find((c) => c.key === KEY);
    expect(change?.action).toBe('update');
    expect(change?.fields.map((f) => f.path)).toEqual(['notifications[TEAM:6a1f00000000000000000001].intervalMin']);
    expect(change?.drift).toBeUndefined();
    expect(change?.after).toMatchObject({ enabled: false, metricThreshold: { threshold: 9000 } });

    // Through a saved plan: its checks accept a body that ignores members, and apply sends what the plan shows.
    const planFile = join(dir, 'update.plan');
    expect((await cli(['plan', '--out', planFile])).code).toBe(0);
    const applied = await cli(['apply', '--plan', planFile]);
    expect(applied.code, `${applied.out}\n${applied.err}`).toBe(0);
    const after = await asHuman(
      async (api) => (await api.listAlertConfigs(PAYMENTS_PROD)).find((c) => c.id === id) as AlertConfig,
    );
    expect(after.enabled).toBe(false);
    expect(after.metricThreshold?.threshold).toBe(9000);
    expect(after.notifications[0]?.intervalMin).toBe(15);

    // Converged, nothing flagged: the next plan is empty again.
    expect((await state()).projects[PAYMENTS_PROD]?.alertConfigs[KEY]?.notConverging).toBeUndefined();
    expect((await cli(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('ignoreFields added to a config already applied: the ignored edit is no drift when another field is written', async () => {
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    const id = (await state()).projects[PAYMENTS_PROD]?.alertConfigs[KEY]?.id as string;
    await editPayments(ignoring);
    // The record was written without ignoreFields: the person disables it after the list was added.
    expect((await state()).projects[PAYMENTS_PROD]?.alertConfigs[KEY]?.ignoredFields).toBeUndefined();
    await asHuman((api) => api.setAlertConfigEnabled(PAYMENTS_PROD, id, false));
    expect((await cli(['plan', '--detailed-exitcode'])).code).toBe(0);

    await editPayments((text) =>
      text.replace(
        'intervalMin: 10, delayMin: 0, emailEnabled: true } # dba',
        'intervalMin: 15, delayMin: 0, emailEnabled: true } # dba',
      ),
    );
    const change = (JSON.parse((await cli(['plan', '--json'])).out) as Plan).changes.find((c) => c.key === KEY);
    expect(change?.action).toBe('update');
    expect(change?.drift).toBeUndefined();
    const applied = await cli(['apply', '--auto-approve']);
    expect(applied.out).toContain('0 drifted');
    const live = await asHuman(
      async (api) => (await api.listAlertConfigs(PAYMENTS_PROD)).find((c) => c.id === id) as AlertConfig,
    );
    expect([live.enabled, live.notifications[0]?.intervalMin]).toEqual([false, 15]);
    expect((await state()).projects[PAYMENTS_PROD]?.driftStreaks).toBeUndefined();
  });

  it('a fight over a member not ignored still warns, names only it, and gives the whole list to write', async () => {
    await editPayments(ignoring);
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    const id = (await state()).projects[PAYMENTS_PROD]?.alertConfigs[KEY]?.id as string;
    let out = '';
    for (let run = 0; run < 3; run++) {
      // Each time the other writer toggles enabled (ignored) and changes the matchers (managed).
      await asHuman(async (api) => {
        const live = (await api.listAlertConfigs(PAYMENTS_PROD)).find((c) => c.id === id) as AlertConfig;
        const matchers = [
          { fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'SECONDARY' },
        ] as AlertConfig['matchers'];
        await api.updateAlertConfig(PAYMENTS_PROD, id, requestOf(live, { enabled: !live.enabled, matchers }));
      });
      out = (await cli(['apply', '--auto-approve'])).out;
    }
    expect(out).toContain('found it changed by API key jdoekey1 (each time: matchers) and put it back');
    expect(out).toContain(
      `add matchers to the ignoreFields of alert config "${KEY}" (ignoreFields: [enabled, metricThreshold, matchers]); or give it one owner`,
    );
    expect((await state()).projects[PAYMENTS_PROD]?.driftStreaks?.[`alertConfig:${KEY}`]?.fields).toEqual(['matchers']);
  });

  it('adopts a hand-made config that differs only in ignored members instead of creating a second one', async () => {
    await editPayments(ignoring);
    // Someone made it by hand before the first apply: disabled, another threshold.
    const made = await asHuman((api) =>
      api.createAlertConfig(PAYMENTS_PROD, {
        eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
        enabled: false,
        matchers: [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'PRIMARY' }],
        metricThreshold: {
          metricName: 'CONNECTIONS',
          mode: 'AVERAGE',
          operator: 'GREATER_THAN',
          threshold: 7000,
          units: 'RAW',
        },
        notifications: [
          { typeName: 'TEAM', teamId: '6a1f00000000000000000001', intervalMin: 10, delayMin: 0, emailEnabled: true },
        ] as unknown as AlertConfigRequest['notifications'],
      }),
    );
    const madeId = made?.id as string;
    const json = await cli(['plan', '--json']);
    const change = (JSON.parse(json.out) as Plan).changes.find((c) => c.key === KEY);
    expect(change?.action).toBe('adopt');
    expect(change?.id).toBe(madeId);

    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    expect((await state()).projects[PAYMENTS_PROD]?.alertConfigs[KEY]?.id).toBe(madeId);
    const connections = await asHuman(async (api) =>
      (await api.listAlertConfigs(PAYMENTS_PROD)).filter((c) => c.metricThreshold?.metricName === 'CONNECTIONS'),
    );
    expect(connections.map((c) => [c.id, c.enabled, c.metricThreshold?.threshold])).toEqual([[madeId, false, 7000]]);
    expect((await cli(['plan', '--detailed-exitcode'])).code).toBe(0);
  });
});
