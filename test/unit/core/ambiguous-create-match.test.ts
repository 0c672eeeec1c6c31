// Scenario: a POST whose outcome is unknown is resolved by re-reading the project's configs. Only an unowned config
// equal to the desired body in every field is the created one: a config of the same event type that differs (a
// threshold, a notification) belongs to someone else and is never taken for it, whether or not the POST made one.
import { describe, expect, it } from 'vitest';
import { runReconcile } from '../../../lambdas/core/run.ts';
import { ambiguous, FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { projectYaml, ReconcileHarness, settingsYaml } from '../../helpers/reconcile-world.ts';

const P1 = '5e2211c17a3e5a48f5497de3';

function setup(phase: 'before' | 'after') {
  const world = new FakeWorld();
  world.addProject(P1, '5e2211c17a3e5a48f5497de0');
  // Someone else's config of the same event type, enabled too, differing in its threshold.
  const foreign = world.seedAlert(P1, {
    eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
    enabled: true,
    matchers: [],
    threshold: { operator: 'LESS_THAN', threshold: 1 },
    notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5 }],
  });
  const h = new ReconcileHarness(world);
  h.setFiles({
    'settings.yaml': settingsYaml({ mode: 'apply' }),
    'p1.yaml': projectYaml({
      name: 'payments-prod',
      projectId: P1,
      alertConfigs: [
        {
          key: 'too-few',
          eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
          enabled: true,
          threshold: { operator: 'LESS_THAN', threshold: 2 },
          notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5 }],
        },
      ],
    }),
  });
  world.faults.push({ method: 'createAlertConfig', phase, error: () => ambiguous() });
  const record = () => JSON.parse(h.state.text ?? '{}').projects?.[P1]?.alertConfigs?.['too-few'];
  return {
    world,
    foreign,
    record,
    run: () => runReconcile({ command: 'apply', runId: 'run-1', owner: 'test' }, h.deps()),
  };
}

describe('an ambiguous POST re-read among configs of the same event type', () => {
  it('nothing was created: the differing config is not adopted, the marker stays', async () => {
    const w = setup('before');
    const report = await w.run();
    expect(report.results.map((r) => `${r.change.action}:${r.status}`)).toEqual(['create:failed']);
    expect(report.results[0]?.message).toMatch(
      /the POST was ambiguous \(the connection failed after the request was sent\) and no matching config was found/,
    );
    expect(w.record()?.id).toBeUndefined();
    expect(w.record()?.pendingCreate).toBeDefined();
  });

  it('the POST created it: the equal config is adopted, never the differing one', async () => {
    const w = setup('after');
    const report = await w.run();
    expect(report.results.map((r) => `${r.change.action}:${r.status}`)).toEqual(['create:applied']);
    expect(report.results[0]?.message).toMatch(/re-read found exactly one matching config/);
    expect(w.record()?.id).toBeDefined();
    expect(w.record()?.id).not.toBe(w.foreign);
  });
});
