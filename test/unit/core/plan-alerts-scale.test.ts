// Scenario: a project with many alert configs is planned by looking each live config's text up a bounded number of times (not once per desired key), and duplicates of one text are still adopted oldest first, renamed in key order, and listed when an interrupted create finds several.
import { describe, expect, it } from 'vitest';
import { liveView } from '../../../lambdas/core/normalise.ts';
import { type AlertPlanInput, planAlertConfigs } from '../../../lambdas/core/plan-alerts.ts';
import type { ProjectState } from '../../../lambdas/core/ports.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';
import { alertPlanInput } from '../../helpers/alert-plan-input.ts';

const key = new Uint8Array(32).fill(3);

const live = (id: string, n: number, created?: string): AlertConfig =>
  ({
    id,
    groupId: 'g',
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    ...(created === undefined ? {} : { created }),
    matchers: [],
    notifications: [{ typeName: 'EMAIL', emailAddress: `a${n}@x.io`, delayMin: 0 }],
  }) as unknown as AlertConfig;

const desired = (k: string, n: number) => ({
  key: k,
  eventTypeName: 'HOST_DOWN',
  enabled: true,
  matchers: [],
  notifications: [{ typeName: 'EMAIL', emailAddress: `a${n}@x.io`, delayMin: 0 }],
});

function input(liveList: AlertConfig[], configs: ReturnType<typeof desired>[], state: ProjectState): AlertPlanInput {
  return alertPlanInput(configs, liveList, state, { fingerprintKey: key });
}

const summary = (plan: ReturnType<typeof planAlertConfigs>) =>
  plan.changes.map((c) => `${c.key}:${c.action}${c.id === undefined ? '' : `:${c.id}`}`);

describe('planAlertConfigs at scale', () => {
  it('reads each live text at most twice, however many desired keys look for a match', () => {
    const n = 60;
    // n unowned configs and n configs owned by keys that left git, none equal to any of the n new desired keys.
    const liveList = [...Array.from({ length: n }, (_, i) => live(`u${i}`, 1000 + i))];
    const owned: ProjectState['alertConfigs'] = {};
    for (let i = 0; i < n; i++) {
      liveList.push(live(`o${i}`, 2000 + i));
      owned[`old${String(i).padStart(3, '0')}`] = { id: `o${i}` };
    }
    const configs = Array.from({ length: n }, (_, i) => desired(`new${String(i).padStart(3, '0')}`, i));
    const reads = new Map<string, number>();
    const views = liveList.map((c) => {
      const view = liveView(c);
      return {
        get text() {
          reads.set(c.id, (reads.get(c.id) ?? 0) + 1);
          return view.text;
        },
        get normal() {
          return view.normal;
        },
        get digest() {
          return view.digest;
        },
      };
    });
    const out = planAlertConfigs({ ...input(liveList, configs, { alertConfigs: owned }), views });
    expect(out.changes.filter((c) => c.action === 'create')).toHaveLength(n);
    expect(out.changes.filter((c) => c.action === 'delete')).toHaveLength(n);
    expect(out.unmanaged).toHaveLength(n);
    expect(Math.max(...reads.values())).toBeLessThanOrEqual(2);
  });

  it("an in-sync project: the scan for earlier releases' digest-less markers reads none of its records", () => {
    const n = 50;
    const liveList = Array.from({ length: n }, (_, i) => live(`c${i}`, i));
    const records: ProjectState['alertConfigs'] = {};
    for (let i = 0; i < n; i++) records[`k${String(i).padStart(3, '0')}`] = { id: `c${i}` };
    // A marker an earlier release saved (no desiredDigest) for a key that left git: still warned of.
    records.gone = { pendingCreate: { runId: 'r0', startedAt: '2026-01-01T00:00:00Z' } };
    const reads = new Map<string | symbol, number>();
    const counted = new Proxy(records, {
      get(target, key, receiver) {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        return Reflect.get(target, key, receiver);
      },
    });
    const configs = Array.from({ length: n }, (_, i) => desired(`k${String(i).padStart(3, '0')}`, i));
    const out = planAlertConfigs(input(liveList, configs, { alertConfigs: counted }));
    expect(out.changes.filter((c) => c.action !== 'noop')).toEqual([]);
    expect(out.warnings).toEqual([
      expect.stringContaining('alert key "gone" left git while its create was unresolved'),
    ]);
    // Each in-sync record is read as before this scan existed: by the owned ids, the renames and its own key's plan.
    expect(Math.max(...[...reads].filter(([k]) => k !== 'gone').map(([, count]) => count))).toBe(3);
  });

  it('adopts equal unowned configs oldest first (then by id), each one once', () => {
    const liveList = [
      live('c', 1, '2026-01-03T00:00:00Z'),
      live('b', 1, '2026-01-01T00:00:00Z'),
      live('a', 1, '2026-01-01T00:00:00Z'),
      live('z', 2),
    ];
    const configs = [desired('k1', 1), desired('k2', 1), desired('k3', 1), desired('k4', 1), desired('k5', 2)];
    const out = planAlertConfigs(input(liveList, configs, { alertConfigs: {} }));
    expect(summary(out)).toEqual(['k1:adopt:a', 'k2:adopt:b', 'k3:adopt:c', 'k4:create', 'k5:adopt:z']);
    expect(out.unmanaged).toEqual([]);
  });

  it('moves renamed keys in the order of the old keys, and deletes the rest', () => {
    const liveList = [live('x', 1), live('y', 1), live('w', 1)];
    const state = { alertConfigs: { old2: { id: 'x' }, old1: { id: 'y' }, old3: { id: 'w' } } };
    const out = planAlertConfigs(input(liveList, [desired('n1', 1), desired('n2', 1)], state));
    expect(summary(out)).toEqual(['n1:adopt:y', 'n2:adopt:x', 'old3:delete:w']);
    expect(out.changes.map((c) => c.movedFrom)).toEqual(['old1', 'old2', undefined]);
  });

  it('an interrupted create with several matches lists the unclaimed ones, oldest first', () => {
    const liveList = [
      live('m3', 1, '2026-01-03T00:00:00Z'),
      live('m1', 1, '2026-01-01T00:00:00Z'),
      live('m2', 1, '2026-01-02T00:00:00Z'),
    ];
    const state = { alertConfigs: { b: { pendingCreate: { runId: 'r1', startedAt: '2026-01-01T00:00:00Z' } } } };
    const out = planAlertConfigs(input(liveList, [desired('a', 1), desired('b', 1)], state as ProjectState));
    expect(summary(out)).toEqual(['a:adopt:m1', 'b:blocked']);
    expect(out.changes[1]?.reason).toContain('2 matching unmanaged alert configs exist (m2, m3)');
  });
});
