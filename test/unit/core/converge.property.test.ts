// Scenario: property: for random desired and live states, after one apply against the fake the next plan is empty (also after a second desired state replaces the first).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../../lambdas/core/apply.ts';
import type { DesiredAlertConfig, DesiredNotification, DesiredState, Plan } from '../../../lambdas/core/model.ts';
import { DEFAULT_SETTINGS } from '../../../lambdas/core/model.ts';
import { makePlan } from '../../../lambdas/core/plan.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { emptyState } from '../../../lambdas/core/state.ts';
import type { AlertConfigRequest } from '../../../lambdas/opsman/types.ts';
import { FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { desiredProject, ListReporter, TestClock } from '../../helpers/reconcile-world.ts';

const G = '5e2211c17a3e5a48f5497de3';
const key = new Uint8Array(32).fill(9);

const roles = fc.subarray(['GROUP_OWNER', 'GROUP_READ_ONLY', 'GROUP_MONITORING_ADMIN'], { minLength: 1 });
const interval = fc.option(fc.integer({ min: 5, max: 120 }), { nil: undefined });
const delay = fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined });
const ref = fc.constantFrom('s#a', 's#b', 's#c');

const notification: fc.Arbitrary<DesiredNotification> = fc
  .oneof(
    fc.record({
      typeName: fc.constant('GROUP'),
      roles,
      intervalMin: interval,
      delayMin: delay,
      emailEnabled: fc.option(fc.boolean(), { nil: undefined }),
    }),
    fc.record({
      typeName: fc.constant('EMAIL'),
      emailAddress: fc.constantFrom('a@x.io', 'b@x.io'),
      intervalMin: interval,
      delayMin: delay,
    }),
    fc.record({
      typeName: fc.constant('WEBHOOK'),
      webhookUrl: ref.map((r) => ({ secretRef: r })),
      webhookSecret: ref.map((r) => ({ secretRef: r })),
    }),
    fc.record({
      typeName: fc.constant('SLACK'),
      channelName: fc.constantFrom('#a', '#b'),
      apiToken: ref.map((r) => ({ secretRef: r })),
    }),
    fc.record({ typeName: fc.constant('PAGER_DUTY'), serviceKey: ref.map((r) => ({ secretRef: r })), delayMin: delay }),
  )
  .map((n) => Object.fromEntries(Object.entries(n).filter(([, v]) => v !== undefined)) as DesiredNotification);

const alert = fc.record({
  eventTypeName: fc.constantFrom('HOST_DOWN', 'NO_PRIMARY', 'OUTSIDE_METRIC_THRESHOLD'),
  enabled: fc.boolean(),
  matchers: fc.array(
    fc.record({
      fieldName: fc.constantFrom('HOSTNAME', 'PORT'),
      operator: fc.constant('EQUALS'),
      value: fc.constantFrom('a', 'b', '27017'),
    }),
    { maxLength: 2 },
  ),
  notifications: fc.array(notification, { minLength: 1, maxLength: 3 }),
  threshold: fc.integer({ min: 1, max: 99 }),
});

type Alert = typeof alert extends fc.Arbitrary<infer T> ? T : never;

function toDesired(alerts: Alert[]): Partial<DesiredAlertConfig>[] {
  return alerts.map((a, i) => ({
    key: `k${i}`,
    eventTypeName: a.eventTypeName,
    enabled: a.enabled,
    matchers: a.matchers,
    notifications: a.notifications,
    ...(a.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD'
      ? { metricThreshold: { metricName: 'CONNECTIONS', operator: 'GREATER_THAN', threshold: a.threshold } }
      : {}),
  }));
}

function liveBody(a: Alert, secret: string): AlertConfigRequest {
  const d = toDesired([a])[0] as DesiredAlertConfig;
  return {
    enabled: d.enabled,
    eventTypeName: d.eventTypeName,
    matchers: d.matchers,
    ...(d.metricThreshold ? { metricThreshold: d.metricThreshold } : {}),
    notifications: d.notifications.map((n) =>
      Object.fromEntries(
        Object.entries(n).map(([k, v]) => [k, typeof v === 'object' && v !== null && 'secretRef' in v ? secret : v]),
      ),
    ) as unknown as AlertConfigRequest['notifications'],
  };
}

async function reconcile(
  world: FakeWorld,
  alerts: Alert[],
  state: ReconcileState,
  secrets: Record<string, string>,
  command: 'apply' | 'plan',
): Promise<Plan> {
  const desired: DesiredState = {
    projects: [desiredProject(G, toDesired(alerts), { prune: true, mode: 'apply' })],
    organizations: [],
    settings: { ...DEFAULT_SETTINGS, mode: 'apply', prune: { maxDeletes: 100, allowEmpty: true } },
    files: [],
    digest: 'd',
  };
  const clock = new TestClock();
  const deps = {
    api: world.as('gitopsbt'),
    secrets: { resolve: async (r: string) => secrets[r] ?? 'https://hooks.example.invalid/x' },
    fingerprintKey: key,
    reporter: new ListReporter(),
  };
  const plan = await makePlan({ runId: 'r', createdAt: 'now', command, desired, state, stateCorrupt: false }, deps);
  if (command === 'apply') {
    await applyPlan(plan, {
      ...deps,
      clock,
      runId: 'r',
      state,
      skipReason: () => undefined,
      persist: async () => {},
      keepAlive: async () => {},
      readPin: async () => '',
    });
  }
  return plan;
}

describe('convergence property', () => {
  it('after one apply, the next plan has nothing to do', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(alert, { maxLength: 5 }),
        fc.array(alert, { maxLength: 5 }),
        fc.array(alert, { maxLength: 3 }),
        fc.boolean(),
        async (first, second, unmanaged, rotate) => {
          const world = new FakeWorld();
          world.addProject(G);
          for (const a of unmanaged) world.seedAlert(G, liveBody(a, 'live-secret'));
          // Some desired configs already exist unowned (adoption).
          for (const a of first.slice(0, 1)) world.seedAlert(G, liveBody(a, 'other-secret'));
          const state = emptyState('t');
          // URL-shaped: a reference may stand for a webhookUrl, whose value must be an absolute http(s) URL.
          const secrets = {
            's#a': 'https://hooks.example.invalid/alpha-1',
            's#b': 'https://hooks.example.invalid/bravo-2',
            's#c': 'https://hooks.example.invalid/charlie-3',
          };
          await reconcile(world, first, state, secrets, 'apply');
          const after1 = await reconcile(world, first, state, secrets, 'plan');
          expect(
            after1.changes.filter((c) => c.action !== 'noop').map((c) => `${c.key}:${c.action}:${c.reason}`),
          ).toEqual([]);

          const rotated = rotate ? { ...secrets, 's#b': 'https://hooks.example.invalid/bravo-rotated' } : secrets;
          await reconcile(world, second, state, rotated, 'apply');
          const after2 = await reconcile(world, second, state, rotated, 'plan');
          expect(
            after2.changes.filter((c) => c.action !== 'noop').map((c) => `${c.key}:${c.action}:${c.reason}`),
          ).toEqual([]);
          expect(after2.failures).toEqual([]);
          // Only owned configs and the untouched unmanaged ones are live.
          expect(world.groups.get(G)?.alerts.size).toBe(second.length + (after2.unmanaged?.length ?? 0));
        },
      ),
      { numRuns: 60 },
    );
  });
});
