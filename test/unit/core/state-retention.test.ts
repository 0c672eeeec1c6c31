// Scenario: years of projects and organizations coming and going in git leave the state no bigger than what is desired or owned.

import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { projectYaml, ReconcileHarness, settingsYaml } from '../../helpers/reconcile-world.ts';

const pid = (i: number) => `5e2211c17a3e5a48f54${String(i).padStart(5, '0')}`;
const oid = (i: number) => `6e2211c17a3e5a48f54${String(i).padStart(5, '0')}`;

function orgYaml(i: number): string {
  return stringify({
    apiVersion: 'opsman-gitops/v1',
    kind: 'Organization',
    metadata: { name: `org-${i}`, orgId: oid(i) },
    spec: { defaultServerType: 'PRODUCTION_SERVER' },
  });
}

/** Project i (singletons only, no alert config) and organization i are the desired state; `owner` keeps one config. */
function files(i: number, owner = true): Record<string, string> {
  const out: Record<string, string> = {
    'settings.yaml': settingsYaml({ mode: 'apply' }),
    [`p${i}.yaml`]: projectYaml({
      name: `p${i}`,
      projectId: pid(i),
      orgId: oid(i),
      defaultServerType: 'PRODUCTION_SERVER',
      alertConfigs: [],
    }),
    'orgs.yaml': orgYaml(i),
  };
  if (owner) {
    out['owner.yaml'] = projectYaml({
      name: 'owner',
      projectId: pid(999),
      alertConfigs: [
        { key: 'down', eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }] },
      ],
    });
  }
  return out;
}

function harness(cycles: number): ReconcileHarness {
  const w = new FakeWorld();
  for (let i = 0; i < cycles; i++) w.addProject(pid(i), oid(i));
  w.addProject(pid(999), oid(0));
  return new ReconcileHarness(w);
}

describe('state retention across desired-state churn', () => {
  it('forgets the entries of organizations and of projects without records that left git, over 120 applies', async () => {
    const h = harness(120);
    let firstBytes = 0;
    for (let i = 0; i < 120; i++) {
      h.setFiles(files(i));
      const report = await h.run('apply');
      expect(report.failures).toEqual([]);
      if (i === 0) firstBytes = h.state.text?.length ?? 0;
    }
    const state = h.state.state;
    expect(Object.keys(state?.projects ?? {}).sort()).toEqual([pid(119), pid(999)].sort());
    expect(Object.keys(state?.organizations ?? {})).toEqual([oid(119)]);
    // The same desired size as the first run's: the file did not grow with the history (ids are the same length).
    expect(h.state.text?.length).toBeLessThanOrEqual(firstBytes + 64);
  });

  it('keeps a departed project that still owns configs, and forgets nothing on a run limited with --project', async () => {
    const h = harness(2);
    h.setFiles(files(0));
    await h.run('apply');
    // The owner and project 0 leave git; project 1 and organization 1 come in. A --project run says nothing of the rest.
    h.setFiles(files(1, false));
    await h.run('apply', { projects: [pid(1)] });
    expect(Object.keys(h.state.state?.projects ?? {}).sort()).toEqual([pid(0), pid(1), pid(999)].sort());
    expect(Object.keys(h.state.state?.organizations ?? {})).toEqual([oid(0)]);
    // A full run forgets project 0 (no record) and organization 0; the owner's record of its live config stays.
    await h.run('apply');
    const state = h.state.state;
    expect(Object.keys(state?.projects ?? {}).sort()).toEqual([pid(1), pid(999)].sort());
    expect(Object.keys(state?.projects[pid(999)]?.alertConfigs ?? {})).toEqual(['down']);
    expect(Object.keys(state?.organizations ?? {})).toEqual([oid(1)]);
  });

  it('keeps a departed entry holding a field a later release wrote (a rollback loses nothing)', async () => {
    const h = harness(2);
    h.setFiles(files(0));
    await h.run('apply');
    const later = h.state.state as ReconcileState;
    (later.projects[pid(0)] as unknown as Record<string, unknown>).labels = { tier: 'gold' };
    (later.organizations?.[oid(0)] as unknown as Record<string, unknown>).policies = ['p1'];
    h.state.text = JSON.stringify(later);
    h.setFiles(files(1));
    await h.run('apply');
    expect(Object.keys(h.state.state?.projects ?? {}).sort()).toEqual([pid(0), pid(1), pid(999)].sort());
    expect(Object.keys(h.state.state?.organizations ?? {}).sort()).toEqual([oid(0), oid(1)].sort());
  });
});
