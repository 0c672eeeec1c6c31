// Scenario: `plan --out` for payments-prod, then the webhook URL's key is deleted from the secrets file, then
// `apply --plan`: the failed change names the secretRef's file:line:column as the plan's blocked reason would, in the
// text, the JSON, the stored report and the `target failed` log line alike, with no secret value; once the desired-state file holding the reference
// is edited after the plan, the failure says the reference is not located instead of naming a place.
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { RunReport } from '../../../lambdas/core/model.ts';
import { logRunFindings } from '../../../lambdas/handlers/run-log.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { REPO_ROOT, toolEnv } from '../../helpers/cli-run.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const REF = 'opsman/notify#payments-webhook-url';

let emulator: { url: string; close(): Promise<void> };
let dir: string;
let desired: string;
let secretsPath: string;
let secrets: Record<string, Record<string, string>>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-apply-secret-place-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
  // A copy of the example: one test edits a desired-state file between plan and apply.
  desired = join(dir, 'desired-state');
  await cp(join(REPO_ROOT, 'desired-state'), desired, { recursive: true });
  secrets = JSON.parse(await readFile(join(REPO_ROOT, 'desired-state/local-secrets.json'), 'utf8')) as Record<
    string,
    Record<string, string>
  >;
  secretsPath = join(dir, 'secrets.json');
  await writeFile(secretsPath, JSON.stringify(secrets));
});

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const io = recordingIo({ env: toolEnv(emulator.url) });
  const common = ['--desired', desired, '--state-dir', join(dir, 'state'), '--secrets-file', secretsPath];
  // A saved plan keeps the selection it was made with: --project goes to `plan --out` only.
  const only = argv.includes('--plan') ? [] : ['--project', PAYMENTS_PROD];
  const code = await runCli([...argv, ...common, ...only], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

/** Writes the secrets file without the payments webhook URL (its secret renamed away since the plan). */
async function dropWebhookUrl(): Promise<void> {
  const notify = { ...(secrets['opsman/notify'] as Record<string, string>) };
  delete notify['payments-webhook-url'];
  await writeFile(secretsPath, JSON.stringify({ ...secrets, 'opsman/notify': notify }));
}

/** `projects/payments.yaml:<line>:<column>` of the webhook URL's secretRef string (its opening quote) in the copy. */
async function refPlace(): Promise<string> {
  const lines = (await readFile(join(desired, 'projects/payments.yaml'), 'utf8')).split('\n');
  const line = lines.findIndex((l) => l.includes(`"${REF}"`));
  return `projects/payments.yaml:${line + 1}:${(lines[line] as string).indexOf(`"${REF}"`) + 1}`;
}

/** The failure's reason with `where` after the field path (` at file:line:column`, or the not-located clause). */
function reason(where: string): string {
  return (
    `alert config "no-primary": secret reference ${REF} (notifications[WEBHOOK].webhookUrl)${where} could not be ` +
    `resolved: secret "opsman/notify" in ${secretsPath} has no key "payments-webhook-url"`
  );
}

/** The stored reports of the runs so far, parsed. */
async function storedReports(): Promise<RunReport[]> {
  const root = join(dir, 'state', 'archive');
  const files = (await readdir(root, { recursive: true })).filter(
    (f) => f.startsWith('reports') && f.endsWith('.json'),
  );
  return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(root, f), 'utf8')) as RunReport));
}

/** Every secret value of the example's secrets file. */
function values(): string[] {
  return Object.values(secrets).flatMap((s) => Object.values(s));
}

