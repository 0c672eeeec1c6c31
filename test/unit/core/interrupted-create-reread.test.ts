// Scenario: an apply is stopped (Ctrl-C, the Lambda's stop before its time limit) right after a POST that may have
// landed (no answer: AmbiguousWriteError), while the re-read that would identify the new config waits for a slot: the
// stop-waiting view ends that read unsent (OpsManagerAbortedError, sent false). The create was sent, so it is no write
// "not started": its pending marker must stay, or the next run finds no marker, creates again, and leaves a duplicate.
import { describe, expect, it } from 'vitest';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import { runReconcile } from '../../../lambdas/core/run.ts';
import { OpsManagerAbortedError } from '../../../lambdas/opsman/index.ts';
import { ambiguous, FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { projectYaml, ReconcileHarness, settingsYaml } from '../../helpers/reconcile-world.ts';

const P1 = '5e2211c17a3e5a48f5497de3';

/** The fake, with the run stopped as the POST returns, and every read after the stop ended unsent. */
function stoppedAfterPost(api: OpsManagerApi, stop: AbortController): OpsManagerApi {
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
          return await value.apply(target, args);
        } finally {
          if (prop === 'createAlertConfig') stop.abort('stopped by the test');
        }
      };
    },
  });
}

describe('an apply stopped while re-reading after a POST whose outcome is unknown', () => {
  it('keeps the pending marker, reports the create failed (not "not started"), and the next run creates no duplicate', async () => {
    const world = new FakeWorld();
    world.addProject(P1, '5e2211c17a3e5a48f5497de0');
    world.faults.push({ method: 'createAlertConfig', phase: 'after', error: () => ambiguous() });
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
    const stop = new AbortController();
    const first = await runReconcile(
      { command: 'apply', runId: 'run-1', owner: 'test', signal: stop.signal },
      { ...h.deps(), api: stoppedAfterPost(h.deps().api, stop) },
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
