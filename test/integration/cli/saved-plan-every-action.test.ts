// Scenario: the real binary against the emulator. After a first apply of the example desired state, edits to it make a
// plan with every kind of action (create, update, enable or disable, delete, adopt of a renamed key, release, blocked,
// drift, the singletons' updates, the version manifest's): each plan `plan --out` saves is applied by `apply --plan`
// with every write applied, never refused by the saved-plan checks as malformed.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan, RunReport } from '../../../lambdas/core/model.ts';
import { runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { HAS_SCRIPT, runOnTerminal } from '../../helpers/cli-terminal.ts';
import { closeExampleWorkspace, editDesired, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

/** Replaces `from` with `to` in a desired-state file of this test's workspace. */
const edit = (file: string, from: string, to: string) => editDesired(dir, file, from, to);

/** Saves a plan, applies it, and answers both: the plan saved and the apply's report. */
async function planThenApply(env: Record<string, string>): Promise<{ plan: Plan; report: RunReport; stderr: string }> {
  const file = join(dir, 'plan.json');
  const saved = await runBinary(['plan', '--out', file, ...common], env);
  expect(saved.stderr).not.toContain('TypeError');
  const plan = JSON.parse(await readFile(file, 'utf8')) as Plan;
  const applied = await runBinary(['apply', '--plan', file, '--json', ...common], env);
  expect(applied.stderr, applied.stderr).not.toMatch(/SAVED_PLAN|malformed|TypeError/);
  return { plan, report: JSON.parse(applied.stdout) as RunReport, stderr: applied.stderr };
}

/** `key:action` (and `<-old` for a renamed key) of every change that is not in sync. */
const actions = (plan: Plan) =>
  plan.changes
    .filter((c) => c.action !== 'noop')
    .map((c) => `${c.target.name}/${c.key}:${c.action}${c.movedFrom === undefined ? '' : `<-${c.movedFrom}`}`)
    .sort();

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-every-action-'));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

describe('saved plans of every action kind', { timeout: 240_000 }, () => {
  it('each plan plan --out saves applies with apply --plan, every write applied', async () => {
    const env = toolEnv(emulator.url);
    const first = await runBinary(['apply', '--auto-approve', ...common], env);
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);

    // payments-prod: a disable, an update, a renamed key, a create, both singletons.
    await edit('projects/payments.yaml', '      enabled: true\n', '      enabled: false\n');
    await edit('projects/payments.yaml', 'threshold: 5000', 'threshold: 6000');
    await edit('projects/payments.yaml', 'key: host-ssl-certificate-stale', 'key: host-ssl-stale');
    await edit(
      'projects/payments.yaml',
      '  prune: true # alert',
      '    - key: new-host-down\n      eventTypeName: HOST_DOWN\n      notifications:\n        - { typeName: EMAIL, emailAddress: new@acme.example, intervalMin: 60, delayMin: 0 }\n  prune: true # alert',
    );
    await edit('projects/payments.yaml', 'numTotal: 20', 'numTotal: 30');
    await edit('projects/payments.yaml', 'defaultServerType: PRODUCTION_SERVER', 'defaultServerType: RAM_POOL');
    // payments-staging: a release; analytics-dev: a delete; search-prod: a blocked create (its secret is in no file; in
    // another project than the delete, which a blocked create of its own project would hold).
    await edit(
      'projects/payments.yaml',
      '  alertConfigs:\n    - key: version-behind\n      eventTypeName: VERSION_BEHIND\n      notifications:\n        - { typeName: USER, username: jdoe@acme.example, intervalMin: 1440, delayMin: 0, emailEnabled: true }',
      '  release: [version-behind]',
    );
    const analytics = join(dir, 'desired', 'projects/analytics.yaml');
    const text = await readFile(analytics, 'utf8');
    const start = text.indexOf('    - key: replication-oplog-resync\n');
    const end = text.indexOf('  prune: true', start);
    expect(start).toBeGreaterThan(0);
    await writeFile(analytics, `${text.slice(0, start)}${text.slice(end)}`);
    await edit(
      'projects/search.yaml',
      '    - key: search-cluster-host-down\n',
      '    - key: needs-missing-secret\n      eventTypeName: HOST_DOWN\n      notifications:\n        - typeName: SLACK\n          apiToken: { secretRef: "opsman/notify#no-such-token" }\n          channelName: "#x"\n          intervalMin: 5\n          delayMin: 0\n    - key: search-cluster-host-down\n',
    );
    // The installation: the pinned manifest differs from what Ops Manager serves.
    await edit('manifests/approved.json', '"updated": 1767225600000', '"updated": 1767225600001');

    const round1 = await planThenApply(env);
    const kinds = new Set(round1.plan.changes.map((c) => `${c.kind}:${c.action}`));
    for (const want of [
      'alertConfig:create',
      'alertConfig:update',
      'alertConfig:disable',
      'alertConfig:delete',
      'alertConfig:adopt',
      'alertConfig:release',
      'alertConfig:blocked',
      'auditLogRotation:update',
      'auditLogRotation:drift',
      'defaultServerType:update',
      'versionManifest:update',
    ]) {
      expect([...kinds], actions(round1.plan).join('\n')).toContain(want);
    }
    expect(actions(round1.plan)).toContain('payments-prod/host-ssl-stale:adopt<-host-ssl-certificate-stale');
    expect(
      round1.report.results.filter((r) => r.status !== 'applied').map((r) => `${r.change.key}:${r.status}`),
    ).toEqual([]);
    expect(round1.report.results.length).toBeGreaterThanOrEqual(9);

    // The disabled config enabled again: an enable, alone.
    await edit('projects/payments.yaml', '      enabled: false\n', '      enabled: true\n');
    const round2 = await planThenApply(env);
    expect(round2.plan.changes.map((c) => `${c.kind}:${c.action}`)).toContain('alertConfig:enable');
    expect(round2.report.results.map((r) => `${r.change.key}:${r.change.action}:${r.status}`)).toEqual([
      'no-primary:enable:applied',
    ]);
    if (!HAS_SCRIPT) return;

    // The plan the approval prompt shows is applied as it is, through the same checks: a disable, an update, a
    // renamed key moving back, a delete and both singletons again.
    await edit('projects/payments.yaml', '      enabled: true\n', '      enabled: false\n');
    await edit('projects/payments.yaml', 'threshold: 6000', 'threshold: 7000');
    await edit('projects/payments.yaml', 'key: host-ssl-stale', 'key: host-ssl-certificate-stale');
    await edit('projects/payments.yaml', '    - key: new-host-down\n', '    - key: new-host-down-renamed\n');
    await edit('projects/payments.yaml', 'numTotal: 30', 'numTotal: 40');
    await edit('projects/payments.yaml', 'defaultServerType: RAM_POOL', 'defaultServerType: DEV_SERVER');
    const ask = runOnTerminal(['apply', '--no-color', ...common], toolEnv(emulator.url), { pidFile: join(dir, 'pid') });
    await ask.waitFor(/Enter a value: /);
    ask.type('yes\r');
    const code = await ask.done;
    expect(ask.output()).not.toMatch(/SAVED_PLAN|malformed|TypeError/);
    expect(ask.output()).toMatch(/Plan: 0 to create, 4 to update, 0 to delete, 2 to adopt, 1 blocked, 1 drifted/);
    // Exit 1 for the blocked config alone (its secret is in no file): every write was applied.
    expect(code, ask.output()).toBe(1);
    expect(ask.output()).toContain('6 applied, 0 failed, 0 skipped, 0 not converging, 1 blocked, 0 targets failed');
  });
});
