// Scenario: the secrets file holds a webhook URL without its scheme (a token in its path): plan shows no-primary
// blocked with a reason naming key, field, reference and the fault, exit 1; apply writes the other changes and nothing
// for no-primary; the value appears in no output and no state file; fixing the secret lifts the block.
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, REPO_ROOT, toolEnv } from '../../helpers/cli-run.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const TOKEN = 'T0KEN-7c1d9e2f4a6b8c0d';
const BAD_URL = `hooks.example.invalid/payments/${TOKEN}`;
/** Where the example writes the webhook URL's secretRef: `projects/payments.yaml:<line>:<column>` of its value. */
function secretRefPlace(): string {
  const lines = readFileSync(join(REPO_ROOT, 'desired-state/projects/payments.yaml'), 'utf8').split('\n');
  // The position is the value's first character: its opening quote when it is quoted.
  const line = lines.findIndex((l) => /secretRef: *"?opsman\/notify#payments-webhook-url/.test(l));
  const column = (lines[line] as string).search(/"?opsman\/notify#payments-webhook-url/) + 1;
  return `projects/payments.yaml:${line + 1}:${column}`;
}
const REASON =
  'alert config "no-primary": secret reference opsman/notify#payments-webhook-url ' +
  `(notifications[WEBHOOK].webhookUrl) at ${secretRefPlace()} resolves to a value that is not an absolute http(s) URL`;

let emulator: { url: string; close(): Promise<void> };
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-secret-shape-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
});

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

/** Writes the example secrets file with the payments webhook URL replaced by `url`; returns its path. */
async function secretsFile(url: string): Promise<string> {
  const example = JSON.parse(await readFile(join(REPO_ROOT, 'desired-state/local-secrets.json'), 'utf8')) as Record<
    string,
    Record<string, string>
  >;
  (example['opsman/notify'] as Record<string, string>)['payments-webhook-url'] = url;
  const file = join(dir, 'secrets.json');
  await writeFile(file, JSON.stringify(example));
  return file;
}

async function cli(argv: string[], secrets: string) {
  const io = recordingIo({ env: toolEnv(emulator.url) });
  const common = ['--desired', join(REPO_ROOT, 'desired-state'), '--state-dir', join(dir, 'state')];
  const code = await runCli([...argv, ...common, '--project', PAYMENTS_PROD, '--secrets-file', secrets], {
    startEmulator: noEmulator,
    io,
  });
  return { code, out: io.out(), err: io.err() };
}

/** Every file the state directory holds, as text. */
async function stateFiles(): Promise<string[]> {
  const entries = await readdir(join(dir, 'state'), { recursive: true, withFileTypes: true });
  return Promise.all(entries.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'utf8')));
}

describe('a secret whose value has the wrong shape', { timeout: 60_000 }, () => {
  it('blocks its alert config at plan time; apply writes everything else and nothing for it; the value never shows', async () => {
    const bad = await secretsFile(BAD_URL);

    const plan = await cli(['plan'], bad);
    expect(plan.code).toBe(1);
    expect(plan.out).toContain(`! alertConfig "no-primary"\n      # ${REASON}\n`);
    expect(plan.out).toMatch(/Plan: [1-9]\d* to create, .* 1 blocked,/);
    expect(plan.err).toContain('error: 1 change blocked (details on stdout)');

    const json = await cli(['plan', '--json'], bad);
    expect(json.code).toBe(1);
    const blocked = (JSON.parse(json.out) as Plan).changes.filter((c) => c.action === 'blocked');
    expect(blocked.map((c) => [c.key, c.reason])).toEqual([['no-primary', REASON]]);

    const apply = await cli(['apply', '--auto-approve'], bad);
    expect(apply.code).toBe(1);
    expect(apply.out).toMatch(/Apply finished with errors: [1-9]\d* applied, 0 failed, .*, 1 blocked,/);
    const state = JSON.parse(await readFile(join(dir, 'state', 'state.json'), 'utf8')) as {
      projects: Record<string, { alertConfigs: Record<string, unknown> }>;
    };
    const owned = state.projects[PAYMENTS_PROD]?.alertConfigs ?? {};
    expect(Object.keys(owned).length).toBeGreaterThan(0);
    expect(owned['no-primary']).toBeUndefined();
    const client = createOpsManagerClient({ baseUrl: emulator.url, ...KEYS.tool });
    try {
      const live = await client.listAlertConfigs(PAYMENTS_PROD);
      expect(live.filter((c) => c.notifications.some((n) => n.typeName === 'WEBHOOK'))).toEqual([]);
    } finally {
      await client.close();
    }

    const outputs = [plan.out, plan.err, json.out, json.err, apply.out, apply.err, ...(await stateFiles())];
    for (const text of outputs) {
      expect(text.includes(TOKEN)).toBe(false);
      expect(text.includes('hooks.example.invalid/payments')).toBe(false);
    }

    // Fixed in the secrets file: the block lifts and no-primary is created.
    const fixed = await cli(['plan', '--json'], await secretsFile(`https://${BAD_URL}`));
    expect(fixed.code).toBe(0);
    const noPrimary = (JSON.parse(fixed.out) as Plan).changes.find((c) => c.key === 'no-primary');
    expect(noPrimary?.action).toBe('create');
  });
});
