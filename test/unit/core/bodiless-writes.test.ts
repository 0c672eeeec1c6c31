// Scenario: Ops Manager (or a server written from the spec) answers alert-config writes with a success status and no
// body: the client resolves null, and the reconciler neither fails the write nor loses the new config's id (a create is
// identified by re-reading the list, an update or toggle is verified by re-reading). When Ops Manager stored the created
// config otherwise than it was sent, the one config of its event type that appeared since the plan is the created one:
// it is owned (not converging) instead of being POSTed again on every run; two new ones, or a POST whose outcome is
// unknown, are never guessed at.
import { describe, expect, it } from 'vitest';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import { runReconcile } from '../../../lambdas/core/run.ts';
import { ambiguous, FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { projectYaml, ReconcileHarness, settingsYaml } from '../../helpers/reconcile-world.ts';

const P1 = '5e2211c17a3e5a48f5497de3';
const WRITES = new Set(['createAlertConfig', 'updateAlertConfig', 'setAlertConfigEnabled']);

/** The fake, with every alert-config write answered without a body (its effect happens as usual). */
function bodiless(api: OpsManagerApi, afterWrite?: () => void): OpsManagerApi {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (!WRITES.has(String(prop))) return value.bind(target);
      return async (...args: unknown[]) => {
        await value.apply(target, args);
        afterWrite?.();
        return null;
      };
    },
  });
}

function files(enabled: boolean, threshold: number): Record<string, string> {
  return {
    'settings.yaml': settingsYaml({ mode: 'apply' }),
    'p1.yaml': projectYaml({
      name: 'payments-prod',
      projectId: P1,
      alertConfigs: [
        {
          key: 'too-few',
          eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
          enabled,
          threshold: { operator: 'LESS_THAN', threshold },
          notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5 }],
        },
      ],
    }),
  };
}

describe('alert-config writes answered without a body', () => {
  it('create, update and toggle are applied, recorded and converge', async () => {
    const world = new FakeWorld();
    world.addProject(P1, '5e2211c17a3e5a48f5497de0');
    const h = new ReconcileHarness(world);
    let runs = 0;
    const run = (command: 'apply' | 'plan') =>
      runReconcile({ command, runId: `run-${++runs}`, owner: 'test' }, { ...h.deps(), api: bodiless(h.deps().api) });

    h.setFiles(files(true, 2));
    const created = await run('apply');
    expect(created.failures).toEqual([]);
    expect(created.results.map((r) => `${r.change.action}:${r.status}`)).toEqual(['create:applied']);
    const id = [...(world.groups.get(P1)?.alerts.keys() ?? [])][0];
    expect(id).toBeDefined();
    expect(JSON.parse(h.state.text ?? '{}').projects[P1].alertConfigs['too-few'].id).toBe(id);

    h.setFiles(files(true, 3));
    const updated = await run('apply');
    expect(updated.failures).toEqual([]);
    expect(updated.results.map((r) => `${r.change.action}:${r.status}`)).toEqual(['update:applied']);

    h.setFiles(files(false, 3));
    const toggled = await run('apply');
    expect(toggled.failures).toEqual([]);
    expect(toggled.results.map((r) => `${r.change.action}:${r.status}`)).toEqual(['disable:applied']);

    const plan = await run('plan');
    expect(plan.plan.changes.filter((c) => c.action !== 'noop')).toEqual([]);
    expect(world.groups.get(P1)?.alerts.size).toBe(1);
  });
});

describe('a create answered 2xx without its id, stored otherwise than sent', () => {
  /** Ops Manager stores every threshold as 5; `human` adds configs right after each write when set. */
  function setup(human?: (world: FakeWorld) => void) {
    const world = new FakeWorld();
    world.addProject(P1, '5e2211c17a3e5a48f5497de0');
    world.onStore = (stored) => {
      if (stored.threshold !== undefined) stored.threshold.threshold = 5;
    };
    const h = new ReconcileHarness(world);
    let runs = 0;
    const api = bodiless(h.deps().api, human === undefined ? undefined : () => human(world));
    const run = (command: 'apply' | 'plan') =>
      runReconcile({ command, runId: `run-${++runs}`, owner: 'test' }, { ...h.deps(), api });
    const tooFew = () =>
      [...(world.groups.get(P1)?.alerts.values() ?? [])].filter((a) => a.eventTypeName === 'TOO_FEW_HEALTHY_MEMBERS');
    const record = () => JSON.parse(h.state.text ?? '{}').projects?.[P1]?.alertConfigs?.['too-few'];
    h.setFiles(files(true, 2));
    return { world, h, run, tooFew, record };
  }

  it('owns the one new config of its event type, not converging, and never creates another', async () => {
    // A config of another event type appearing at the same time is not a candidate.
    let once = false;
    const w = setup((world) => {
      if (once) return;
      once = true;
      world.seedAlert(P1, { eventTypeName: 'HOST_DOWN', enabled: true, matchers: [], notifications: [] });
    });
    const first = await w.run('apply');
    expect(first.results.map((r) => `${r.change.action}:${r.status}`)).toEqual(['create:not-converging']);
    expect(w.tooFew()).toHaveLength(1);
    expect(w.record()?.id).toBe(w.tooFew()[0]?.id);
    expect(w.record()?.notConverging?.fields).toEqual(['threshold.threshold']);
    await w.run('apply');
    await w.run('apply');
    expect(w.tooFew()).toHaveLength(1);
  });

  it('two new configs of its event type: neither is taken for it', async () => {
    let once = false;
    const w = setup((world) => {
      if (once) return;
      once = true;
      world.seedAlert(P1, {
        eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
        enabled: true,
        matchers: [],
        threshold: { operator: 'LESS_THAN', threshold: 1 },
        notifications: [],
      });
    });
    const first = await w.run('apply');
    expect(first.results.map((r) => `${r.change.action}:${r.status}`)).toEqual(['create:failed']);
    expect(first.results[0]?.message).toMatch(/no matching config was found; the pending marker stays/);
    expect(w.record()?.id).toBeUndefined();
    expect(w.record()?.pendingCreate).toBeDefined();
  });

  it('a POST whose outcome is unknown (no answer) is not taken as applied', async () => {
    const w = setup();
    w.world.faults.push({ method: 'createAlertConfig', phase: 'after', error: () => ambiguous() });
    const first = await w.run('apply');
    expect(first.results.map((r) => `${r.change.action}:${r.status}`)).toEqual(['create:failed']);
    expect(first.results[0]?.message).toMatch(
      /the POST was ambiguous \(the connection failed after the request was sent\) and no matching config was found/,
    );
    expect(w.record()?.id).toBeUndefined();
  });
});
