// Scenario: an unmanaged alert config equal in every non-secret field to one a desired key owns, adopts or takes over
// by a rename is a duplicate (two installations that created the key at once, a copy made by hand): the plan names it
// in one warning per project, keys and ids only; a config differing in any field is no duplicate. The whole flow with
// two installations and the CLI: test/integration/cli/two-installations.test.ts.
import { describe, expect, it } from 'vitest';
import { duplicateWarning, MAX_DUPLICATE_KEYS } from '../../../lambdas/core/duplicates.ts';
import { liveView } from '../../../lambdas/core/normalise.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';
import { DISK_BODY, ownedId, P1, p1Alerts, scenario, setP1 } from './scenario-fixture.ts';

const duplicates = (report: { plan: { warnings?: string[] } }) =>
  (report.plan.warnings ?? []).filter((w) => w.startsWith('DUPLICATE ALERT CONFIGS'));

describe('duplicates of owned alert configs', () => {
  it('names the second of two equal unmanaged configs when a key adopts the first', async () => {
    const h = scenario();
    const first = h.world.seedAlert(P1, DISK_BODY);
    const second = h.world.seedAlert(P1, DISK_BODY);
    const plan = await h.run('plan');
    expect(plan.plan.changes.find((c) => c.key === 'disk')).toMatchObject({ action: 'adopt', id: first });
    expect(duplicates(plan)).toEqual([
      `DUPLICATE ALERT CONFIGS in project payments-prod (${P1}): 1 alert config this tool manages has an unmanaged copy equal in every non-secret field, so Ops Manager raises and notifies its alerts twice: "disk" (id ${first}; unmanaged copy ${second}). This tool never changes or deletes a config it does not own. Such a copy is made by another writer: most often a second installation of opsman-gitops managing this project with its own state (another --state-dir or AWS stack, staging and production desired states both listing the project), whose apply created the key at the same time as this one; or a person or a script. Delete the copy in Ops Manager (an installation that owned it adopts the config named here on its next run, as they are equal), and give the project to one installation only`,
    ]);
  });

  it('names a copy of an owned config on every run, and never one that differs in a field', async () => {
    const h = scenario();
    await h.run('apply');
    expect(duplicates(await h.run('plan'))).toEqual([]);
    h.world.seedAlert(P1, { ...DISK_BODY, enabled: false });
    expect(duplicates(await h.run('plan'))).toEqual([]);
    const copy = h.world.seedAlert(P1, DISK_BODY);
    const report = await h.run('apply');
    expect(report.plan.changes.filter((c) => c.action !== 'noop')).toEqual([]);
    expect(duplicates(report)).toEqual([
      expect.stringContaining(`"disk" (id ${ownedId(h, 'disk')}; unmanaged copy ${copy}).`),
    ]);
    // Never touched: the copy is still there, unmanaged.
    expect(h.world.groups.get(P1)?.alerts.has(copy)).toBe(true);
    expect(report.plan.unmanaged?.some((u) => u.id === copy)).toBe(true);
  });

  it('compares a config adopted except in its ignored members with the live values it keeps', async () => {
    const h = scenario({
      alertConfigs: p1Alerts().map((c) => (c.key === 'disk' ? { ...c, ignoreFields: ['enabled'] } : c)),
    });
    const first = h.world.seedAlert(P1, { ...DISK_BODY, enabled: false });
    const second = h.world.seedAlert(P1, { ...DISK_BODY, enabled: false });
    const plan = await h.run('plan');
    expect(plan.plan.changes.find((c) => c.key === 'disk')).toMatchObject({ action: 'adopt', id: first });
    expect(duplicates(plan)).toEqual([expect.stringContaining(`"disk" (id ${first}; unmanaged copy ${second}).`)]);
  });

  it('names a copy of a config whose key was renamed', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    const copy = h.world.seedAlert(P1, DISK_BODY);
    setP1(h, { alertConfigs: p1Alerts().map((c) => (c.key === 'disk' ? { ...c, key: 'disk-space' } : c)) });
    const plan = await h.run('plan');
    expect(plan.plan.changes.find((c) => c.key === 'disk-space')).toMatchObject({
      action: 'adopt',
      id: disk,
      movedFrom: 'disk',
    });
    expect(duplicates(plan)).toEqual([expect.stringContaining(`"disk-space" (id ${disk}; unmanaged copy ${copy}).`)]);
  });

  it('names at most five keys and three copies each, counting the rest', () => {
    const target = { type: 'project' as const, id: P1, name: 'p' };
    const config = (id: string, eventTypeName: string): AlertConfig =>
      ({ id, groupId: P1, eventTypeName, enabled: true, matchers: [], notifications: [] }) as unknown as AlertConfig;
    const types = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7'];
    const copies = [
      ...['c4', 'c2', 'c3', 'c1'].map((id) => config(id, 'A1')),
      ...types.slice(1).map((t, i) => config(`d${i}`, t)),
      config('other', 'ELSEWHERE'),
    ];
    const views = new Map(copies.map((c) => [c.id, liveView(c)]));
    const kept = types.map((t, i) => ({ key: `k${7 - i}`, id: `o${i}`, text: liveView(config(`o${i}`, t)).text }));
    const warning = duplicateWarning(target, kept, copies, views) as string;
    expect(MAX_DUPLICATE_KEYS).toBe(5);
    expect(warning).toContain(
      '7 alert configs this tool manages have an unmanaged copy equal in every non-secret field, so Ops Manager raises and notifies their alerts twice: "k1" (id o6; unmanaged copy d5), "k2" (id o5; unmanaged copy d4), "k3" (id o4; unmanaged copy d3), "k4" (id o3; unmanaged copy d2), "k5" (id o2; unmanaged copy d1) and 2 more.',
    );
    const first = duplicateWarning(target, kept.slice(0, 1), copies, views) as string;
    expect(first).toContain('"k7" (id o0; unmanaged copy c1, c2, c3 and 1 more).');
    const three = copies.filter((c) => c.id !== 'c4');
    expect(duplicateWarning(target, kept.slice(0, 1), three, views)).toContain(
      '"k7" (id o0; unmanaged copy c1, c2, c3).',
    );
    expect(duplicateWarning(target, kept.slice(1, 2), [config('d0', 'A2')], views)).toContain(
      ': "k6" (id o1; unmanaged copy d0).',
    );
    expect(duplicateWarning(target, kept, [config('other', 'ELSEWHERE')], views)).toBeUndefined();
    expect(duplicateWarning(target, [], copies, views)).toBeUndefined();
  });
});
