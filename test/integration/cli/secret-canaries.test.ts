// Scenario: an adversarial secrets-leak sweep of the CLI. Every secret of the example (webhook URLs with userinfo, a
// path and a query; keys; tokens), the private key and the fingerprint key hold a canary; the whole life of the
// example is driven through the in-process CLI against the emulator (apply, plan in text, JSON and Markdown, a saved
// plan, observe, rotated secrets, a failing write, malformed secret values, a broken secrets file, export and archive),
// and the canary must appear in no stdout, no stderr, and no file the tool wrote (state, saved plan, archive, export).
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, REPO_ROOT } from '../../helpers/cli-run.ts';

/** Letters no message, id or fixture of the tool holds: any sighting of them (any case) is a leak. */
const CANARY = 'zqjxcanary';
/** The fingerprint key (32 bytes of hex): hex cannot hold the canary, so its own marker `cafe0ddba11` is looked for. */
const FINGERPRINT_KEY = `${'cafe0ddba11'.repeat(5)}cafe0ddba`;

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let desired: string;
let secretsPath: string;
/** Everything printed, by every run of the sweep. */
const printed: string[] = [];

/** A secrets file whose every value holds the canary, in round `round` (a rotation gives new values). */
function canarySecrets(round: number): Record<string, Record<string, string>> {
  const url = (host: string, field: string) =>
    `https://user-${CANARY}:pw-${CANARY}${round}@${host}.example.invalid/${field}/${CANARY}${round}?token=${CANARY}${round}&x=%2F${CANARY}`;
  return {
    'opsman/notify': {
      'payments-webhook-url': url('hooks', 'payments'),
      'payments-webhook-secret': `whsec-${CANARY}${round}"quote\\back`,
      'slack-bot-token': `xoxb-${CANARY}${round}`,
      'search-teams-webhook-url': url('teams', 'search'),
      'opsgenie-api-key': `og-${CANARY}${round}`,
    },
    'opsman/analytics': {
      'pagerduty-service-key': `pd-${CANARY}${round}`,
      'datadog-api-key': `dd-${CANARY}${round}`,
    },
  };
}

/** The private key of the tool's API key, for this sweep: the emulator is told the canary one. */
const PRIVATE_KEY = `${CANARY}-${KEYS.tool.privateKey}`;

async function cli(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  const io = recordingIo({
    env: {
      OPSMAN_BASE_URL: emulator.url,
      OPSMAN_PUBLIC_KEY: KEYS.tool.publicKey,
      OPSMAN_PRIVATE_KEY: PRIVATE_KEY,
      OPSMAN_FINGERPRINT_KEY: FINGERPRINT_KEY,
      ...env,
    },
  });
  const code = await runCli(argv, { startEmulator: noEmulator, io });
  printed.push(`$ ${argv.join(' ')}\n${io.out()}\n${io.err()}`);
  return { code, out: io.out(), err: io.err() };
}

/** `--desired`, `--state-dir` (the first four) and `--secrets-file`. */
function common(): string[] {
  return ['--desired', desired, '--state-dir', join(dir, 'state'), '--secrets-file', secretsPath];
}

/** Every file under `root` but the secrets file (which holds the canary by design), with its text. */
async function filesUnder(root: string): Promise<Array<{ path: string; text: string }>> {
  const out: Array<{ path: string; text: string }> = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (path === secretsPath) continue;
    out.push({ path, text: (await readFile(path)).toString('latin1') });
  }
  return out;
}

/** True when the canary or the fingerprint key's marker shows, in any case (JSON- and percent-escaping keep its letters). */
function sightings(text: string): boolean {
  return text.toLowerCase().includes(CANARY) || text.toLowerCase().includes('cafe0ddba11');
}

async function setEmulatorKey(privateKey: string): Promise<void> {
  const answer = await fetch(`${emulator.origin}/__emulator/api-keys/${KEYS.tool.publicKey}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ privateKey }),
  });
  expect(answer.ok).toBe(true);
}

async function fault(body: Record<string, unknown>): Promise<void> {
  const answer = await fetch(`${emulator.origin}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.ok).toBe(true);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-secret-canaries-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true });
  await setEmulatorKey(PRIVATE_KEY);
  desired = join(dir, 'desired');
  await cp(join(REPO_ROOT, 'desired-state'), desired, { recursive: true });
  await rm(join(desired, 'local-secrets.json'));
  secretsPath = join(dir, 'secrets.json');
  await writeFile(secretsPath, JSON.stringify(canarySecrets(1)));
});

afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('no canary secret leaves the CLI', { timeout: 300_000 }, () => {
  it('through a whole life of the example: applies, plans, rotations, failures, bad values, export, archive', async () => {
    const archive = ['--archive-dir', join(dir, 'archive')];
    // First apply: every secret is sent.
    expect((await cli(['apply', '--auto-approve', ...common(), ...archive])).code).toBe(0);
    // Plans of every format, and observe, against the applied world.
    for (const format of [[], ['--json'], ['--markdown']]) {
      await cli(['plan', ...format, ...common(), ...archive]);
      await cli(['observe', ...format, ...common(), ...archive]);
    }
    // Rotated secrets: a saved plan and its apply; then a plan in every format of the rotation.
    await writeFile(secretsPath, JSON.stringify(canarySecrets(2)));
    for (const format of [[], ['--json'], ['--markdown']]) await cli(['plan', ...format, ...common()]);
    expect((await cli(['plan', '--out', join(dir, 'saved-plan.json'), ...common()])).code).toBe(0);
    expect(
      (
        await cli([
          'apply',
          '--plan',
          join(dir, 'saved-plan.json'),
          '--auto-approve',
          ...common().slice(0, 4),
          '--secrets-file',
          secretsPath,
          ...archive,
        ])
      ).code,
    ).toBe(0);
    // Rotated again, with every write failing (400, then an ambiguous 500 after the write), text and JSON.
    await writeFile(secretsPath, JSON.stringify(canarySecrets(3)));
    await fault({ method: 'PUT', path: '/groups/*/alertConfigs/*', status: 400, times: 100 });
    await cli(['apply', '--auto-approve', ...common(), ...archive]);
    await cli(['apply', '--auto-approve', '--json', ...common(), ...archive]);
    await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });
    await fault({ method: 'PUT', path: '/groups/*/alertConfigs/*', status: 500, phase: 'after', times: 100 });
    await cli(['apply', '--auto-approve', '--json', ...common(), ...archive]);
    await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });
    // Malformed values: a newline, white space, a control character, a mask, a bad URL, a number, a long value.
    const bad = canarySecrets(4);
    const notify = bad['opsman/notify'] as Record<string, unknown>;
    notify['payments-webhook-url'] = `not a url ${CANARY}`;
    notify['payments-webhook-secret'] = `${CANARY}\n`;
    notify['slack-bot-token'] = ` ${CANARY}`;
    notify['search-teams-webhook-url'] = `https://${CANARY}\u0007.example.invalid/x`;
    notify['opsgenie-api-key'] = `****${CANARY}`;
    (bad['opsman/analytics'] as Record<string, unknown>)['pagerduty-service-key'] = 12345;
    (bad['opsman/analytics'] as Record<string, unknown>)['datadog-api-key'] = CANARY.repeat(10_000);
    await writeFile(secretsPath, JSON.stringify(bad));
    for (const format of [[], ['--json'], ['--markdown']]) await cli(['plan', ...format, ...common()]);
    await cli(['apply', '--auto-approve', '--json', ...common(), ...archive]);
    // A secrets file that is not JSON, around a secret.
    await writeFile(secretsPath, `{"opsman/notify": {"payments-webhook-url": "${CANARY}" oops ${CANARY}}`);
    await cli(['plan', ...common()]);
    await cli(['plan', '--json', ...common()]);
    // The secrets from the environment instead, malformed.
    await cli(['plan', '--json', ...common().slice(0, 4)], {
      OPSMAN_SECRET_OPSMAN_NOTIFY_PAYMENTS_WEBHOOK_URL: `${CANARY}\r\n`,
    });
    await writeFile(secretsPath, JSON.stringify(canarySecrets(1)));
    // A private key the server does not accept (401s), and one of a bad shape (usage error).
    await cli(['plan', ...common()], { OPSMAN_PRIVATE_KEY: `${CANARY}-wrong` });
    await cli(['plan', '--json', ...common()], { OPSMAN_PRIVATE_KEY: `${CANARY} "bad\n` });
    await cli(['plan', ...common()], { OPSMAN_FINGERPRINT_KEY: `${CANARY}!!` });
    // Export (stdout, JSON, files) and archive.
    const projects = ['5e2211c17a3e5a48f5497de3', '5e2211c17a3e5a48f5497de4', '5e2211c17a3e5a48f5497de5'];
    const only = projects.flatMap((p) => ['--project', p]);
    await cli(['export', ...only]);
    await cli(['export', '--json', ...only]);
    await cli(['export', '--out', join(dir, 'exported'), ...only]);
    await cli(['archive', ...common().slice(0, 4), ...archive]);

    const leaks = printed.filter(sightings).map((text) => text.slice(0, 2000));
    expect(leaks).toEqual([]);
    const files = (await filesUnder(dir)).filter((f) => sightings(f.text)).map((f) => f.path);
    expect(files).toEqual([]);
  });
});
