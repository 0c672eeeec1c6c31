// Scenario: runCli in-process against the emulator: apply asks on a terminal (no -> nothing written, yes -> exactly the
// plan shown), observe --detailed-exitcode sees hand-made drift, archive --json reports what it stored.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import { PLAN_FORMAT_VERSION, type Plan, type RunReport } from '../../../lambdas/core/model.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, REPO_ROOT, toolEnv } from '../../helpers/cli-run.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';

let emulator: { url: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-inproc-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
  common = [
    '--desired',
    join(REPO_ROOT, 'desired-state'),
    '--state-dir',
    join(dir, 'state'),
    '--project',
    PAYMENTS_PROD,
  ];
});

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[], options: { interactive?: boolean; answers?: string[]; secrets?: boolean } = {}) {
  const io = recordingIo({ env: toolEnv(emulator.url), ...options });
  // archive resolves no secrets, so it refuses --secrets-file; without it, a change needing a secret is blocked.
  const secrets =
    argv[0] === 'archive' || options.secrets === false
      ? []
      : ['--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json')];
  const code = await runCli([...argv, ...common, ...secrets], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err(), questions: io.questions };
}

/** The `Plan: N to create, ...` summary line of a command's output (fails the test when there is none). */
function planLine(out: string): string {
  const line = /^Plan: .*$/m.exec(out)?.[0];
  expect(line).toBeDefined();
  return line ?? '';
}

