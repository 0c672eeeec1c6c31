// Scenario: a real `opsman-gitops apply` loses its terminal or its reader mid-run: SIGHUP (the terminal closed, often
// twice), SIGTERM, a closed stderr pipe (`apply 2>&1 | head -1`) and a closed stdout pipe (`| head -1`). Each stops
// as a first Ctrl-C does, or finishes: the writes in flight finish, the state is saved, the lock is released, the exit
// code is the run's own; never a crash that leaves the lock held, never a 0 for a run that failed. On a real terminal
// (util-linux `script` gives the run a pseudo-terminal, killed mid-apply), the run stops gracefully and then ends
// by SIGHUP, not by Node's abort on restoring a terminal that is gone.
import { spawn, spawnSync } from 'node:child_process';
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { REPO_ROOT, runBinary, toolEnv } from '../../helpers/cli-run.ts';

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
    await fault({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 500 });
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
    expect(saved.formatVersion).toBe(1);
    expect(saved.changes.length).toBeGreaterThan(0);
  });
});

/** util-linux `script`, to give the binary a real terminal; the test that needs it is skipped without it. */
const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;

/** Whether process `pid` has ended (gone, or a zombie nobody reaped yet). */
async function ended(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return status === '' || /^State:\s+Z/m.test(status);
}

describe('the terminal closed', { timeout: 120_000 }, () => {
  it.skipIf(!HAS_SCRIPT)('mid-apply: graceful stop, then the process ends by SIGHUP, never by an abort', async () => {
    await fault({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 1_000 });
    const errFile = join(dir, 'stderr.txt');
    const pidFile = join(dir, 'pid');
    // The binary leads the terminal's session (exec), as a login shell's job does; stderr goes to a file so that
    // what it says after the terminal is gone (an abort's message) can be read.
    const command = [
      `echo $$ > '${pidFile}'`,
      `exec '${process.execPath}' bin/opsman-gitops.mjs ${APPLY().join(' ')} 2> '${errFile}'`,
    ].join('; ');
    const terminal = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...toolEnv(emulator.url) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const closed = new Promise((resolve) => terminal.on('close', resolve));
    // The first target applied: creates are in flight. Then the terminal goes away (its master end closed).
    for (let i = 0; i < 600 && !FIRST_APPLIED.test(await readFile(errFile, 'utf8').catch(() => '')); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const pid = Number(await readFile(pidFile, 'utf8'));
    terminal.kill('SIGKILL');
    await closed;
    for (let i = 0; i < 600 && !(await ended(pid)); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await ended(pid)).toBe(true);
    const stderr = await readFile(errFile, 'utf8');
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
