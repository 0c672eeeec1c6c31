// Scenario: a real `opsman-gitops apply` loses its terminal or its reader mid-run: SIGHUP (the terminal closed, often
// twice), SIGTERM, a closed stderr pipe (`apply 2>&1 | head -1`) and a closed stdout pipe (`| head -1`). Each stops
// as a first Ctrl-C does, or finishes: the writes in flight finish, the state is saved, the lock is released, the exit
// code is the run's own; never a crash that leaves the lock held, never a 0 for a run that failed. On a real terminal
// (util-linux `script` gives the run a pseudo-terminal, killed mid-apply), the run stops gracefully and then ends
// by SIGHUP, not by Node's abort on restoring a terminal that is gone. At the approval prompt, Ctrl-C (typed) and
// SIGTERM cancel the apply as interrupted (exit 130, a message), end of input refuses it (exit 1).
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { PLAN_FORMAT_VERSION } from '../../../lambdas/core/model.ts';
import { REPO_ROOT, runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { HAS_SCRIPT, processEnded, runOnTerminal } from '../../helpers/cli-terminal.ts';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

/** Adds one emulator fault on `method` `path` (every matching request, for the whole test). */
async function fault(spec: { method: string; path: string; latencyMs?: number; status?: number }): Promise<void> {
  const answer = await fetch(`${emulator.origin}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...spec, times: 1_000_000 }),
  });
  expect(answer.ok).toBe(true);
}

/** The requests that were not reads, from the emulator's log. */
async function writesSent(): Promise<{ method: string; path: string }[]> {
  const log = (await (await fetch(`${emulator.origin}/__emulator/requests`)).json()) as {
    entries: { method: string; path: string }[];
  };
  return log.entries.filter((e) => e.method !== 'GET');
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-interrupt-output-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true });
  common = ['--state-dir', join(dir, 'state'), '--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json')];
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
const leaseFile = () => join(dir, 'state', 'lease.json');
const APPLY = () => ['apply', '--auto-approve', '--no-color', ...common];
const FIRST_APPLIED = /applied .* \(1\/\d+\)/;

describe('signals other than Ctrl-C during apply', { timeout: 120_000 }, () => {
  it.each([
    ['SIGHUP', 'SIGHUP (terminal closed)'],
    ['SIGTERM', 'SIGTERM'],
  ] as const)('%s: stops gracefully: exit 130, state saved, lock released', async (signal, reason) => {
    // 1.5 s a create: writes are still to start when the signal lands, even if a loaded machine delays it by a second.
    await fault({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 1_500 });
    const run = await runBinary(APPLY(), toolEnv(emulator.url), REPO_ROOT, [{ when: FIRST_APPLIED, signal }]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    expect(run.stderr).toContain(`${reason} received: no new write starts`);
    expect(run.stdout).toMatch(
      new RegExp(`^Apply interrupted by ${reason.replace(/[()]/g, '\\$&')}: [1-9]\\d* applied`, 'm'),
    );
    expect(await exists(leaseFile())).toBe(false);
    expect(await exists(join(dir, 'state', 'state.json'))).toBe(true);
  });

  it('a second SIGHUP (the shell, then the kernel) does not stop at once: the lock is still released', async () => {
    await fault({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 1_500 });
    const run = await runBinary(APPLY(), toolEnv(emulator.url), REPO_ROOT, [
      { when: FIRST_APPLIED, signal: 'SIGHUP' },
      { when: /received: no new write starts/, signal: 'SIGHUP' },
    ]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    expect(run.stderr).not.toContain('again: stopping at once');
    expect(run.stdout).toMatch(/^Apply interrupted by SIGHUP \(terminal closed\): /m);
    expect(await exists(leaseFile())).toBe(false);
  });
});

describe('a Ctrl-C or SIGTERM after a stop a SIGHUP started', { timeout: 120_000 }, () => {
  it('stops at once, as any second interrupt does', async () => {
    await fault({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 1_500 });
    const run = await runBinary(APPLY(), toolEnv(emulator.url), REPO_ROOT, [
      { when: FIRST_APPLIED, signal: 'SIGHUP' },
      { when: /received: no new write starts/, signal: 'SIGTERM' },
    ]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    expect(run.stderr).toContain('SIGTERM again: ');
    expect(run.stdout).not.toMatch(/^Apply interrupted by/m);
  });
});

describe('a closed output pipe', { timeout: 120_000 }, () => {
  it('stderr closed (`apply 2>&1 | head -1`): no crash, the apply stops gracefully and releases the lock', async () => {
    // Writes answer slowly, so progress lines are still being written while the apply runs.
    await fault({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 300 });
    const run = await runBinary(APPLY(), toolEnv(emulator.url), REPO_ROOT, [], { closeReader: 'stderr' });
    expect(run.code, run.stdout).toBe(130);
    // Stopped while planning (the first progress line is a planned target): nothing written, no lock left.
    expect(await writesSent()).toEqual([]);
    expect(await exists(leaseFile())).toBe(false);
    // The next apply is not refused by a lock and converges.
    const next = await runBinary(APPLY(), toolEnv(emulator.url));
    expect(next.code, next.stderr).toBe(0);
  });

  it('stdout closed (`apply | head -1`): the apply finishes, its exit code is its own (1 for a failed write, not 0)', async () => {
    // Every create is refused: the apply fails (exit 1), after which its summary meets the closed pipe.
    await fault({ method: 'POST', path: '/groups/*/alertConfigs', status: 400 });
    const run = await runBinary(APPLY(), toolEnv(emulator.url), REPO_ROOT, [], { closeReader: 'stdout' });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).not.toMatch(/EPIPE|at .*\.ts:\d+/);
    expect(await exists(leaseFile())).toBe(false);
    const state = JSON.parse(await readFile(join(dir, 'state', 'state.json'), 'utf8')) as { lastRun?: unknown };
    expect(state).toBeTypeOf('object');
  });

  it('stdout closed (`plan --out FILE | head -1`): the plan is still saved, exit code of the plan', async () => {
    const out = join(dir, 'plan.json');
    const run = await runBinary(
      ['plan', '--detailed-exitcode', '--out', out, ...common],
      toolEnv(emulator.url),
      REPO_ROOT,
      [],
      { closeReader: 'stdout' },
    );
    // 2: the example world has changes to make.
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`Saved the plan to ${out}`);
    const saved = JSON.parse(await readFile(out, 'utf8')) as { formatVersion: number; changes: unknown[] };
    expect(saved.formatVersion).toBe(PLAN_FORMAT_VERSION);
    expect(saved.changes.length).toBeGreaterThan(0);
  });
});

describe('stdout on a full disk', () => {
  it('`schema > /dev/full`: says so on stderr and exits 1, not 0', async () => {
    const run = await runBinary(['schema'], {}, REPO_ROOT, [], { stdoutFile: '/dev/full' });
    expect(run.stderr).toContain('error: cannot write to stdout: ENOSPC');
    expect(run.code).toBe(1);
  });
});

describe('the terminal closed', { timeout: 120_000 }, () => {
  it.skipIf(!HAS_SCRIPT)('mid-apply: graceful stop, then the process ends by SIGHUP, never by an abort', async () => {
    await fault({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 1_000 });
    // stderr to a file: what the binary says after its terminal is gone (an abort's message) can still be read.
    const stderrFile = join(dir, 'stderr.txt');
    const run = runOnTerminal(APPLY(), toolEnv(emulator.url), { pidFile: join(dir, 'pid'), stderrFile });
    const pid = await run.pid();
    // The first target applied: creates are in flight when the terminal goes away.
    for (let i = 0; i < 600 && !FIRST_APPLIED.test(await readFile(stderrFile, 'utf8').catch(() => '')); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await run.hangUp();
    expect(await processEnded(pid)).toBe(true);
    const stderr = await readFile(stderrFile, 'utf8');
    expect(stderr).toContain('SIGHUP (terminal closed) received: no new write starts');
    expect(stderr).toMatch(/error: interrupted \(SIGHUP \(terminal closed\)\): \d+ writes? not started/);
    expect(stderr).not.toContain('Assertion failed');
    expect(await exists(leaseFile())).toBe(false);
    const days = await readdir(join(dir, 'state', 'archive', 'reports'));
    const reports = await readdir(join(dir, 'state', 'archive', 'reports', days[0] as string));
    const report = JSON.parse(
      await readFile(join(dir, 'state', 'archive', 'reports', days[0] as string, reports[0] as string), 'utf8'),
    ) as { interrupted?: { reason: string } };
    expect(report.interrupted?.reason).toBe('SIGHUP (terminal closed)');
  });
});

describe('at the approval prompt (apply on a terminal, without --auto-approve)', { timeout: 120_000 }, () => {
  const ASK = () => ['apply', '--no-color', ...common];
  const PROMPT = /Enter a value: /;

  it.skipIf(!HAS_SCRIPT)('Ctrl-C typed: the apply is cancelled as interrupted, exit 130, nothing written', async () => {
    const run = runOnTerminal(ASK(), toolEnv(emulator.url), { pidFile: join(dir, 'pid') });
    await run.waitFor(PROMPT);
    await fetch(`${emulator.origin}/__emulator/requests`, { method: 'DELETE' });
    run.type('\x03');
    expect(await run.done, run.output()).toBe(130);
    expect(run.output()).toContain('Apply cancelled by Ctrl-C (SIGINT): nothing was written.');
    expect(await writesSent()).toEqual([]);
  });

  it.skipIf(!HAS_SCRIPT)('SIGTERM: the apply is cancelled with a message, exit 130 (not killed silently)', async () => {
    const run = runOnTerminal(ASK(), toolEnv(emulator.url), { pidFile: join(dir, 'pid') });
    await run.waitFor(PROMPT);
    process.kill(await run.pid(), 'SIGTERM');
    expect(await run.done, run.output()).toBe(130);
    expect(run.output()).toContain('Apply cancelled by SIGTERM: nothing was written.');
  });

  it.skipIf(!HAS_SCRIPT)('end of input (Ctrl-D): refused as any answer but yes, exit 1', async () => {
    const run = runOnTerminal(ASK(), toolEnv(emulator.url), { pidFile: join(dir, 'pid') });
    await run.waitFor(PROMPT);
    run.type('\x04');
    expect(await run.done, run.output()).toBe(1);
    expect(run.output()).toContain('Apply cancelled: nothing was written.');
  });
});
