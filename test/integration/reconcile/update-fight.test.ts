// Scenario: over real HTTP with Digest, a second API key (jdoekey1) keeps disabling an alert config and lowering the project's audit-log rotation numTotal between applies; the FIGHT_RUNS-th apply (and the plan before it) warns of an update fight naming the object, the key, the runs and the way out, the streak lives in state.json between runs, and a run finding the object in sync resets it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { UPDATE_FIGHT } from '../../../lambdas/core/fight-notice.ts';
import { FIGHT_RUNS } from '../../../lambdas/core/fight-streak.ts';
import type { RunReport } from '../../../lambdas/core/model.ts';
import { EmulatorWorld, PROJECTS } from '../../helpers/reconcile-emulator.ts';

let world: EmulatorWorld;
beforeEach(async () => {
  world = await EmulatorWorld.start();
});
afterEach(async () => {
  await world.close();
});

const PROD = PROJECTS.paymentsProd;

// What the next run reads back must pass the state's shape check (EmulatorWorld.storedState).
const storedState = () => world.storedState();

const fights = (report: RunReport) => (report.warnings ?? []).filter((w) => w.startsWith(UPDATE_FIGHT));
const fightOf = (report: RunReport, key: string) =>
  report.plan.changes.find((c) => c.target.id === PROD && c.key === key)?.drift?.fight;

/** What the other automation does between two applies, with its own API key. */
async function otherAutomation(): Promise<void> {
  const other = world.client('jdoekey1');
  const state = await storedState();
  const id = state.projects[PROD]?.alertConfigs['no-primary']?.id as string;
  await other.setAlertConfigEnabled(PROD, id, false);
  const rotation = await other.getAuditLogRotateConfig(PROD);
  await other.setAuditLogRotateConfig(PROD, { ...rotation, numTotal: 10 });
}