describe('apply on a terminal', { timeout: 60_000 }, () => {
  it('answering anything but yes writes nothing', async () => {
    const run = await cli(['apply'], { interactive: true, answers: ['y'] });
    expect(run.code).toBe(1);
    expect(run.questions).toHaveLength(1);
    expect(run.out).toMatch(/Plan: [1-9]\d* to create/);
    expect(run.err).toContain('Apply cancelled: nothing was written.');
    // Nothing written: the next plan still has every change the cancelled one showed.
    const after = await cli(['plan', '--detailed-exitcode']);
    expect(after.code).toBe(2);
    expect(planLine(after.out)).toBe(planLine(run.out));
  });

  it('yes applies the plan shown, printed once, then the results', async () => {
    const run = await cli(['apply'], { interactive: true, answers: ['yes'] });
    expect(run.code).toBe(0);
    expect(run.out.match(/^Plan: /gm)).toHaveLength(1);
    expect(run.out).toMatch(/Apply complete: [1-9]\d* applied, 0 failed/);
    expect((await cli(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('Ops Manager changing while the question is open: nothing written, and the message speaks of the plan shown', async () => {
    const recorder = recordingIo({ env: toolEnv(emulator.url), interactive: true });
    const io = {
      ...recorder,
      // Someone disables an alert config of payments-prod while the plan is on screen, then the user says yes.
      prompt: async () => {
        const human = createOpsManagerClient({ baseUrl: emulator.url, ...KEYS.human });
        try {
          const live = (await human.listAlertConfigs(PAYMENTS_PROD)).find((c) => c.enabled);
          if (live === undefined) throw new Error('no enabled alert config in payments-prod');
          await human.setAlertConfigEnabled(PAYMENTS_PROD, live.id, false);
        } finally {
          await human.close();
        }
        return 'yes';
      },
    };
    const secrets = ['--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json')];
    const code = await runCli(['apply', ...common, ...secrets], { startEmulator: noEmulator, io });
    expect(code).toBe(1);
    expect(recorder.err()).toContain(
      `error: Ops Manager changed while the plan above was awaiting approval, for payments-prod (project:${PAYMENTS_PROD}): nothing was written. Run apply again to see a plan of the current state.\n`,
    );
    expect(recorder.err()).not.toMatch(/saved plan/);
    expect((await cli(['plan', '--detailed-exitcode'])).code).toBe(2);
  });

  it('with nothing to do it does not ask', async () => {
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    const run = await cli(['apply'], { interactive: true, answers: [] });
    expect(run.code).toBe(0);
    expect(run.questions).toEqual([]);
    expect(run.out).toContain('Nothing to apply.');
  });
});

describe('observe and archive', { timeout: 60_000 }, () => {
  it('observe --detailed-exitcode: 0 in sync, 2 after a hand edit, attributed', async () => {
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    expect((await cli(['observe', '--detailed-exitcode'])).code).toBe(0);
    const human = createOpsManagerClient({ baseUrl: emulator.url, ...KEYS.human });
    try {
      const state = JSON.parse(await readFile(join(dir, 'state', 'state.json'), 'utf8')) as ReconcileState;
      // The apply recorded the Ops Manager it ran against (--base-url / OPSMAN_BASE_URL).
      expect(state.opsManager).toEqual({ baseUrl: emulator.url });
      const owned = new Set(Object.values(state.projects[PAYMENTS_PROD]?.alertConfigs ?? {}).map((r) => r.id));
      const target = (await human.listAlertConfigs(PAYMENTS_PROD)).find((c) => c.enabled && owned.has(c.id));
      if (target === undefined) throw new Error('no enabled managed alert config in payments-prod');
      await human.setAlertConfigEnabled(PAYMENTS_PROD, target.id, false);
    } finally {
      await human.close();
    }
    const run = await cli(['observe', '--detailed-exitcode']);
    expect(run.out).toContain('changed by jdoekey1 (API key)');
    expect(run.code).toBe(2);
  });

  it('--detailed-exitcode: plan --mode observe exits as observe does; a blocked change is 1 with and without --json', async () => {
    // Nothing applied yet: every difference is drift in observe mode, and something to write for plan.
    expect((await cli(['observe', '--detailed-exitcode'])).code).toBe(2);
    expect((await cli(['plan', '--mode', 'observe', '--detailed-exitcode'])).code).toBe(2);
    expect((await cli(['plan', '--detailed-exitcode'])).code).toBe(2);
    // Without the secrets a change is blocked: an error, whatever the format; the drift is still reported.
    const text = await cli(['observe', '--detailed-exitcode'], { secrets: false });
    const json = await cli(['observe', '--detailed-exitcode', '--json'], { secrets: false });
    expect([text.code, json.code]).toEqual([1, 1]);
    expect(text.err).toMatch(/^error: \d+ changes? blocked/m);
    expect(text.out).toMatch(/Plan: 0 to create, .* [1-9]\d* blocked, [1-9]\d* drifted/);
    const actions = new Set((JSON.parse(json.out) as Plan).changes.map((c) => c.action));
    expect(actions).toEqual(new Set(['blocked', 'drift']));
  });

  it('archive --json prints the run report with what was stored', async () => {
    const run = await cli(['archive', '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.out) as RunReport;
    // The report says its own format first, as the plan does: a reader of stored reports can tell a newer one.
    expect(run.out.startsWith(`{\n  "formatVersion": ${PLAN_FORMAT_VERSION},\n  "runId": `)).toBe(true);
    expect(report.archive?.manifest?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(report.archive?.errors).toEqual([]);
    // It wrote nothing to Ops Manager, and its report says so.
    expect(report.mode).toBe('observe');
    expect(report.command).toBe('archive');
  });
});

describe('run-level refusals and warnings', { timeout: 60_000 }, () => {
  it('a lock held by another run fails fast, naming the holder, and writes nothing', async () => {
    const before = await cli(['plan', '--detailed-exitcode']);
    expect(before.code).toBe(2);
    const store = new FsStateStore(join(dir, 'state'));
    const lease = await store.acquireLease({ owner: 'cli:alice@laptop', runId: 'other-run', ttlMs: 60_000 });
    try {
      const run = await cli(['apply', '--auto-approve', '--lease-wait', '0']);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^error: .*cli:alice@laptop/m);
    } finally {
      await store.releaseLease(lease);
    }
    const after = await cli(['plan', '--detailed-exitcode']);
    expect(after.code).toBe(2);
    expect(planLine(after.out)).toBe(planLine(before.out));
  });

  it("a lock file of another version's format is held: named, with unlock of its run as the way out, not `unlock unknown`", async () => {
    const leasePath = join(dir, 'state', 'lease.json');
    await mkdir(join(dir, 'state'), { recursive: true });
    await writeFile(leasePath, JSON.stringify({ formatVersion: 2, runId: 'run-of-v2', holders: [] }));
    const run = await cli(['apply', '--auto-approve', '--lease-wait', '0']);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      `error: another run may hold the lease: the lease ${leasePath} cannot be read: it has formatVersion 2; this version reads formatVersion 1`,
    );
    expect(run.err).toContain('remove it with `opsman-gitops unlock run-of-v2` (same --state-dir)');
    expect(run.err).not.toContain('opsman-gitops unlock unknown');
    expect(run.err).not.toContain('If run run-of-v2 is no longer running');
    expect(await readFile(leasePath, 'utf8')).toContain('run-of-v2');
    expect(await new FsStateStore(join(dir, 'state')).forceReleaseLease('run-of-v2')).toMatchObject({
      runId: 'run-of-v2',
    });
  });

  it('--json: a held lock is a JSON failure on stdout; a plan already printed gets no second document', async () => {
    const store = new FsStateStore(join(dir, 'state'));
    const lease = await store.acquireLease({ owner: 'cli:alice@laptop', runId: 'other-run', ttlMs: 60_000 });
    try {
      const run = await cli(['apply', '--auto-approve', '--json']);
      expect(run.code).toBe(1);
      const doc = JSON.parse(run.out) as { ok: boolean; error: { code: string; message: string } };
      expect(doc).toMatchObject({ ok: false, error: { code: 'LEASE_HELD' } });
      expect(doc.error.message).toContain('cli:alice@laptop');
    } finally {
      await store.releaseLease(lease);
    }
    // The plan is printed, then saving it fails: stdout stays that one plan document.
    const unsaved = await cli(['plan', '--json', '--out', join(dir, 'missing-dir', 'plan.json')]);
    expect(unsaved.code).toBe(1);
    expect(unsaved.err).toContain('cannot save the plan to');
    expect((JSON.parse(unsaved.out) as { formatVersion: number }).formatVersion).toBe(PLAN_FORMAT_VERSION);
  });

  it('--markdown: a plan printed, then not saved, is the comment alone (no "No plan" comment after it)', async () => {
    const unsaved = await cli(['plan', '--markdown', '--out', join(dir, 'missing-dir', 'plan.json')]);
    expect(unsaved.code).toBe(1);
    expect(unsaved.err).toContain('cannot save the plan to');
    expect(unsaved.out).toMatch(/^### opsman-gitops plan\n/);
    expect(unsaved.out.match(/^### /gm)).toHaveLength(1);
    expect(unsaved.out).not.toContain('No plan');
  });

  it('--insecure-skip-verify warns on stderr', async () => {
    const run = await cli(['plan', '--insecure-skip-verify']);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/TLS certificate verification is DISABLED/);
  });
});
