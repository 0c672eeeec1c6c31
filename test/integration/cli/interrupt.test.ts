// Scenario: Ctrl-C while a real `opsman-gitops plan`, `observe` or `apply` waits for a read Ops Manager is slow to
// answer: the read is abandoned, nothing is printed, saved or written, the lock is released, exit 130.
// Ctrl-C during a real `opsman-gitops apply` (the binary, SIGINT from the test once the first target is
// applied, the emulator answering creates slowly): exit 130, the writes in flight finish, the state is saved and the lock
// released, and the next apply writes only what was left and converges. A second SIGINT stops at once, leaving the
// lock to expire, and says so; the next apply names that lock and `unlock RUN_ID` removes it (only that run's).
// Ctrl-C while apply waits (--lease-wait) for a lock another run holds: exit 130, naming the holder, nothing written.
// Ctrl-C while apply's creates wait out a 429 Retry-After: they are not sent again, the run ends at once (was: a minute
// later, the creates "FAILED: 429"), they are listed as not started and the next plan is exactly what was left.
// SIGKILL after creates landed but before the state was saved: the next plan adopts them (pending markers), the lock
// left names its way out, and the apply after unlock creates the rest: each desired config created exactly once.
// Ctrl-C during archive: the reads in flight are abandoned, no new object is written, exit 130 with what was and was not.
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { REPO_ROOT, runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { entryChanges, fileAppears } from '../../helpers/fs-events.ts';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

/** Requests matching `method` and `path` wait `latencyMs`: the apply is still writing when a signal lands. */
async function slowDown(latencyMs: number, method = '*', path = '/**'): Promise<void> {
  await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });
  const fault = await fetch(`${emulator.origin}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method, path, latencyMs, times: 1_000_000 }),
  });
  expect(fault.ok).toBe(true);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-interrupt-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true });
  common = ['--state-dir', join(dir, 'state'), '--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json')];
});

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

const leaseFile = () => join(dir, 'state', 'lease.json');
/** unlock takes the state directory only (it refuses --secrets-file like any option it does not use). */
const stateDir = () => ['--state-dir', join(dir, 'state')];
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('Ctrl-C while planning', { timeout: 120_000 }, () => {
  // payments-prod's alert configs take a minute to come; the other projects answer at once, so the first
  // "planned ... (1/N)" line shows the run waiting on payments-prod alone when the signal lands.
  const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
  const SIGNAL_WHEN_PLANNING = [{ when: /planned .* \(1\/\d+\)/, signal: 'SIGINT' as const }];

  it.each([
    ['plan', ['--out', 'plan.json']],
    ['observe', ['--json']],
  ])('%s: abandons the read in flight, prints no plan, saves none, exit 130', async (command, extra) => {
    await slowDown(60_000, 'GET', `/groups/${PAYMENTS_PROD}/alertConfigs`);
    const args = [command, '--no-color', ...common, ...extra.map((a) => (a === 'plan.json' ? join(dir, a) : a))];
    const started = Date.now();
    const run = await runBinary(args, toolEnv(emulator.url), REPO_ROOT, SIGNAL_WHEN_PLANNING);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    // The read takes 60 s: the run ended because it was abandoned.
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(run.stderr).toContain(
      'Ctrl-C (SIGINT) received: stopping; the reads in flight are abandoned and nothing is written',
    );
    expect(run.stderr).toContain('error: the run was stopped while planning (Ctrl-C (SIGINT)): nothing was written');
    // No plan: with --json, the failure document instead (stdout always carries one JSON document).
    if (extra.includes('--json')) {
      expect(JSON.parse(run.stdout)).toEqual({
        ok: false,
        error: {
          code: 'INTERRUPTED',
          message: 'the run was stopped while planning (Ctrl-C (SIGINT)): nothing was written',
        },
      });
    } else expect(run.stdout).toBe('');
    expect(await exists(join(dir, 'plan.json'))).toBe(false);
  });

  it('plan: a read waiting out a Retry-After is abandoned and the process exits at once, not when the wait ends', async () => {
    // payments-prod's alert configs answer 503 with Retry-After: 60: the read sits in a 60 s backoff wait when the
    // signal lands. The run ends at once; so must the process (nothing may keep Node's event loop alive).
    await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });
    const fault = await fetch(`${emulator.origin}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        method: 'GET',
        path: `/groups/${PAYMENTS_PROD}/alertConfigs`,
        status: 503,
        retryAfter: 60,
        times: 1_000,
      }),
    });
    expect(fault.ok).toBe(true);
    const started = Date.now();
    const run = await runBinary(
      ['plan', '--no-color', ...common],
      toolEnv(emulator.url),
      REPO_ROOT,
      SIGNAL_WHEN_PLANNING,
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    expect(run.stderr).toContain('error: the run was stopped while planning (Ctrl-C (SIGINT)): nothing was written');
    // The backoff wait ends 60 s after the 503: a process still alive then waited for its timer.
    expect(Date.now() - started).toBeLessThan(40_000);
  });

  it('apply: abandons the read in flight, writes nothing, releases the lock, exit 130', async () => {
    await slowDown(60_000, 'GET', `/groups/${PAYMENTS_PROD}/alertConfigs`);
    await fetch(`${emulator.origin}/__emulator/requests`, { method: 'DELETE' });
    const started = Date.now();
    const run = await runBinary(
      ['apply', '--auto-approve', '--no-color', ...common],
      toolEnv(emulator.url),
      REPO_ROOT,
      SIGNAL_WHEN_PLANNING,
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(run.stderr).toContain('Ctrl-C (SIGINT) received: no new write starts; the reads in flight are abandoned');
    expect(run.stderr).toContain('error: the run was stopped while planning (Ctrl-C (SIGINT)): nothing was written');
    expect(await exists(leaseFile())).toBe(false);
    const log = (await (await fetch(`${emulator.origin}/__emulator/requests`)).json()) as {
      entries: { method: string }[];
    };
    expect(log.entries.filter((e) => e.method !== 'GET')).toEqual([]);
  });
});

