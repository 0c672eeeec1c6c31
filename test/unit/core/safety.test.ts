// Scenario: safety gates (prune flag, allowEmpty, maxDeletes across the run, protected keys, deletes after creates) refuse with numbers and the override.
import { describe, expect, it } from 'vitest';
import type { Change, DesiredProject, Settings } from '../../../lambdas/core/model.ts';
import { DEFAULT_SETTINGS } from '../../../lambdas/core/model.ts';
import { applySafetyGates } from '../../../lambdas/core/safety.ts';
import { serverError } from '../../helpers/fake-opsman-api.ts';
import { desiredProject } from '../../helpers/reconcile-world.ts';
import { actions, P1, p1Alerts, scenario, setP1 } from './scenario-fixture.ts';

function del(project: string, key: string): Change {
  return {
    target: { type: 'project', id: project, name: `n-${project}` },
    kind: 'alertConfig',
    key,
    action: 'delete',
    id: `id-${key}`,
    fields: [],
    reason: 'left git',
  };
}

const settings: Settings = { ...DEFAULT_SETTINGS, prune: { maxDeletes: 2, allowEmpty: false } };

describe('applySafetyGates (pure)', () => {
  const pruning = (id: string, extra: Partial<DesiredProject> = {}) =>
    desiredProject(id, [{ key: 'keep' }], { prune: true, ...extra });
  const cases: {
    name: string;
    changes: Change[];
    projects: DesiredProject[];
    overrides?: { maxDeletes?: number; allowEmpty?: boolean };
    corrupt?: boolean;
    expect: string[];
    reason?: RegExp;
  }[] = [
    {
      name: 'prune off',
      changes: [del('a', 'x')],
      projects: [desiredProject('a', [{ key: 'keep' }])],
      expect: ['blocked'],
      reason: /prune is off for project .*would delete 1 .*spec\.prune: true/,
    },
    { name: 'prune on', changes: [del('a', 'x')], projects: [pruning('a')], expect: ['delete'] },
    {
      // A delete whose project has no desired document (unknown prune setting) is never carried out.
      name: 'project without a desired document',
      changes: [del('gone', 'x')],
      projects: [pruning('a')],
      expect: ['blocked'],
      reason: /prune is off for project n-gone: would delete 1 /,
    },
    {
      name: 'protected key',
      changes: [del('a', 'x')],
      projects: [pruning('a', { protect: ['x'] })],
      expect: ['blocked'],
      reason: /protected/,
    },
    {
      name: 'empty desired set',
      changes: [del('a', 'x')],
      projects: [desiredProject('a', [], { prune: true })],
      expect: ['blocked'],
      reason: /empty desired alert set but owns 1 .*allowEmpty: true, or --allow-empty/,
    },
    {
      name: 'empty desired set with allowEmpty',
      changes: [del('a', 'x')],
      projects: [desiredProject('a', [], { prune: true })],
      overrides: { allowEmpty: true },
      expect: ['delete'],
    },
    {
      name: 'maxDeletes across projects',
      changes: [del('a', 'x'), del('a', 'y'), del('b', 'z')],
      projects: [pruning('a'), pruning('b')],
      expect: ['blocked', 'blocked', 'blocked'],
      reason:
        /^would delete 3 alert configs across 2 project\(s\); maxDeletes is 2 \(Settings\.prune\.maxDeletes, or --max-deletes 3\)$/,
    },
    {
      name: 'maxDeletes 0 and one delete: "1 alert config", not "1 alert configs"',
      changes: [del('a', 'x')],
      projects: [pruning('a')],
      overrides: { maxDeletes: 0 },
      expect: ['blocked'],
      reason:
        /^would delete 1 alert config across 1 project\(s\); maxDeletes is 0 \(Settings\.prune\.maxDeletes, or --max-deletes 1\)$/,
    },
    {
      name: 'maxDeletes overridden',
      changes: [del('a', 'x'), del('a', 'y'), del('b', 'z')],
      projects: [pruning('a'), pruning('b')],
      overrides: { maxDeletes: 3 },
      expect: ['delete', 'delete', 'delete'],
    },
    {
      name: 'corrupt state prunes nothing',
      changes: [del('a', 'x')],
      projects: [pruning('a')],
      corrupt: true,
      expect: ['blocked'],
      reason: /corrupt/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const out = applySafetyGates(c.changes, {
        projects: c.projects,
        settings,
        overrides: c.overrides,
        stateCorrupt: c.corrupt ?? false,
      });
      expect(out.map((x) => x.action)).toEqual(c.expect);
      if (c.reason !== undefined) expect(out[0]?.reason).toMatch(c.reason);
    });
  }

  it("reads a project's protect list once for all its deletes, not once per delete", () => {
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    let reads = 0;
    // Every protected key but the last: the list is read element by element through the proxy.
    const protect = new Proxy(keys.slice(0, -1), {
      get(target, property, receiver) {
        if (typeof property === 'string' && /^\d+$/.test(property)) reads++;
        return Reflect.get(target, property, receiver);
      },
    });
    const out = applySafetyGates(
      keys.map((k) => del('a', k)),
      { projects: [pruning('a', { protect })], settings, overrides: { maxDeletes: 100 }, stateCorrupt: false },
    );
    expect(out.map((x) => x.action)).toEqual([...keys.slice(0, -1).map(() => 'blocked'), 'delete']);
    expect(reads).toBeLessThanOrEqual(protect.length);
  });
});

describe('safety gates in a run', () => {
  it('prunes an owned config that left git only with prune: true, and never an unmanaged one', async () => {
    const h = scenario();
    await h.run('apply');
    setP1(h, { alertConfigs: p1Alerts().slice(0, 1) });
    const report = await h.run('apply');
    expect(actions(report)).toEqual(['disk:delete']);
    expect(h.world.groups.get(P1)?.alerts.size).toBe(2); // no-primary + the unmanaged default
    expect(report.plan.unmanaged?.length).toBe(1);
  });

  it('does not delete when a create of the same project failed', async () => {
    const h = scenario();
    await h.run('apply');
    setP1(h, {
      alertConfigs: [
        p1Alerts()[0] as Record<string, unknown>,
        { key: 'new', eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'EMAIL', emailAddress: 'n@x.y' }] },
      ],
    });
    h.world.faults.push({ method: 'createAlertConfig', groupId: P1, error: () => serverError('POST') });
    const report = await h.run('apply');
    expect(report.results.map((r) => `${r.change.key}:${r.status}`)).toEqual(['new:failed', 'disk:skipped']);
    expect(h.world.writes(P1).filter((w) => w.method === 'deleteAlertConfig')).toEqual([]);
  });

  it('refuses an empty desired set for a project that owns configs unless allowEmpty', async () => {
    const h = scenario();
    await h.run('apply');
    setP1(h, { alertConfigs: [] });
    const refused = await h.run('apply');
    expect(actions(refused)).toEqual(['disk:blocked', 'no-primary:blocked']);
    expect(refused.summary.blocked).toBe(2);
    const allowed = await h.run('apply', { overrides: { allowEmpty: true } });
    expect(actions(allowed)).toEqual(['disk:delete', 'no-primary:delete']);
  });
});
