// Scenario: the printed plan read as a user reads it: the real binary against an in-process emulator, on a copy of the
// example desired state edited per case (a value holding terminal escapes and bidi characters).
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../lambdas/cli/main.ts';
import { PLAN_FORMAT_VERSION } from '../../../lambdas/core/model.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const PAYMENTS_STAGING = '5e2211c17a3e5a48f5497de4';
const SEARCH_PROD = '5e2211c17a3e5a48f5497de5';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-plan-output-', { secrets: 'copy' }));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

/** Replaces `from` (which must occur once) in a desired-state file of the copy. */
async function editDesired(file: string, from: string, to: string): Promise<void> {
  const path = join(dir, 'desired', file);
  const text = await readFile(path, 'utf8');
  expect(text.split(from).length, `${from} once in ${file}`).toBe(2);
  await writeFile(path, text.replace(from, to));
}

/**
 * Runs `plan` with `args` (exit 0 expected) and returns the lines printed under the change whose line starts with
 * `header` (which must be there), with the run for further checks.
 */
async function planUnder(args: string[], header: string): Promise<{ run: { stdout: string }; under: string[] }> {
  const run = await runBinary(['plan', ...args], toolEnv(emulator.url));
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.split('\n');
  const at = lines.findIndex((l) => l.startsWith(header));
  expect(at, run.stdout).toBeGreaterThanOrEqual(0);
  return { run, under: lines.slice(at + 1) };
}

/**
 * Applies payments-prod, edits one threshold, then applies again while Ops Manager answers every PUT of the project
 * with 500: the second apply's run (exit 1 expected).
 */