describe('Ctrl-C while apply waits for a lock another run holds', { timeout: 120_000 }, () => {
  it.each([[[] as string[]], [['--json']]])(
    'stops waiting: exit 130, says it was stopped while waiting for the lock held by <holder>, nothing written %j',
    async (extra) => {
      const holder = await new FsStateStore(join(dir, 'state')).acquireLease({
        owner: 'ci@runner-7',
        runId: '20260101T000000Z-0a1b2c',
        ttlMs: 600_000,
      });
      await fetch(`${emulator.origin}/__emulator/requests`, { method: 'DELETE' });
      // The run prints nothing while it waits: the signal follows its first try for the lock (the lock file of the
      // lease, made and removed by each try), when its Ctrl-C handling is in place and the wait has begun.
      const run = await runBinary(
        ['apply', '--auto-approve', '--no-color', '--lease-wait', '600', ...common, ...extra],
        toolEnv(emulator.url),
        REPO_ROOT,
        [],
        { signalWhen: { ready: entryChanges(join(dir, 'state'), 'lease.json.lock'), signal: 'SIGINT' } },
      );
      // Was exit 1 with "another run holds the lease: ...; waited N ms (LEASE_HELD)".
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
      // The notice fits a run that holds no lock yet: no writes in flight to finish, no lock of its own to release.
      expect(run.stderr).toContain(
        '\nCtrl-C (SIGINT) received: stopping; the run is waiting for the lock and holds none: it stops waiting and nothing is written. Interrupt again to stop at once.\n',
      );
      expect(run.stderr).not.toContain('the writes in flight finish');
      const message = new RegExp(
        `the run was stopped while waiting for the lock held by ci@runner-7 \\(run 20260101T000000Z-0a1b2c, expires ${holder.expiresAt.replace(/\./g, '\\.')}\\) \\(Ctrl-C \\(SIGINT\\), after waiting \\d+ ms\\): nothing was written`,
      );
      expect(run.stderr).toMatch(new RegExp(`^error: ${message.source} \\(INTERRUPTED\\)$`, 'm'));
      expect(run.stderr).toContain('remove the lock with: opsman-gitops unlock 20260101T000000Z-0a1b2c');
      expect(run.stderr).not.toContain('LEASE_HELD');
      if (extra.includes('--json')) {
        const doc = JSON.parse(run.stdout) as { ok: boolean; error: { code: string; message: string } };
        expect(doc.ok).toBe(false);
        expect(doc.error.code).toBe('INTERRUPTED');
        expect(doc.error.message).toMatch(new RegExp(`^${message.source}$`));
      } else expect(run.stdout).toBe('');
      // The holder's lock is left as it was, and nothing was sent to Ops Manager.
      expect(JSON.parse(await readFile(leaseFile(), 'utf8'))).toMatchObject({ token: holder.token });
      const log = (await (await fetch(`${emulator.origin}/__emulator/requests`)).json()) as {
        entries: { method: string }[];
      };
      expect(log.entries.filter((e) => e.method !== 'GET')).toEqual([]);
    },
  );
});

