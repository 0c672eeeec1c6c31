// Scenario: an apply stopped (Ctrl-C, the Lambda's stop before its time limit) while a read it needs for a write that
// was sent is still waiting. The run's writes go through the stop-waiting view, which ends every request still waiting
// once the run is stopped:
// - a POST that may have landed (no answer: AmbiguousWriteError) whose re-read, which would identify the new config,
//   is ended unsent: the create was sent, so it is no write "not started"; its pending marker must stay, or the next
//   run finds no marker, creates again, and leaves a duplicate;
// - a create whose answer does not prove it converged, so the target's list must be re-read to verify it: that re-read
//   goes through the API itself, so the stopped apply verifies what it wrote (the README: "the writes in flight finish
//   and are verified") instead of reporting a verify failure.
import { describe, expect, it } from 'vitest';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import { runReconcile } from '../../../lambdas/core/run.ts';
import { OpsManagerAbortedError } from '../../../lambdas/opsman/index.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';
import { ambiguous, FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { projectYaml, ReconcileHarness, settingsYaml } from '../../helpers/reconcile-world.ts';

const P1 = '5e2211c17a3e5a48f5497de3';

/** A world of one project and a desired state of one alert config, to be created by the apply. */
function oneCreate(): { world: FakeWorld; h: ReconcileHarness } {
  const world = new FakeWorld();
  world.addProject(P1, '5e2211c17a3e5a48f5497de0');
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
  return { world, h };
}

/**
 * `api` as a stopped run's writes see it: the create stops the run as it returns or throws (its answer passed through
 * `echo`), and every request after the stop ends unsent, as the real stop-waiting view's waiting requests do.
 */
function stopsAtCreate(
  api: OpsManagerApi,
  stop: AbortController,
  echo: (answer: AlertConfig) => AlertConfig = (answer) => answer,
): OpsManagerApi {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (stop.signal.aborted) {
          throw new OpsManagerAbortedError('stopped by the test', false, {
            method: 'GET',
            pathTemplate: '/groups/{groupId}/alertConfigs',
          });
        }
        try {
          const answer: unknown = await value.apply(target, args);
          return prop === 'createAlertConfig' ? echo(answer as AlertConfig) : answer;
        } finally {
          if (prop === 'createAlertConfig') stop.abort('stopped by the test');
        }
      };
    },
  });
}

describe('an apply stopped while re-reading after a POST whose outcome is unknown', () => {
  it('keeps the pending marker, reports the create failed (not "not started"), and the next run creates no duplicate', async () => {
    const { world, h } = oneCreate();
    world.faults.push({ method: 'createAlertConfig', phase: 'after', error: () => ambiguous() });
    const stop = new AbortController();
    const first = await runReconcile(
      { command: 'apply', runId: 'run-1', owner: 'test', signal: stop.signal },
      { ...h.deps(), api: stopsAtCreate(h.deps().api, stop) },
    );
    expect(world.groups.get(P1)?.alerts.size).toBe(1); // the POST landed
    const [result] = first.results;
    expect(result?.status).toBe('failed');
    expect(result?.message).toMatch(/pending marker stays/);
    const record = JSON.parse(h.state.text ?? '{}').projects?.[P1]?.alertConfigs?.['too-few'];
    expect(record?.pendingCreate).toBeDefined();

    const second = await runReconcile({ command: 'apply', runId: 'run-2', owner: 'test' }, h.deps());
    expect(second.failures).toEqual([]);
    expect(world.groups.get(P1)?.alerts.size).toBe(1);
  });
});

/**
 * `api` with a stop-waiting view: through the view, the create answers without its notifications (an echo that proves
 * nothing) and stops the run as it returns; any later request through the view ends unsent. The API itself keeps
 * answering.
 */
function withStoppingView(api: OpsManagerApi, stop: AbortController): OpsManagerApi {
  const view = stopsAtCreate(api, stop, (answer) => ({ ...answer, notifications: [] }));
  return new Proxy(api, {
    get(target, prop, receiver) {
      if (prop === 'withStopWaiting') return () => view;
      return Reflect.get(target, prop, receiver);
    },
  });
}

describe('an apply stopped as a write returns an answer that needs a re-read', () => {
  it('verifies the write through the API itself: applied, no verify failure', async () => {
    const { world, h } = oneCreate();
    const stop = new AbortController();
    const report = await runReconcile(
      { command: 'apply', runId: 'run-1', owner: 'test', signal: stop.signal },
      { ...h.deps(), api: withStoppingView(h.deps().api, stop) },
    );
    expect(stop.signal.aborted).toBe(true);
    expect(report.failures).toEqual([]);
    expect(report.results.map((r) => [r.change.key, r.status])).toEqual([['too-few', 'applied']]);
    expect(world.calls.filter((c) => c.method === 'listAlertConfigs').length).toBeGreaterThanOrEqual(2);
  });
});