describe('update fight detection against the emulator', () => {
  it('warns on the FIGHT_RUNS-th consecutive revert and not before, keeps the streak in state, and resets it when in sync', async () => {
    expect(FIGHT_RUNS).toBe(3);
    const first = await world.run('apply');
    expect(first.results.filter((r) => r.status !== 'applied')).toEqual([]);
    expect((await storedState()).projects[PROD]?.driftStreaks).toBeUndefined();

    for (let run = 1; run < FIGHT_RUNS; run++) {
      await otherAutomation();
      const applied = await world.run('apply');
      const revert = applied.results.find((r) => r.change.target.id === PROD && r.change.key === 'no-primary');
      expect(revert?.change.action).toBe('enable');
      expect(revert?.change.drift?.attribution?.[0]?.actor).toBe('jdoekey1');
      expect(revert?.status).toBe('applied');
      expect(fights(applied)).toEqual([]);
      expect(fightOf(applied, 'no-primary')).toBeUndefined();
      const streaks = (await storedState()).projects[PROD]?.driftStreaks;
      expect(streaks?.['alertConfig:no-primary']).toMatchObject({
        runs: run,
        actors: ['apiKey:jdoekey1'],
        fields: ['enabled'],
      });
      expect(streaks?.auditLogRotation).toMatchObject({ runs: run, fields: ['numTotal'] });
    }

    await otherAutomation();
    // The plan before the FIGHT_RUNS-th apply already says it: that apply would be the FIGHT_RUNS-th revert.
    const plan = await world.run('plan');
    expect(fights(plan)).toHaveLength(2);
    // The streak so far came back from the file through the store the runs use, as the next run reads it.
    const read = await new FsStateStore(join(world.dir, 'state')).read();
    expect(read.state?.projects[PROD]?.driftStreaks?.['alertConfig:no-primary']?.runs).toBe(FIGHT_RUNS - 1);

    const fought = await world.run('apply');
    const warnings = fights(fought);
    expect(warnings).toHaveLength(2);
    const alert = warnings.find((w) => w.includes('alert config "no-primary"')) as string;
    expect(alert).toContain(`project payments-prod (${PROD})`);
    expect(alert).toContain(`${FIGHT_RUNS} consecutive runs since`);
    expect(alert).toContain('found it changed by API key jdoekey1 (each time: enabled) and put it back');
    expect(alert).toMatch(/give it one owner \(list "no-primary" in spec\.release .* or stop the other automation/);
    // The finer way out first: only the member fought over is left to the other writer.
    expect(alert).toContain(
      'to leave enabled to the other writer and keep managing the rest, add ignoreFields: [enabled] to alert config "no-primary"; or give it one owner',
    );
    const rotation = warnings.find((w) => w.includes('the audit-log rotation')) as string;
    expect(rotation).toContain('by API key jdoekey1 (each time: numTotal)');
    expect(rotation).toContain('give it one owner (remove it from git to leave it to the other writer');
    // The JSON report carries it on the change as well, and in the plan's own warnings.
    expect(fightOf(fought, 'no-primary')).toMatchObject({
      runs: FIGHT_RUNS,
      actors: [{ actor: 'jdoekey1', actorType: 'apiKey' }],
      fields: ['enabled'],
    });
    expect(fought.plan.warnings?.filter((w) => w.startsWith(UPDATE_FIGHT))).toEqual(warnings);
    expect(fought.results.find((r) => r.change.key === 'no-primary' && r.change.target.id === PROD)?.status).toBe(
      'applied',
    );
    const stored = (await storedState()).projects[PROD]?.driftStreaks;
    expect(stored?.['alertConfig:no-primary']?.runs).toBe(FIGHT_RUNS);
    expect(stored?.['alertConfig:no-primary']?.since).toBe(fightOf(fought, 'no-primary')?.since);

    // The archived report (the one the Lambda stores) has the warning too.
    const archived = JSON.parse(await readFile(fought.reportLocation as string, 'utf8')) as RunReport;
    expect(archived.warnings?.filter((w) => w.startsWith(UPDATE_FIGHT))).toEqual(warnings);

    // No secret of the fought-over config (its webhook URL and secret, its Slack token) is in any of it.
    const secrets = JSON.parse(await readFile(world.secretsFile, 'utf8')) as Record<string, Record<string, string>>;
    const text = JSON.stringify({ warnings, fight: fightOf(fought, 'no-primary'), stored });
    for (const value of Object.values(secrets).flatMap((o) => Object.values(o))) expect(text).not.toContain(value);

    // The other automation stops: the next apply finds both in sync and forgets the streaks.
    const quiet = await world.run('apply');
    expect(fights(quiet)).toEqual([]);
    expect((await storedState()).projects[PROD]?.driftStreaks).toBeUndefined();

    // It starts again: a new streak, counted from 1, with no warning.
    await otherAutomation();
    const again = await world.run('apply');
    expect(fights(again)).toEqual([]);
    expect((await storedState()).projects[PROD]?.driftStreaks?.['alertConfig:no-primary']?.runs).toBe(1);
  });

  it('a fight whose write then fails: the run report does not say it was put back, the plan still says what was planned', async () => {
    await world.run('apply');
    for (let run = 1; run < FIGHT_RUNS; run++) {
      await otherAutomation();
      await world.run('apply');
    }
    await otherAutomation();
    // The enable of no-primary is refused (400, not retried); the audit-log rotation's write goes through.
    for (const method of ['PUT', 'PATCH'])
      await world.admin('POST', 'faults', { method, path: '/groups/*/alertConfigs/*', status: 400, times: 10 });
    const fought = await world.run('apply');
    const result = fought.results.find((r) => r.change.target.id === PROD && r.change.key === 'no-primary');
    expect(result?.status).toBe('failed');
    const alert = fights(fought).find((w) => w.includes('alert config "no-primary"')) as string;
    expect(alert).toContain(
      `${FIGHT_RUNS} consecutive runs since ${fightOf(fought, 'no-primary')?.since} found it changed by API key jdoekey1 (each time: enabled); the ${FIGHT_RUNS - 1} runs before this one put it back, this one did not (its write failed).`,
    );
    expect(alert).not.toContain('and put it back');
    expect(alert).toMatch(/give it one owner \(list "no-primary" in spec\.release/);
    // The rotation's write was applied: its warning stays as planned.
    expect(fights(fought).find((w) => w.includes('the audit-log rotation'))).toContain('and put it back');
    // The plan in the report is what was planned (its warning said what the write would do).
    expect(fought.plan.warnings?.find((w) => w.includes('alert config "no-primary"'))).toContain('and put it back');
    const archived = JSON.parse(await readFile(fought.reportLocation as string, 'utf8')) as RunReport;
    expect(archived.warnings?.filter((w) => w.startsWith(UPDATE_FIGHT))).toEqual(fights(fought));
    // And the streak did not grow.
    expect((await storedState()).projects[PROD]?.driftStreaks?.['alertConfig:no-primary']?.runs).toBe(FIGHT_RUNS - 1);
  });

  it('a key that left git loses its streak while its delete is blocked (prune off), so its return to git starts at 1', async () => {
    const KEY = 'primary-connections-high';
    const disableIt = async () => {
      const id = (await storedState()).projects[PROD]?.alertConfigs[KEY]?.id as string;
      await world.client('jdoekey1').setAlertConfigEnabled(PROD, id, false);
    };
    const stanza = / {4}- key: primary-connections-high\n(?: {6}.*\n| {8}.*\n)+?(?= {4}- key: )/;
    const original = await readFile(join(world.desiredDir, 'projects', 'payments.yaml'), 'utf8');
    const block = stanza.exec(original)?.[0] as string;
    expect(block).toContain('metricName: CONNECTIONS');
    await world.run('apply');
    for (let run = 1; run < FIGHT_RUNS; run++) {
      await disableIt();
      await world.run('apply');
    }
    expect((await storedState()).projects[PROD]?.driftStreaks?.[`alertConfig:${KEY}`]?.runs).toBe(FIGHT_RUNS - 1);

    // Left to the other writer as the warning advises: out of git, with prune off so that it stays in Ops Manager.
    await world.editDesired('projects/payments.yaml', (t) =>
      t
        .replace(block, '')
        .replace('protect: [no-primary, primary-connections-high]', 'protect: [no-primary]')
        .replace('  prune: true #', '  prune: false #'),
    );
    await disableIt();
    const released = await world.run('apply');
    const removal = released.plan.changes.find((c) => c.target.id === PROD && c.key === KEY);
    expect(removal?.action).toBe('blocked');
    expect(removal?.drift?.detected).toBe(true);
    expect((await storedState()).projects[PROD]?.driftStreaks?.[`alertConfig:${KEY}`]).toBeUndefined();

    // Back in git later: one revert is one run, not the FIGHT_RUNS-th.
    await world.editDesired('projects/payments.yaml', () => original);
    const back = await world.run('apply');
    expect(back.results.find((r) => r.change.target.id === PROD && r.change.key === KEY)?.change.action).toBe('enable');
    expect(fights(back)).toEqual([]);
    expect((await storedState()).projects[PROD]?.driftStreaks?.[`alertConfig:${KEY}`]?.runs).toBe(1);
  });

  it('a target this run will not write (apply --mode plan, or its own mode plan) does not warn: nothing is put back', async () => {
    await world.run('apply');
    for (let run = 1; run < FIGHT_RUNS; run++) {
      await otherAutomation();
      await world.run('apply');
    }
    await otherAutomation();
    const capped = await world.run('apply', { mode: 'plan' });
    expect(capped.results.filter((r) => r.status === 'applied')).toEqual([]);
    expect(fights(capped)).toEqual([]);
    expect(fightOf(capped, 'no-primary')).toBeUndefined();

    // The operator parks the project (spec.mode: plan) while finding the other writer: no warning on every run.
    await world.editDesired('projects/payments.yaml', (t) => t.replace('spec:\n  mode: apply', 'spec:\n  mode: plan'));
    for (let run = 0; run < 2; run++) {
      const parked = await world.run('apply');
      expect(parked.plan.targetModes?.[`project:${PROD}`]).toBe('plan');
      expect(fights(parked)).toEqual([]);
      expect(fightOf(parked, 'no-primary')).toBeUndefined();
    }
    // The streak waits as stored: back in apply mode, the revert is the FIGHT_RUNS-th and warns.
    expect((await storedState()).projects[PROD]?.driftStreaks?.['alertConfig:no-primary']?.runs).toBe(FIGHT_RUNS - 1);
    await world.editDesired('projects/payments.yaml', (t) => t.replace('spec:\n  mode: plan', 'spec:\n  mode: apply'));
    expect(fights(await world.run('apply'))).toHaveLength(2);
  });
});