describe('Ctrl-C during archive', { timeout: 120_000 }, () => {
  it('stops reading and writing, says what was archived and what was not, exit 130', async () => {
    // The usage reads take a minute: the version manifest is archived, the usage is still being read.
    await slowDown(60_000, 'GET', '/usage/**');
    const archiveDir = join(dir, 'archive');
    const started = Date.now();
    // The signal follows the manifest's last write (latest.json), while the usage reads wait for their answers.
    const run = await runBinary(
      ['archive', '--no-color', '--state-dir', join(dir, 'state'), '--archive-dir', archiveDir],
      toolEnv(emulator.url),
      REPO_ROOT,
      [],
      { signalWhen: { ready: fileAppears(join(archiveDir, 'manifests', 'latest.json')), signal: 'SIGINT' } },
    );
    // Was: killed at once by the signal, no word, no report (exit code null).
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(run.stderr).toContain('Ctrl-C (SIGINT) received: no new read or write starts');
    expect(run.stdout).toMatch(/^ {2}\+ manifests\/latest\.json$/m);
    const month = new Date().toISOString().slice(0, 7);
    expect(run.stdout).toContain(
      `Not archived (stopped before it was read or written; the next archive run stores it):\n  - usage ${month}: physical hosts\n  - usage ${month}: host assignments\n`,
    );
    expect(run.stdout).toMatch(
      /^Archive interrupted by Ctrl-C \(SIGINT\): [1-9]\d* objects? written, 2 parts not archived; /m,
    );
    expect(run.stdout).toMatch(/^Report: /m);
    // The stored report records the interrupt as the printed summary does, and it is the run's one report.
    const stored = /^Report: (.+)$/m.exec(run.stdout)?.[1] ?? '';
    const saved = JSON.parse(await readFile(stored, 'utf8')) as { interrupted?: unknown };
    expect(saved.interrupted).toEqual({ reason: 'Ctrl-C (SIGINT)', notStarted: 2 });
    const days = await readdir(join(archiveDir, 'reports'));
    const reports = (await Promise.all(days.map((d) => readdir(join(archiveDir, 'reports', d))))).flat();
    expect(reports).toHaveLength(1);
    expect(await exists(join(archiveDir, 'usage'))).toBe(false);

    // The next run stores what was left.
    await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });
    const next = await runBinary(
      ['archive', '--no-color', '--state-dir', join(dir, 'state'), '--archive-dir', archiveDir],
      toolEnv(emulator.url),
    );
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain(`+ usage/${month}/host-assignments.json`);
  });

  it('stopped before any object is written: the "nothing written" line points at what was not archived', async () => {
    // Every archive read waits a minute; the signal follows the first Digest challenge (sent before the fault's wait),
    // so the run is reading when it lands and has written nothing.
    await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });
    for (const path of ['/usage/**', '/unauth/**']) {
      const fault = await fetch(`${emulator.origin}/__emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method: 'GET', path, latencyMs: 60_000, times: 1_000_000 }),
      });
      expect(fault.ok).toBe(true);
    }
    await fetch(`${emulator.origin}/__emulator/requests`, { method: 'DELETE' });
    const reading = (async () => {
      for (;;) {
        const log = (await (await fetch(`${emulator.origin}/__emulator/requests`)).json()) as { challenges: number };
        if (log.challenges > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const archiveDir = join(dir, 'archive');
    const run = await runBinary(
      ['archive', '--no-color', '--state-dir', join(dir, 'state'), '--archive-dir', archiveDir],
      toolEnv(emulator.url),
      REPO_ROOT,
      [],
      { signalWhen: { ready: reading, signal: 'SIGINT' } },
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    // Was "(nothing written: 7 archive errors, listed below)", and no error was listed below.
    expect(run.stdout).not.toContain('listed below)');
    expect(run.stdout).toContain(
      '\n  (nothing written before the stop: what was not archived is listed below, the errors met in the report)\nNot archived (stopped before it was read or written; the next archive run stores it):\n  - version manifest\n',
    );
    expect(run.stdout).toMatch(/^Archive interrupted by Ctrl-C \(SIGINT\): 0 objects written, 3 parts not archived; /m);
  });

  it('--json: the report with interrupted and the errors met, exit 130', async () => {
    await slowDown(60_000, 'GET', '/usage/**');
    const archiveDir = join(dir, 'archive');
    const run = await runBinary(
      ['archive', '--json', '--state-dir', join(dir, 'state'), '--archive-dir', archiveDir],
      toolEnv(emulator.url),
      REPO_ROOT,
      [],
      { signalWhen: { ready: fileAppears(join(archiveDir, 'manifests', 'latest.json')), signal: 'SIGINT' } },
    );
    expect(run.code, run.stderr).toBe(130);
    const report = JSON.parse(run.stdout) as {
      interrupted?: { reason: string; notStarted: number };
      archive: { manifest?: { key: string }; errors: string[] };
    };
    expect(report.interrupted).toEqual({ reason: 'Ctrl-C (SIGINT)', notStarted: 2 });
    expect(report.archive.manifest?.key).toMatch(/^manifests\/sha256\/[0-9a-f]{64}\.json$/);
    expect(report.archive.errors.some((e) => e.startsWith('physical hosts: '))).toBe(true);
  });
});

describe('Ctrl-C during apply', { timeout: 120_000 }, () => {
  it('one SIGINT: exit 130, state saved, lock released; the next apply finishes the job', async () => {
    // Creates take 1.5 s each: the first target applied has none, so every project still has creates to start, even
    // when a loaded machine delays the signal by a second.
    await slowDown(1_500, 'POST', '/groups/*/alertConfigs');
    const run = await runBinary(
      ['apply', '--auto-approve', '--no-color', ...common],
      toolEnv(emulator.url),
      REPO_ROOT,
      [{ when: /applied .* \(1\/\d+\)/, signal: 'SIGINT' }],
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    expect(run.stderr).toContain('Ctrl-C (SIGINT) received: no new write starts');
    expect(run.stdout).toMatch(/Warning: INTERRUPTED \(Ctrl-C \(SIGINT\)\): \d+ planned write\(s\) not started/);
    expect(run.stderr).toMatch(/error: interrupted \(Ctrl-C \(SIGINT\)\): \d+ writes? not started/);
    const notStarted = Number(/INTERRUPTED \(Ctrl-C \(SIGINT\)\): (\d+)/.exec(run.stdout)?.[1]);
    expect(notStarted).toBeGreaterThan(0);
    // The summary says interrupted, never "complete": what was applied, and each write not started, listed apart.
    expect(run.stdout).not.toContain('Apply complete');
    expect(run.stdout).toMatch(
      new RegExp(`^Apply interrupted by Ctrl-C \\(SIGINT\\): [1-9]\\d* applied, ${notStarted} not started, `, 'm'),
    );
    const listed = run.stdout.split('Not started (')[1]?.split('\n\n')[0]?.split('\n').slice(1) ?? [];
    expect(listed).toHaveLength(notStarted);
    expect(run.stdout).toContain('run apply again to finish.');
    expect(await exists(leaseFile())).toBe(false);
    expect(await exists(join(dir, 'state', 'state.json'))).toBe(true);

    await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });
    const next = await runBinary(['apply', '--auto-approve', '--no-color', '--json', ...common], toolEnv(emulator.url));
    expect(next.code, next.stderr).toBe(0);
    const report = JSON.parse(next.stdout) as { results: { status: string }[] };
    expect(report.results.filter((r) => r.status === 'applied').length).toBeGreaterThanOrEqual(notStarted);
    const after = await runBinary(['plan', '--detailed-exitcode', ...common], toolEnv(emulator.url));
    expect(after.code, after.stdout).toBe(0);
  });

  it('a write waiting out a 429 Retry-After is not sent: exit 130 at once, not started, the next plan is exactly the rest', async () => {
    // Every create is refused with 429 and Retry-After: 60 (refused unprocessed): when the signal lands, each project's
    // first create sits in its backoff wait. It is never sent again; the run ends at once instead of a minute later
    // with those creates "FAILED: 429", and reports them with the rest as not started.
    await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });
    const fault = await fetch(`${emulator.origin}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        method: 'POST',
        path: '/groups/*/alertConfigs',
        status: 429,
        retryAfter: 60,
        times: 1_000_000,
      }),
    });
    expect(fault.ok).toBe(true);
    const started = Date.now();
    const run = await runBinary(
      ['apply', '--auto-approve', '--no-color', '--json', ...common],
      toolEnv(emulator.url),
      REPO_ROOT,
      [{ when: /applied .* \(1\/\d+\)/, signal: 'SIGINT' }],
    );
    expect(run.code, run.stderr).toBe(130);
    // Was about 60 s: the Retry-After waited out after the Ctrl-C, then one more 429.
    expect(Date.now() - started).toBeLessThan(30_000);
    const report = JSON.parse(run.stdout) as {
      interrupted?: { notStarted: number };
      results: { status: string; message?: string; change: { action: string } }[];
    };
    expect(report.results.filter((r) => r.status === 'failed')).toEqual([]);
    const left = report.results.filter((r) => r.status === 'skipped' && r.message?.startsWith('not written: '));
    expect(report.interrupted?.notStarted).toBe(left.length);
    expect(left.filter((r) => r.change.action === 'create').length).toBe(24);
    // Progress says which targets stopped with writes left, never "applied" for them.
    expect(run.stderr).toMatch(/^ {2}· stopped payments-prod: \d+ writes? not started \(\d+\/\d+\)$/m);
    expect(run.stderr).not.toMatch(/^ {2}· applied payments-prod /m);
    expect(await exists(leaseFile())).toBe(false);

    // No pending marker kept for a create never sent, and the next plan is exactly the writes not started.
    const state = await readFile(join(dir, 'state', 'state.json'), 'utf8');
    expect(state).not.toContain('"pendingCreate"');
    await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });
    const plan = await runBinary(['plan', '--no-color', ...common], toolEnv(emulator.url));
    const creates = left.filter((r) => r.change.action === 'create').length;
    const updates = left.filter((r) => r.change.action === 'update').length;
    expect(plan.stdout).toContain(
      `Plan: ${creates} to create, ${updates} to update, 0 to delete, 0 to adopt, 0 blocked,`,
    );
  });

  it('a second SIGINT stops at once and says the lock stays', async () => {
    // Creates take 3 s each: the first target applied is one without creates (an organization or the manifest), so
    // projects' creates are still in flight when the first signal is taken and the second follows it.
    await slowDown(3_000, 'POST', '/groups/*/alertConfigs');
    const run = await runBinary(
      ['apply', '--auto-approve', '--no-color', ...common],
      toolEnv(emulator.url),
      REPO_ROOT,
      [
        { when: /applied .* \(1\/\d+\)/, signal: 'SIGINT' },
        { when: /received: no new write starts/, signal: 'SIGINT' },
      ],
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(130);
    expect(run.stderr).toContain('SIGINT again: stopping at once; the lock stays until it expires');
    expect(await exists(leaseFile())).toBe(true);

    // The lock left behind: the next apply names it and the way out; unlock removes only the run it names.
    await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });
    const { runId, owner } = JSON.parse(await readFile(leaseFile(), 'utf8')) as { runId: string; owner: string };
    const held = await runBinary(['apply', '--auto-approve', '--no-color', ...common], toolEnv(emulator.url));
    expect(held.code).toBe(1);
    expect(held.stderr).toContain(`another run holds the lease: ${owner} (run ${runId}`);
    expect(held.stderr).toContain(`remove the lock with: opsman-gitops unlock ${runId} (same --state-dir)`);
    const wrong = await runBinary(['unlock', '20990101T000000Z-000000', ...stateDir()]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`the lock is held by run ${runId} (${owner}, expires `);
    expect(await exists(leaseFile())).toBe(true);
    const unlocked = await runBinary(['unlock', runId, ...stateDir()]);
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect(unlocked.stdout).toMatch(new RegExp(`^Removed the lock of run ${runId} \\(`));
    expect(await exists(leaseFile())).toBe(false);
    const after = await runBinary(['apply', '--auto-approve', '--no-color', ...common], toolEnv(emulator.url));
    expect(after.code, after.stderr).toBe(0);
    const again = await runBinary(['unlock', runId, ...stateDir()]);
    expect(again.stdout).toContain('No lock is held in');
  });
});