describe('a secret that fails to resolve between plan and apply', { timeout: 90_000 }, () => {
  it('names where its secretRef is written, in the text, the JSON and the stored report, with no value', async () => {
    const planFile = join(dir, 'plan.json');
    const plan = await cli(['plan', '--out', planFile]);
    expect(plan.code, plan.err).toBe(0);
    await dropWebhookUrl();

    const apply = await cli(['apply', '--plan', planFile]);
    expect(apply.code, apply.err).toBe(1);
    const expected = reason(` at ${await refPlace()}`);
    expect(apply.out).toContain(expected);
    expect(apply.out).toContain('(SECRET_UNRESOLVED)');
    const [report] = (await storedReports()).filter((r) => r.command === 'apply');
    const failed = report?.results.filter((r) => r.status === 'failed') ?? [];
    expect(failed.map((r) => [r.change.key, r.code, r.message])).toEqual([
      ['no-primary', 'SECRET_UNRESOLVED', expected],
    ]);
    // The run's failures carry the same words, and so does the Lambda's `target failed` line logged from them.
    expect(report?.failures.map((f) => f.message)).toEqual([`alertConfig no-primary: create failed: ${expected}`]);
    const logged: { message: string; fields: Record<string, unknown> }[] = [];
    const logger = {
      error: (message: string, fields: Record<string, unknown>) => logged.push({ message, fields }),
      warn: () => undefined,
    };
    logRunFindings(logger as unknown as Logger, report as RunReport);
    expect(logged.map((l) => [l.message, l.fields.code, l.fields.error])).toEqual([
      ['target failed', 'SECRET_UNRESOLVED', `alertConfig no-primary: create failed: ${expected}`],
    ]);

    // The JSON report of another saved plan (the first apply moved the state on): the same reason, same place.
    await writeFile(secretsPath, JSON.stringify(secrets));
    const again = await cli(['plan', '--out', planFile]);
    expect(again.code, again.err).toBe(0);
    await dropWebhookUrl();
    const json = await cli(['apply', '--plan', planFile, '--json']);
    expect(json.code, json.err).toBe(1);
    const parsed = JSON.parse(json.out) as RunReport;
    expect(parsed.results.filter((r) => r.status === 'failed').map((r) => r.message)).toEqual([expected]);
    expect(parsed.failures.map((f) => f.message)).toEqual([`alertConfig no-primary: create failed: ${expected}`]);

    const outputs = [plan.out, plan.err, apply.out, apply.err, json.out, json.err, await readFile(planFile, 'utf8')];
    for (const text of [...outputs, ...(await storedReports()).map((r) => JSON.stringify(r))]) {
      for (const value of values()) expect(text.includes(value)).toBe(false);
    }
  });

  it('says the reference is not located once the file holding it changed since the plan, and names no place', async () => {
    const planFile = join(dir, 'plan.json');
    const plan = await cli(['plan', '--out', planFile]);
    expect(plan.code, plan.err).toBe(0);
    await dropWebhookUrl();
    // Two lines added on top: the plan's line numbers no longer read the same text.
    const file = join(desired, 'projects/payments.yaml');
    await writeFile(file, `# moved\n# down\n${await readFile(file, 'utf8')}`);

    const apply = await cli(['apply', '--plan', planFile, '--json']);
    expect(apply.code, apply.err).toBe(1);
    const failed = (JSON.parse(apply.out) as RunReport).results.filter((r) => r.status === 'failed');
    expect(failed.map((r) => r.message)).toEqual([
      reason(', not located (the desired state changed since the plan was made),'),
    ]);
    expect(apply.out).not.toContain('payments.yaml:');
  });

  it.each([
    [
      'no longer valid',
      async () => writeFile(join(desired, 'projects/search.yaml'), 'apiVersion: [\n'),
      /^it has \d+ problem\(s\); run validate$/,
    ],
    [
      'gone',
      async () => rm(desired, { recursive: true, force: true }),
      // The source's own words for a directory that is not there.
      /^desired-state root \S+desired-state is not a readable directory$/,
    ],
  ])('says why the reference is not located when the desired state is %s since the plan', async (_name, spoil, why) => {
    const planFile = join(dir, 'plan.json');
    const plan = await cli(['plan', '--out', planFile]);
    expect(plan.code, plan.err).toBe(0);
    await dropWebhookUrl();
    await spoil();

    const apply = await cli(['apply', '--plan', planFile, '--json']);
    expect(apply.code, apply.err).toBe(1);
    const [failed, ...others] = (JSON.parse(apply.out) as RunReport).results.filter((r) => r.status === 'failed');
    expect(others).toEqual([]);
    const prefix = reason(', not located (the desired state could not be loaded to locate it: ').split(
      ' could not be resolved',
    )[0];
    const message = failed?.message ?? '';
    expect(message.startsWith(prefix as string)).toBe(true);
    const inner = message.slice((prefix as string).length, message.indexOf('), could not be resolved: '));
    expect(inner).toMatch(why);
    expect(
      message.endsWith(
        `could not be resolved: secret "opsman/notify" in ${secretsPath} has no key "payments-webhook-url"`,
      ),
    ).toBe(true);
  });

  it('still names the place when only another file of the desired state changed since the plan', async () => {
    const planFile = join(dir, 'plan.json');
    const plan = await cli(['plan', '--out', planFile]);
    expect(plan.code, plan.err).toBe(0);
    await dropWebhookUrl();
    const other = join(desired, 'projects/search.yaml');
    await writeFile(other, `# edited after the plan\n${await readFile(other, 'utf8')}`);

    const apply = await cli(['apply', '--plan', planFile, '--json']);
    expect(apply.code, apply.err).toBe(1);
    const failed = (JSON.parse(apply.out) as RunReport).results.filter((r) => r.status === 'failed');
    expect(failed.map((r) => r.message)).toEqual([reason(` at ${await refPlace()}`)]);
  });
});
