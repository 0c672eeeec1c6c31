// Scenario: runCli in-process against the emulator, with a fixed clock and a deny window (a year-end freeze) in
// Settings: apply plans as usual but writes nothing (exit 3, each held target named with its window and end), the
// same apply with --ignore-windows writes, and a saved plan is held or written by the windows at apply time, as git has
// them then (a freeze committed after plan --out holds it; an invalid desired state leaves its recorded windows, warned).
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { RunReport } from '../../../lambdas/core/model.ts';
import type { Clock } from '../../../lambdas/core/ports.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { REPO_ROOT, toolEnv } from '../../helpers/cli-run.ts';
import { HAS_SCRIPT, runOnTerminal } from '../../helpers/cli-terminal.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const IN_FREEZE = '2026-12-21T10:00:00Z';
const AFTER_FREEZE = '2027-01-05T10:00:00Z';
const HELD = `held by change window year-end-freeze (deny) until 2027-01-04T08:00:00.000Z`;

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;

/** A clock stopped at `iso` (sleeping moves it on, as a real one would). */
function clockAt(iso: string): Clock {
  let ms = Date.parse(iso);
  return {
    now: () => new Date(ms),
    sleep: async (n: number) => {
      ms += n;
    },
  };
}

async function writes(): Promise<{ method: string; path: string }[]> {
  const res = await fetch(`${emulator.origin}/__emulator/requests`);
  const { entries } = (await res.json()) as { entries: { method: string; path: string }[] };
  return entries.filter((e) => e.method !== 'GET');
}

