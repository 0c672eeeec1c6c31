// Scenario: Ctrl-C (or SIGTERM, or a closed stderr pipe) while a real `opsman-gitops export` waits for a read Ops
// Manager is slow to answer: the read is abandoned, nothing is printed and no --out file, temp file or directory is
// left, exit 130 with a clear message (with --json, the failure document with code INTERRUPTED). A second Ctrl-C
// stops at once. (An interrupt while the files are written: test/unit/export/export-write.test.ts.)
import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { REPO_ROOT, runBinary, toolEnv } from '../../helpers/cli-run.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const PAYMENTS_STAGING = '5e2211c17a3e5a48f5497de4';
const ALERT_CONFIGS = `/groups/${PAYMENTS_PROD}/alertConfigs`;

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-export-interrupt-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true });
  // payments-prod's alert configs take a minute to come (after the Digest challenge, which is answered at once).
  const fault = await fetch(`${emulator.origin}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: ALERT_CONFIGS, latencyMs: 60_000, times: 1_000_000 }),
  });
  expect(fault.ok).toBe(true);
});

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * Resolves once the emulator has answered a request for each of `paths`. Polls the request log, which records a
 * request when it is answered: the first request of a run is its Digest challenge, answered at once.
 */
async function requested(paths: readonly string[], limitMs = 60_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    const log = (await (await fetch(`${emulator.origin}/__emulator/requests`)).json()) as {
      entries: { path: string }[];
    };
    if (paths.every((path) => log.entries.some((e) => e.path === path))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no request for each of ${paths.join(', ')} within ${limitMs} ms`);
}

/** The slow read has been challenged: the export has its interrupt handling in place and the read is on its way. */
const slowReadStarted = () => requested([ALERT_CONFIGS]);

/**
 * payments-staging has been read (its singletons, read last, answered): payments-prod's slow read follows at once,
 * or is about to be sent, when the signal lands.
 */
const stagingRead = () =>
  requested([
    `/groups/${PAYMENTS_STAGING}/automationConfig/auditLogRotateConfig`,
    `/usage/groups/${PAYMENTS_STAGING}/defaultServerType`,
  ]);

describe('Ctrl-C while export reads', { timeout: 120_000 }, () => {
  it.each([
    ['SIGINT', 'Ctrl-C (SIGINT)'],
    ['SIGTERM', 'SIGTERM'],
  ] as const)('%s with --out: abandons the read in flight, leaves no file, exit 130', async (signal, reason) => {
    const out = join(dir, 'out');
    const started = Date.now();
    const run = await runBinary(
      ['export', '--project', PAYMENTS_STAGING, '--project', PAYMENTS_PROD, '--out', out],
      toolEnv(emulator.url),
      REPO_ROOT,
      [],
      { signalWhen: { ready: stagingRead(), signal } },
    );
    // Was: ended by the signal itself (no exit code, no word).
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    // The read takes 60 s: the run ended because it was abandoned (or never sent).
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(run.stderr).toContain(
      `${reason} received: stopping; the reads in flight are abandoned and nothing is written. Interrupt again to stop at once.`,
    );
    expect(run.stderr).toContain(
      `error: the export was stopped while reading Ops Manager (${reason}): nothing was written`,
    );
    expect(run.stdout).toBe('');
    // payments-staging was read and exported before: its file is not written either, nor is --out made.
    expect(await exists(out)).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });

  it('--json: the failure document with code INTERRUPTED on stdout, exit 130', async () => {
    const run = await runBinary(
      ['export', '--json', '--project', PAYMENTS_PROD],
      toolEnv(emulator.url),
      REPO_ROOT,
      [],
      { signalWhen: { ready: slowReadStarted(), signal: 'SIGINT' } },
    );
    expect(run.code, run.stderr).toBe(130);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      error: {
        code: 'INTERRUPTED',
        message: 'the export was stopped while reading Ops Manager (Ctrl-C (SIGINT)): nothing was written',
      },
    });
  });

  it('a second SIGINT stops at once and says so', async () => {
    const run = await runBinary(
      ['export', '--project', PAYMENTS_PROD, '--out', join(dir, 'out')],
      toolEnv(emulator.url),
      REPO_ROOT,
      [{ when: /received: stopping/, signal: 'SIGINT' }],
      { signalWhen: { ready: slowReadStarted(), signal: 'SIGINT' } },
    );
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain('SIGINT again: stopping at once; nothing was written');
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('a closed stderr pipe while export reads', { timeout: 120_000 }, () => {
  it('stops as a first Ctrl-C does at the first line it cannot write: no file, exit 130', async () => {
    // The read stalls: the stall notice (after half the deadline, 15 s) meets the closed pipe, 15 s before the
    // deadline would fail the read.
    const out = join(dir, 'out');
    const started = Date.now();
    const run = await runBinary(
      ['export', '--project', PAYMENTS_PROD, '--out', out, '--request-timeout', '30'],
      toolEnv(emulator.url),
      REPO_ROOT,
      [],
      { closeReader: 'stderr' },
    );
    // Was: the run went on to the deadline and failed with exit 1 (OPSMAN_TRANSPORT_ERROR).
    expect(run.code, run.stdout).toBe(130);
    expect(Date.now() - started).toBeLessThan(29_000);
    expect(await readdir(dir)).toEqual([]);
  });
});