describe('killed (SIGKILL) mid-apply, between creates landing and the state being saved', { timeout: 120_000 }, () => {
  it('the next plan adopts the creates that landed; after unlock, the apply creates the rest once: no duplicates', async () => {
    const before = await runBinary(['plan', '--no-color', ...common], toolEnv(emulator.url));
    const toCreate = Number(/^Plan: (\d+) to create/m.exec(before.stdout)?.[1]);
    expect(toCreate).toBeGreaterThan(0);
    // Each create is answered 0.7 s after Ops Manager made it: when the kill lands, some creates exist that the state
    // records only as pending markers (saved before the first POST).
    await fetch(`${emulator.origin}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        method: 'POST',
        path: '/groups/*/alertConfigs',
        latencyMs: 700,
        phase: 'after',
        times: 1_000_000,
      }),
    });
    await fetch(`${emulator.origin}/__emulator/requests`, { method: 'DELETE' });
    // Killed once Ops Manager answered a first create: the state records it only as a pending marker.
    const created = async () => {
      for (let tries = 0; tries < 600; tries += 1) {
        const log = (await (await fetch(`${emulator.origin}/__emulator/requests`)).json()) as {
          entries: { method: string; path: string; status: number }[];
        };
        if (log.entries.some((e) => e.method === 'POST' && e.status < 300)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('no create was answered within 30 s');
    };
    const killed = await runBinary(
      ['apply', '--auto-approve', '--no-color', ...common],
      toolEnv(emulator.url),
      REPO_ROOT,
      [],
      {
        signalWhen: { ready: created(), signal: 'SIGKILL' },
      },
    );
    expect(killed.code).toBeNull();
    await fetch(`${emulator.origin}/__emulator/faults`, { method: 'DELETE' });

    // The plan (no lock needed) recovers the creates that landed by adoption, and plans the others as creates.
    const plan = await runBinary(['plan', '--no-color', ...common], toolEnv(emulator.url));
    expect(plan.code, plan.stderr).toBe(0);
    const recovered = plan.stdout.match(/# recovering an interrupted create: adopting the one matching config/g) ?? [];
    expect(recovered.length).toBeGreaterThan(0);
    const creates = Number(/^Plan: (\d+) to create/m.exec(plan.stdout)?.[1]);
    expect(creates + recovered.length).toBe(toCreate);

    // The killed run's lock is named with the way out; once removed, the apply converges.
    const { runId } = JSON.parse(await readFile(leaseFile(), 'utf8')) as { runId: string };
    const held = await runBinary(['apply', '--auto-approve', '--no-color', ...common], toolEnv(emulator.url));
    expect(held.code).toBe(1);
    expect(held.stderr).toContain(`remove the lock with: opsman-gitops unlock ${runId}`);
    expect((await runBinary(['unlock', runId, ...stateDir()])).code).toBe(0);
    const next = await runBinary(['apply', '--auto-approve', '--no-color', ...common], toolEnv(emulator.url));
    expect(next.code, next.stderr).toBe(0);
    const after = await runBinary(['plan', '--detailed-exitcode', ...common], toolEnv(emulator.url));
    expect(after.code, after.stdout).toBe(0);
    // Every desired config was created exactly once over the two runs.
    const log = (await (await fetch(`${emulator.origin}/__emulator/requests`)).json()) as {
      entries: { method: string; path: string; status: number }[];
    };
    const made = log.entries.filter((e) => e.method === 'POST' && /\/alertConfigs$/.test(e.path) && e.status < 300);
    expect(made).toHaveLength(toCreate);
  });
});