async function cli(argv: string[], at: string, terminal?: { answers: string[] }) {
  const recorder = recordingIo({ env: toolEnv(emulator.url), interactive: terminal !== undefined, ...terminal });
  const io = { ...recorder, clock: clockAt(at) };
  const common = ['--desired', join(dir, 'desired'), '--state-dir', join(dir, 'state')];
  const secrets = ['--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json')];
  const code = await runCli([...argv, ...common, ...secrets], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err(), questions: recorder.questions };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-windows-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true });
  await cp(join(REPO_ROOT, 'desired-state'), join(dir, 'desired'), { recursive: true });
  const settings = join(dir, 'desired', 'settings.yaml');
  const freeze =
    '  changeWindows:\n' +
    '    - name: year-end-freeze\n' +
    '      kind: deny\n' +
    '      from: 2026-12-18T00:00:00Z\n' +
    '      until: 2027-01-04T08:00:00Z\n' +
    `      projects: [${PAYMENTS_PROD}]\n`;
  await writeFile(settings, `${await readFile(settings, 'utf8')}${freeze}`);
});

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('change windows in the CLI', { timeout: 120_000 }, () => {
  it('a deny window turns apply into a plan for its project: no write, exit 3, the window named', async () => {
    const run = await cli(['apply', '--auto-approve', '--project', PAYMENTS_PROD], IN_FREEZE);
    expect(run.code, `${run.out}\n${run.err}`).toBe(3);
    expect(await writes()).toEqual([]);
    // The plan says it and so does each skipped write; stderr names the target, the window and its end.
    expect(run.out).toContain(`[mode plan: ${HELD}: shown, not applied]`);
    expect(run.out).toMatch(/Plan: [1-9]\d* to create/);
    expect(run.err).toMatch(/^held: [1-9]\d* writes to payments-prod \(project:5e2211c17a3e5a48f5497de3\) not made: /m);
    expect(run.err).toContain(`not made: ${HELD}\n`);
    expect(run.err).toContain('pass --ignore-windows to write now');
    expect(run.err).not.toContain('error:');
  });

  it('--json carries the holds in the report', async () => {
    const run = await cli(['apply', '--auto-approve', '--json', '--project', PAYMENTS_PROD], IN_FREEZE);
    expect(run.code, run.err).toBe(3);
    const report = JSON.parse(run.out) as RunReport;
    expect(report.heldByWindows?.map((h) => [h.target.id, h.kind, h.windows, h.until])).toEqual([
      [PAYMENTS_PROD, 'deny', ['year-end-freeze'], '2027-01-04T08:00:00.000Z'],
    ]);
    expect(report.summary.applied).toBe(0);
  });

  it('--ignore-windows writes, with a warning naming the window', async () => {
    const run = await cli(['apply', '--auto-approve', '--ignore-windows', '--project', PAYMENTS_PROD], IN_FREEZE);
    expect(run.code, `${run.out}\n${run.err}`).toBe(0);
    expect((await writes()).length).toBeGreaterThan(0);
    expect(`${run.out}${run.err}`).toContain(
      `CHANGE WINDOW IGNORED (--ignore-windows): project:${PAYMENTS_PROD} ${HELD}; written anyway`,
    );
  });

  it('a saved plan follows the windows at apply time: made in the freeze, written after it', async () => {
    const planFile = join(dir, 'plan.json');
    const planned = await cli(['plan', '--out', planFile, '--project', PAYMENTS_PROD], IN_FREEZE);
    expect(planned.code, planned.err).toBe(0);
    expect(planned.out).toContain(HELD);
    const applied = await cli(['apply', '--plan', planFile], AFTER_FREEZE);
    expect(applied.code, `${applied.out}\n${applied.err}`).toBe(0);
    expect((await writes()).length).toBeGreaterThan(0);
  });

  it('a saved plan made before the freeze and applied in it is held', async () => {
    const planFile = join(dir, 'plan.json');
    const planned = await cli(['plan', '--out', planFile, '--project', PAYMENTS_PROD], '2026-12-17T10:00:00Z');
    expect(planned.code, planned.err).toBe(0);
    expect(planned.out).not.toContain('held by');
    const held = await cli(['apply', '--plan', planFile], IN_FREEZE);
    expect(held.code, `${held.out}\n${held.err}`).toBe(3);
    expect(held.err).toContain(`not made: ${HELD}`);
    expect(await writes()).toEqual([]);
    // The held run recorded itself in the state: the file cannot be applied again, so the advice is a new plan.
    expect(held.err).toContain('this saved plan is now stale');
    expect(held.err).not.toContain('run apply again when the window allows');
    const again = await cli(['apply', '--plan', planFile, '--ignore-windows'], IN_FREEZE);
    expect(again.code).toBe(1);
    expect(again.err).toContain('SAVED_PLAN_STATE_CHANGED');
    const now = await cli(['apply', '--auto-approve', '--ignore-windows', '--project', PAYMENTS_PROD], IN_FREEZE);
    expect(now.code, `${now.out}\n${now.err}`).toBe(0);
    expect((await writes()).length).toBeGreaterThan(0);
  });

  /** Replaces the Settings' change windows in the workspace copy (a commit to git): `block` is their YAML, or none. */
  async function commitWindows(block: string): Promise<void> {
    const original = await readFile(join(REPO_ROOT, 'desired-state', 'settings.yaml'), 'utf8');
    await writeFile(join(dir, 'desired', 'settings.yaml'), `${original}${block}`);
  }
  const ON_CALL_FREEZE =
    '  changeWindows:\n' +
    '    - name: on-call-freeze\n' +
    '      kind: deny\n' +
    '      from: 2026-12-20T00:00:00Z\n' +
    '      until: 2026-12-22T00:00:00Z\n';
  const ON_CALL_HELD = 'held by change window on-call-freeze (deny) until 2026-12-22T00:00:00.000Z';

  it('a deny window committed after plan --out holds the saved plan at apply --plan (exit 3, nothing written)', async () => {
    await commitWindows('');
    const planFile = join(dir, 'plan.json');
    const planned = await cli(['plan', '--out', planFile, '--project', PAYMENTS_PROD], IN_FREEZE);
    expect(planned.code, planned.err).toBe(0);
    expect(planned.out).not.toContain('held by');
    // The on-call engineer declares a freeze in git; yesterday's plan is then applied.
    await commitWindows(ON_CALL_FREEZE);
    const held = await cli(['apply', '--plan', planFile, '--json'], IN_FREEZE);
    expect(held.code, `${held.out}\n${held.err}`).toBe(3);
    expect(await writes()).toEqual([]);
    const report = JSON.parse(held.out) as RunReport;
    expect(report.heldByWindows?.map((h) => [h.target.id, h.kind, h.windows])).toEqual([
      [PAYMENTS_PROD, 'deny', ['on-call-freeze']],
    ]);
    expect(report.summary.applied).toBe(0);
    expect(report.plan.changeWindows?.map((w) => w.name)).toEqual(['on-call-freeze']);
    expect(report.warnings).toContain(
      "change windows read from the current desired state: 1 differ from the saved plan's (added: on-call-freeze); the current ones decide what is held",
    );
    expect(held.err).toContain(`not made: ${ON_CALL_HELD}`);
  });

  it('a deny window removed from git after plan --out no longer holds the saved plan: it applies', async () => {
    await commitWindows(ON_CALL_FREEZE);
    const planFile = join(dir, 'plan.json');
    const planned = await cli(['plan', '--out', planFile, '--project', PAYMENTS_PROD], IN_FREEZE);
    expect(planned.code, planned.err).toBe(0);
    expect(planned.out).toContain(ON_CALL_HELD);
    await commitWindows('');
    const applied = await cli(['apply', '--plan', planFile], IN_FREEZE);
    expect(applied.code, `${applied.out}\n${applied.err}`).toBe(0);
    expect((await writes()).length).toBeGreaterThan(0);
    expect(applied.err).not.toContain('held:');
    expect(`${applied.out}${applied.err}`).toContain(
      "Warning: change windows read from the current desired state: 1 differ from the saved plan's (removed: on-call-freeze)",
    );
  });

  it('a window committed after plan --out is lifted by --ignore-windows, with its warning', async () => {
    await commitWindows('');
    const planFile = join(dir, 'plan.json');
    const planned = await cli(['plan', '--out', planFile, '--project', PAYMENTS_PROD], IN_FREEZE);
    expect(planned.code, planned.err).toBe(0);
    await commitWindows(ON_CALL_FREEZE);
    const applied = await cli(['apply', '--plan', planFile, '--ignore-windows'], IN_FREEZE);
    expect(applied.code, `${applied.out}\n${applied.err}`).toBe(0);
    expect((await writes()).length).toBeGreaterThan(0);
    expect(`${applied.out}${applied.err}`).toContain(
      `CHANGE WINDOW IGNORED (--ignore-windows): project:${PAYMENTS_PROD} ${ON_CALL_HELD}; written anyway`,
    );
  });

  it('a desired state made invalid after plan --out: apply --plan uses the recorded windows and warns', async () => {
    const planFile = join(dir, 'plan.json');
    const planned = await cli(['plan', '--out', planFile, '--project', PAYMENTS_PROD], '2026-12-17T10:00:00Z');
    expect(planned.code, planned.err).toBe(0);
    // The freeze is gone from git, but so is a valid desired state (a window of no known kind): the plan's own windows
    // (the freeze) hold it.
    await commitWindows('  changeWindows:\n    - name: broken\n      kind: sometimes\n');
    const held = await cli(['apply', '--plan', planFile, '--json'], IN_FREEZE);
    expect(held.code, `${held.out}\n${held.err}`).toBe(3);
    expect(await writes()).toEqual([]);
    const report = JSON.parse(held.out) as RunReport;
    expect(report.heldByWindows?.map((h) => h.windows)).toEqual([['year-end-freeze']]);
    const warning = (report.warnings ?? []).find((w) => w.startsWith('CHANGE WINDOWS NOT RE-READ'));
    expect(warning).toMatch(
      /^CHANGE WINDOWS NOT RE-READ: the desired state could not be loaded \(the desired state in .* has \d+ problem\(s\); run validate\): the saved plan's recorded windows were used$/,
    );
  });

  it('interactive apply with every write held: the plan, the holds and exit 3, without asking', async () => {
    const run = await cli(['apply', '--project', PAYMENTS_PROD], IN_FREEZE, { answers: ['yes'] });
    expect(run.code, `${run.out}\n${run.err}`).toBe(3);
    expect(run.questions).toEqual([]);
    expect(run.err).not.toContain('Do you want to apply');
    expect(await writes()).toEqual([]);
    expect(run.out).toContain(`[mode plan: ${HELD}: shown, not applied]`);
    const all =
      /All (\d+) writes of this plan are held by change windows: nothing to approve, nothing was written\./.exec(
        run.err,
      );
    expect(all, run.err).not.toBeNull();
    expect(run.err).toContain(
      `held: ${all?.[1]} writes to payments-prod (project:${PAYMENTS_PROD}) not made: ${HELD}\n`,
    );
    expect(run.err).toContain('1 target held by change windows (exit 3): run apply again when the window allows');
  });

  it('interactive apply whose every write is in a target its mode keeps unwritten: nothing to apply, no question', async () => {
    const run = await cli(['apply', '--mode', 'plan', '--project', PAYMENTS_PROD], AFTER_FREEZE, { answers: ['yes'] });
    expect(run.questions).toEqual([]);
    expect(run.out).toContain('Nothing to apply: every write of this plan is in a target whose mode does not write.');
    expect(run.code, `${run.out}\n${run.err}`).toBe(0);
    expect(await writes()).toEqual([]);
  });

  it('interactive apply with some writes held asks, saying how many are made and how many held', async () => {
    const held = await cli(['plan', '--json', '--project', PAYMENTS_PROD], IN_FREEZE);
    const heldWrites = (JSON.parse(held.out) as { changes: { action: string }[] }).changes.filter(
      (c) => !['noop', 'blocked', 'drift'].includes(c.action),
    ).length;
    const run = await cli(['apply'], IN_FREEZE, { answers: ['no'] });
    expect(run.questions).toEqual(['  Enter a value: ']);
    const split =
      /\n {2}(\d+) writes? will be made; (\d+) writes? held by change windows will not \(see the plan\)\.\n/.exec(
        run.err,
      );
    expect(split, run.err).not.toBeNull();
    expect(Number(split?.[1])).toBeGreaterThan(0);
    expect(Number(split?.[2])).toBe(heldWrites);
    expect(run.code).toBe(1);
    expect(await writes()).toEqual([]);
  });

  it.skipIf(!HAS_SCRIPT)(
    'on a real terminal, an apply whose every write is held exits 3 without a prompt',
    async () => {
      // The binary runs on the real clock: a freeze from 2020 to 2100 holds it now.
      const settings = join(dir, 'desired', 'settings.yaml');
      const forever =
        '    - name: long-freeze\n' +
        '      kind: deny\n' +
        '      from: 2020-01-01T00:00:00Z\n' +
        '      until: 2100-01-01T00:00:00Z\n' +
        `      projects: [${PAYMENTS_PROD}]\n`;
      await writeFile(settings, `${await readFile(settings, 'utf8')}${forever}`);
      const args = ['apply', '--no-color', '--project', PAYMENTS_PROD, '--desired', join(dir, 'desired')];
      args.push(
        '--state-dir',
        join(dir, 'state'),
        '--secrets-file',
        join(REPO_ROOT, 'desired-state/local-secrets.json'),
      );
      const terminal = runOnTerminal(args, toolEnv(emulator.url), { pidFile: join(dir, 'pid') });
      await terminal.waitFor(/\(exit 3\)|Enter a value: /);
      if (/Enter a value: /.test(terminal.output())) await terminal.hangUp();
      const code = await terminal.done;
      expect(terminal.output()).not.toContain('Enter a value');
      expect(code, terminal.output()).toBe(3);
      expect(terminal.output()).toMatch(/All \d+ writes of this plan are held by change windows: nothing to approve/);
      expect(terminal.output()).toContain('held by change window long-freeze (deny) until 2100-01-01T00:00:00.000Z');
      expect(await writes()).toEqual([]);
    },
  );

  it('plan and observe refuse --ignore-windows (only apply writes)', async () => {
    const run = await cli(['plan', '--ignore-windows'], IN_FREEZE);
    expect(run.code).toBe(2);
    expect(run.err).toContain('plan does not take --ignore-windows');
  });
});
