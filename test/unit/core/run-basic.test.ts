// Scenario: runReconcile against the in-memory fake: apply converges, the next plan is empty, later applies write nothing.
import { describe, expect, it } from 'vitest';
import { FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { projectYaml, ReconcileHarness, settingsYaml } from '../../helpers/reconcile-world.ts';

const P1 = '5e2211c17a3e5a48f5497de3';
const P2 = '5e2211c17a3e5a48f5497de4';
const ORG = '5e2211c17a3e5a48f5497de0';

function world(): FakeWorld {
  const w = new FakeWorld();
  w.addProject(P1, ORG);
  w.addProject(P2, ORG);
  w.addTeam(ORG, '6a1f00000000000000000001');
  // An Ops Manager default alert: unmanaged, never touched.
  w.seedAlert(P1, {
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 60 }],
  });
  return w;
}

function files(): Record<string, string> {
  return {
    'settings.yaml': settingsYaml({ mode: 'apply', prune: { maxDeletes: 5, allowEmpty: false } }),
    'p1.yaml': projectYaml({
      name: 'payments-prod',
      projectId: P1,
      orgId: ORG,
      defaultServerType: 'PRODUCTION_SERVER',
      auditLogRotation: { enforce: true, sizeThresholdMB: 1000, timeThresholdHrs: 24 },
      alertConfigs: [
        {
          key: 'no-primary',
          eventTypeName: 'NO_PRIMARY',
          notifications: [
            {
              typeName: 'GROUP',
              roles: ['GROUP_OWNER', 'GROUP_READ_ONLY'],
              intervalMin: 5,
              delayMin: 0,
              emailEnabled: true,
            },
            {
              typeName: 'WEBHOOK',
              webhookUrl: { secretRef: 'notify#url' },
              webhookSecret: { secretRef: 'notify#secret' },
            },
          ],
        },
        {
          key: 'connections',
          eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
          matchers: [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'PRIMARY' }],
          metricThreshold: {
            metricName: 'CONNECTIONS',
            mode: 'AVERAGE',
            operator: 'GREATER_THAN',
            threshold: 5000,
            units: 'RAW',
          },
          notifications: [
            { typeName: 'TEAM', teamId: '6a1f00000000000000000001', intervalMin: 10, delayMin: 0, emailEnabled: true },
          ],
        },
      ],
    }),
    'p2.yaml': projectYaml({
      name: 'payments-staging',
      projectId: P2,
      alertConfigs: [
        {
          key: 'slack',
          eventTypeName: 'HOST_DOWN',
          notifications: [{ typeName: 'SLACK', channelName: '#x', apiToken: { secretRef: 'notify#slack' } }],
        },
      ],
    }),
  };
}

function harness(): ReconcileHarness {
  const h = new ReconcileHarness(world());
  h.setFiles(files());
  h.secrets.values = {
    'notify#url': 'https://hooks.example.invalid/very-secret-path-1234',
    'notify#secret': 'whsec-super-secret-value-9876',
    'notify#slack': 'xoxb-secret-slack-token-5555',
  };
  return h;
}

describe('runReconcile (fake Ops Manager)', () => {
  it('creates everything on the first apply and plans nothing afterwards', async () => {
    const h = harness();
    const first = await h.run('apply');
    expect(first.failures).toEqual([]);
    expect(first.summary.planned.create).toBe(3);
    expect(first.results.map((r) => `${r.change.key}:${r.status}`).sort()).toEqual([
      'auditLogRotation:applied',
      'connections:applied',
      'defaultServerType:applied',
      'no-primary:applied',
      'slack:applied',
    ]);
    expect(first.results.filter((r) => r.status === 'applied').length).toBe(5);
    expect(first.plan.unmanaged?.map((u) => u.summary)).toEqual(['HOST_DOWN (enabled)']);

    const plan = await h.run('plan');
    expect(plan.failures).toEqual([]);
    expect(plan.plan.changes.filter((c) => c.action !== 'noop')).toEqual([]);

    const writesBefore = h.world.writes().length;
    await h.run('apply');
    await h.run('apply');
    expect(h.world.writes().length).toBe(writesBefore);
  });

  it('never lets a secret value reach the report, the state or the archive', async () => {
    const h = harness();
    const report = await h.run('apply');
    const blobs = [JSON.stringify(report), h.state.text ?? '', ...h.archive.objects.values()];
    for (const secret of Object.values(h.secrets.values)) {
      for (const blob of blobs) expect(blob.includes(secret)).toBe(false);
    }
    expect(report.reportLocation).toMatch(/^memory:reports\/2026-03-01\/run-1\.json$/);
  });
});