async function applyWithFailingUpdate(): Promise<{ stdout: string; stderr: string }> {
  const only = ['--project', PAYMENTS_PROD, ...common];
  expect((await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url))).code).toBe(0);
  await editDesired('projects/payments.yaml', 'threshold: 5000', 'threshold: 4000');
  const fault = await fetch(`${emulator.origin}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'PUT', path: `/groups/${PAYMENTS_PROD}/alertConfigs/*`, status: 500, times: 100 }),
  });
  expect(fault.ok).toBe(true);
  const run = await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url));
  expect(run.code, run.stderr).toBe(1);
  return run;
}

/** Characters a terminal acts on or that change how the text around them reads (controls, bidi, zero-width). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must never reach the terminal.
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

describe('the printed plan', { timeout: 120_000 }, () => {
  it('shows escapes, bidi overrides and zero-width characters of a value as \\u escapes, never raw', async () => {
    // YAML double quotes: ESC [31m, a BEL, a right-to-left override, a zero-width space and a C1 CSI.
    await editDesired(
      'projects/search.yaml',
      'value: search-rs }',
      'value: "rs\\e[31mRED\\a\\u202Egnp.exe\\u200B\\x9b2J" }',
    );
    const run = await runBinary(['plan', '--project', SEARCH_PROD, ...common], toolEnv(emulator.url));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(UNSAFE);
    expect(run.stdout).toContain('"value":"rs\\u001b[31mRED\\u0007\\u202egnp.exe\\u200b\\u009b2J"');
  });

  it('validate quotes a found value with a bidi override or a zero-width space escaped, like a control character', async () => {
    await editDesired(
      'projects/payments.yaml',
      'defaultServerType: PRODUCTION_SERVER',
      'defaultServerType: "PROD\\u202E\\u200B"',
    );
    const run = await runBinary(['validate', '--desired', join(dir, 'desired')]);
    expect(run.code).toBe(1);
    expect(run.stdout).not.toMatch(UNSAFE);
    expect(run.stdout).toContain('found "PROD\\u202e\\u200b"');
  });

  it('plan names a --desired path holding escapes and bidi characters inert in its "is invalid" error', async () => {
    // A directory name may hold any byte but / and NUL: an ESC sequence and a right-to-left override here.
    const odd = join(dir, 'desired\u001b[2J\u202eevil');
    await cp(join(dir, 'desired'), odd, { recursive: true });
    await writeFile(join(odd, 'projects/search.yaml'), 'apiVersion: opsman-gitops/v1\nkind: Project\nmetadata: {}\n');
    const run = await runBinary(['plan', '--desired', odd, '--state-dir', join(dir, 'state')], toolEnv(emulator.url));
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(UNSAFE);
    expect(run.stderr).toContain('error: the desired state in ');
    expect(run.stderr).toContain('desired\\u001b[2J\\u202eevil is invalid; nothing was sent to Ops Manager');
  });

  it('plan --out names a path holding escapes and bidi characters inert in "Saved the plan to"', async () => {
    const out = join(dir, 'plan\u001b[2J\u202eevil.json');
    const run = await runBinary(['plan', '--out', out, '--project', SEARCH_PROD, ...common], toolEnv(emulator.url));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(UNSAFE);
    expect(run.stderr).toContain(`Saved the plan to ${join(dir, 'plan\\u001b[2J\\u202eevil.json')}: apply it with`);
    // The file itself is at the path asked for, raw.
    expect(JSON.parse(await readFile(out, 'utf8')).formatVersion).toBe(PLAN_FORMAT_VERSION);
  });

  it('an update shows an added notification as (none) -> {...} and a removed one as {...} -> (none)', async () => {
    const only = ['--project', PAYMENTS_PROD, ...common];
    const apply = await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url));
    expect(apply.code, apply.stderr).toBe(0);
    await editDesired(
      'projects/payments.yaml',
      '        - { typeName: SMS, mobileNumber: "+15555550100", intervalMin: 1440, delayMin: 60 }\n',
      '        - { typeName: EMAIL, emailAddress: second@acme.example, intervalMin: 1440, delayMin: 0 }\n',
    );
    const { under } = await planUnder(only, '  ~ alertConfig "host-ssl-certificate-stale" (id ');
    expect(under.slice(0, 3)).toEqual([
      '      # 2 field(s) differ',
      '      notifications[EMAIL:second@acme.example]: (none) -> {"typeName":"EMAIL","delayMin":0,"intervalMin":1440,"emailAddress":"second@acme.example"}',
      '      notifications[SMS:+15555550100]: {"typeName":"SMS","delayMin":60,"intervalMin":1440,"mobileNumber":"+15555550100"} -> (none)',
    ]);
  });

  it('a matcher changed and one added show those elements alone, terraform style, not both whole lists', async () => {
    const only = ['--project', PAYMENTS_PROD, ...common];
    expect((await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url))).code).toBe(0);
    await editDesired(
      'projects/payments.yaml',
      '        - { fieldName: TYPE_NAME, operator: EQUALS, value: PRIMARY }\n',
      '        - { fieldName: TYPE_NAME, operator: EQUALS, value: SECONDARY }\n' +
        '        - { fieldName: REPLICA_SET_NAME, operator: EQUALS, value: rs-payments }\n',
    );
    const out = join(dir, 'plan.json');
    const run = await runBinary(['plan', '--out', out, ...only], toolEnv(emulator.url));
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('  ~ alertConfig "primary-connections-high" (id '));
    expect(lines.slice(at + 1, at + 5)).toEqual([
      '      # 1 field(s) differ',
      '      matchers: + {"fieldName":"REPLICA_SET_NAME","operator":"EQUALS","value":"rs-payments"}',
      '      matchers: ~ {"fieldName":"TYPE_NAME","operator":"EQUALS","value":"PRIMARY"} -> {"fieldName":"TYPE_NAME","operator":"EQUALS","value":"SECONDARY"}',
      '  (3 unmanaged objects left alone: Ops Manager defaults, hand-made or released configs, those of other tools)',
    ]);
    // The JSON plan keeps the field as it was: both normalised lists, for a program to diff as it likes.
    const saved = JSON.parse(await readFile(out, 'utf8')) as { changes: { key: string; fields: unknown[] }[] };
    expect(saved.changes.find((c) => c.key === 'primary-connections-high')?.fields).toEqual([
      {
        path: 'matchers',
        before: [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'PRIMARY' }],
        after: [
          { fieldName: 'REPLICA_SET_NAME', operator: 'EQUALS', value: 'rs-payments' },
          { fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'SECONDARY' },
        ],
      },
    ]);
  });

  it('a field of one of two GROUP notifications names it by its place in the YAML list, never by an unfindable #2', async () => {
    const only = ['--project', PAYMENTS_PROD, ...common];
    const owner =
      '        - { typeName: GROUP, intervalMin: 5, delayMin: 0, emailEnabled: true, smsEnabled: false, roles: [GROUP_OWNER] }\n';
    // A second GROUP first in the list: sorted, it comes after the owner ("intervalMin":30 > "intervalMin":5 as text).
    const reader = (delay: number) =>
      `        - { typeName: GROUP, intervalMin: 30, delayMin: ${delay}, emailEnabled: true, roles: [GROUP_READ_ONLY] }\n`;
    await editDesired('projects/payments.yaml', owner, reader(10) + owner);
    expect((await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url))).code).toBe(0);
    await editDesired('projects/payments.yaml', reader(10), reader(0));
    await editDesired(
      'projects/payments.yaml',
      'roles: [GROUP_OWNER]',
      'roles: [GROUP_OWNER, GROUP_DATA_ACCESS_ADMIN]',
    );
    const { run, under } = await planUnder(only, '  ~ alertConfig "no-primary" (id ');
    expect(under.slice(0, 3)).toEqual([
      '      # 2 field(s) differ',
      '      notifications[GROUP, item 1].delayMin: 10 -> 0',
      '      notifications[GROUP, item 2].roles: + "GROUP_DATA_ACCESS_ADMIN"',
    ]);
    expect(run.stdout).not.toMatch(/GROUP#/);
  });

  it('the secrets of two WEBHOOK notifications say which one they belong to by its place in the YAML list', async () => {
    const only = ['--project', PAYMENTS_PROD, ...common];
    const second =
      '        - typeName: WEBHOOK\n' +
      '          webhookUrl: { secretRef: "opsman/notify#search-teams-webhook-url" }\n' +
      '          intervalMin: 30\n';
    await editDesired('projects/payments.yaml', '        - typeName: SLACK\n', `${second}        - typeName: SLACK\n`);
    expect((await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url))).code).toBe(0);
    await rm(join(dir, 'state'), { recursive: true, force: true });
    const { run, under } = await planUnder(only, '  <= alertConfig "no-primary" (id ');
    // In path order for the lone SLACK, in YAML order for the webhooks (item 2 before item 3).
    expect(under.slice(1, 5)).toEqual([
      '      notifications[SLACK:#payments-alerts].apiToken: (secret, will be sent on adoption)',
      '      notifications[WEBHOOK, item 2].webhookSecret: (secret, will be sent on adoption)',
      '      notifications[WEBHOOK, item 2].webhookUrl: (secret, will be sent on adoption)',
      '      notifications[WEBHOOK, item 3].webhookUrl: (secret, will be sent on adoption)',
    ]);
    expect(run.stdout).not.toMatch(/WEBHOOK#/);
  });

  it('a project whose read fails is "could not plan" in the progress, never "planned", and listed under Failures', async () => {
    const fault = await fetch(`${emulator.origin}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: `/groups/${PAYMENTS_STAGING}/alertConfigs`, status: 403 }),
    });
    expect(fault.ok).toBe(true);
    const run = await runBinary(['plan', '--detailed-exitcode', ...common], toolEnv(emulator.url));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^ {2}· could not plan payments-staging \(\d\/6\)$/m);
    expect(run.stderr).not.toContain('planned payments-staging');
    expect(run.stderr).toMatch(/^ {2}· planned payments-prod \(\d\/6\)$/m);
    expect(run.stdout).toMatch(/^ {2}x Project payments-staging \(5e2211c17a3e5a48f5497de4\) \[read\]: /m);
  });

  it('an apply whose writes fail says so in its progress, never "applied <project>"', async () => {
    const run = await applyWithFailingUpdate();
    expect(run.stdout).toMatch(/^Apply finished with errors: 0 applied, 1 failed, /m);
    expect(run.stderr).toMatch(/^ {2}· finished payments-prod with 1 failed write \(1\/1\)$/m);
    expect(run.stderr).not.toContain('applied payments-prod');
  });

  it("the apply summary lists a failed write once, with its action, id and Ops Manager's answer", async () => {
    const run = await applyWithFailingUpdate();
    const summary = run.stdout.slice(run.stdout.indexOf('\nPlan: '));
    const mentions = summary.split('\n').filter((l) => l.includes('primary-connections-high'));
    expect(mentions, summary).toHaveLength(1);
    expect(mentions[0]).toMatch(
      /^ {2}~ Project payments-prod \(5e2211c17a3e5a48f5497de3\) alertConfig "primary-connections-high" \(id [0-9a-f]{24}\): update FAILED: .*500/,
    );
    expect(summary).not.toContain('Failures:');
    expect(summary).toMatch(/^Apply finished with errors: 0 applied, 1 failed, .* 1 target failed in /m);
  });

  it('a secret field taken out of the desired state reads as set on live and not in desired, never as a bare (secret)', async () => {
    const only = ['--project', PAYMENTS_PROD, ...common];
    expect((await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url))).code).toBe(0);
    await editDesired(
      'projects/payments.yaml',
      '          webhookSecret: { secretRef: "opsman/notify#payments-webhook-secret" }\n',
      '',
    );
    const { run, under } = await planUnder(only, '  ~ alertConfig "no-primary" (id ');
    expect(under.slice(0, 2)).toEqual([
      '      # 1 field(s) differ',
      '      notifications[WEBHOOK].webhookSecret: (secret set on live, not in desired)',
    ]);
    expect(run.stdout).not.toContain('fake-webhook-secret');
  });

  it('a secret field added to a notification that never had one is one "(secret added)" line, not "removed on live" and "changed"', async () => {
    const only = ['--project', PAYMENTS_PROD, ...common];
    const line = '          webhookSecret: { secretRef: "opsman/notify#payments-webhook-secret" }\n';
    await editDesired('projects/payments.yaml', line, '');
    expect((await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url))).code).toBe(0);
    await editDesired(
      'projects/payments.yaml',
      '          webhookUrl: { secretRef: "opsman/notify#payments-webhook-url" }\n',
      `          webhookUrl: { secretRef: "opsman/notify#payments-webhook-url" }\n${line}`,
    );
    const { run, under } = await planUnder(only, '  ~ alertConfig "no-primary" (id ');
    expect(under.slice(0, 3)).toEqual([
      '      # 1 field(s) differ',
      '      notifications[WEBHOOK].webhookSecret: (secret added)',
      '  (3 unmanaged objects left alone: Ops Manager defaults, hand-made or released configs, those of other tools)',
    ]);
    expect(run.stdout).toContain('0 drifted');
  });

  it('a Slack channel renamed shows its notification removed and added, never "apiToken: (secret changed)" under it', async () => {
    const only = ['--project', PAYMENTS_PROD, ...common];
    expect((await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url))).code).toBe(0);
    await editDesired('projects/payments.yaml', 'channelName: "#payments-alerts"', 'channelName: "#payments-oncall"');
    const { run, under } = await planUnder(only, '  ~ alertConfig "no-primary" (id ');
    expect(under.slice(0, 4)).toEqual([
      '      # 2 field(s) differ',
      '      notifications[SLACK:#payments-alerts]: {"typeName":"SLACK","delayMin":0,"intervalMin":5,"apiToken":"(secret)","channelName":"#payments-alerts"} -> (none)',
      '      notifications[SLACK:#payments-oncall]: (none) -> {"typeName":"SLACK","delayMin":0,"intervalMin":5,"apiToken":"(secret)","channelName":"#payments-oncall"}',
      '  (3 unmanaged objects left alone: Ops Manager defaults, hand-made or released configs, those of other tools)',
    ]);
    expect(run.stdout).not.toContain('(secret changed)');
  });

  it('an adoption says its secrets will be sent, never a bare (secret) per secret', async () => {
    const only = ['--project', PAYMENTS_PROD, ...common];
    expect((await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url))).code).toBe(0);
    // The state is lost: every config applied is now unowned and equal to its desired body, so it is adopted.
    await rm(join(dir, 'state'), { recursive: true, force: true });
    const { run, under } = await planUnder(only, '  <= alertConfig "no-primary" (id ');
    expect(under.slice(1, 4)).toEqual([
      '      notifications[SLACK:#payments-alerts].apiToken: (secret, will be sent on adoption)',
      '      notifications[WEBHOOK].webhookSecret: (secret, will be sent on adoption)',
      '      notifications[WEBHOOK].webhookUrl: (secret, will be sent on adoption)',
    ]);
    expect(run.stdout).not.toMatch(/: \(secret\)$/m);
  });

  it('the plan apply shows before it writes never says "nothing will be written": saved, or awaiting approval', async () => {
    // A project that asks for less than apply: its header says it is shown and not applied.
    await editDesired('projects/search.yaml', '  defaultServerType:', '  mode: plan\n  defaultServerType:');
    const out = join(dir, 'plan.json');
    const planned = await runBinary(['plan', '--out', out, ...common], toolEnv(emulator.url));
    expect(planned.code).toBe(0);
    // The plan previews the apply: its reviewer sees that this project's changes will not be written.
    expect(planned.stdout).toContain(
      'Project search-prod (5e2211c17a3e5a48f5497de5) [mode plan: shown, not applied]\n',
    );
    expect(planned.stdout).toMatch(/^Held: \d+ changes? in 1 target (is|are) shown, not applied now/m);
    const saved = await runBinary(['apply', '--plan', out, ...common], toolEnv(emulator.url));
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout.split('\n')[0]).toMatch(/^opsman-gitops plan \S+$/);
    expect(saved.stdout).toContain('Project search-prod (5e2211c17a3e5a48f5497de5) [mode plan: shown, not applied]\n');
    expect(saved.stdout).toMatch(/^Apply complete: [1-9]\d* applied/m);

    await editDesired('projects/payments.yaml', 'threshold: 5000', 'threshold: 4000');
    const io = recordingIo({ env: toolEnv(emulator.url), interactive: true, answers: ['no'] });
    const code = await runCli(['apply', ...common], { startEmulator: noEmulator, io });
    expect(code, io.err()).toBe(1);
    expect(io.questions).toHaveLength(1);
    expect(io.out().split('\n')[0]).toMatch(/^opsman-gitops plan \S+$/);
    expect(io.out()).toContain('metricThreshold.threshold: 5000 -> 4000');
  });
});
