// Scenario: years of projects and organizations coming and going in git leave the state no bigger than what is desired or owned.

import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { OpsManagerApiError } from '../../../lambdas/opsman/errors.ts';
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

  it('forgets the records of departed projects whose configs were deleted, by hand or with the project, over 30 decommissions', async () => {
    const h = harness(31);
    const keyed = (i: number) =>
      projectYaml({
        name: `p${i}`,
        projectId: pid(i),
        alertConfigs: ['a', 'b', 'c'].map((key) => ({
          key,
          eventTypeName: 'HOST_DOWN',
          notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5 }],
        })),
      });
    let warned = 0;
    for (let i = 0; i <= 30; i++) {
      h.setFiles({ 'settings.yaml': settingsYaml({ mode: 'apply' }), [`p${i}.yaml`]: keyed(i) });
      const report = await h.run('apply');
      warned = (report.warnings ?? []).filter((w) => w.includes('no longer in the desired state')).length;
      // The project just left behind is decommissioned in Ops Manager as well.
      if (i > 0) h.world.groups.delete(pid(i - 1));
    }
    // Each plan names the project that just left git and the one deleted since the run before (forgotten by that
    // run's apply): two, however many were decommissioned before them.
    expect(warned).toBe(2);
    expect(Object.keys(h.state.state?.projects ?? {}).sort()).toEqual([pid(29), pid(30)].sort());
    await h.run('apply');
    expect(Object.keys(h.state.state?.projects ?? {})).toEqual([pid(30)]);
    const next = await h.run('apply');
    expect((next.warnings ?? []).filter((w) => w.includes('no longer in the desired state'))).toEqual([]);
  });

  it('of a departed project still in Ops Manager, forgets only the config deleted by hand, and keeps all when the read fails', async () => {
    const h = harness(1);
    h.setFiles(files(0));
    await h.run('apply');
    // A second owned config for the owner project, then its file leaves git.
    const owner = projectYaml({
      name: 'owner',
      projectId: pid(999),
      alertConfigs: ['down', 'up'].map((key) => ({
        key,
        eventTypeName: key === 'down' ? 'HOST_DOWN' : 'NO_PRIMARY',
        notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
      })),
    });
    h.setFiles({ ...files(0, false), 'owner.yaml': owner });
    await h.run('apply');
    h.setFiles(files(0, false));
    const ids = h.state.state?.projects[pid(999)]?.alertConfigs ?? {};
    h.world.groups.get(pid(999))?.alerts.delete(ids.up?.id as string);
    h.world.faults.push({ method: 'listAlertConfigs', groupId: pid(999), error: () => new Error('socket hang up') });
    await h.run('apply');
    expect(Object.keys(h.state.state?.projects[pid(999)]?.alertConfigs ?? {}).sort()).toEqual(['down', 'up']);
    // A 404 that is not Ops Manager's "no such project" (a wrong path behind a proxy, say) proves nothing either.
    const otherNotFound = () =>
      new OpsManagerApiError(404, 'RESOURCE_NOT_FOUND', 'Cannot find resource.', {
        method: 'GET',
        pathTemplate: '/groups/{groupId}/alertConfigs',
      });
    h.world.faults.push({ method: 'listAlertConfigs', groupId: pid(999), error: otherNotFound });
    await h.run('apply');
    expect(Object.keys(h.state.state?.projects[pid(999)]?.alertConfigs ?? {}).sort()).toEqual(['down', 'up']);
    await h.run('apply');
    expect(Object.keys(h.state.state?.projects[pid(999)]?.alertConfigs ?? {})).toEqual(['down']);
  });

  it('forgets nothing of a departed project when the run is against another Ops Manager than the state was applied to', async () => {
    const h = harness(1);
    h.opsManagerUrl = 'https://opsman.example:8443';
    h.setFiles(files(0));
    await h.run('apply');
    // The owner project leaves git; the same state is then used against another installation (a typo in the base URL,
    // a staging one), which does not know that project: its 404 GROUP_NOT_FOUND says nothing of the recorded one.
    h.setFiles(files(0, false));
    const group = h.world.groups.get(pid(999));
    h.world.groups.delete(pid(999));
    h.opsManagerUrl = 'https://staging-opsman.example:8443';
    const other = await h.run('apply');
    expect((other.warnings ?? []).some((w) => w.includes('the state was last applied against'))).toBe(true);
    expect(Object.keys(h.state.state?.projects[pid(999)]?.alertConfigs ?? {})).toEqual(['down']);
    // Back on the recorded installation (the next apply records whichever it ran against), the record still names the
    // config that exists there, so the warning and a restored file can still prune it.
    if (group !== undefined) h.world.groups.set(pid(999), group);
    h.opsManagerUrl = 'https://opsman.example:8443';
    await h.run('apply');
    expect(Object.keys(h.state.state?.projects[pid(999)]?.alertConfigs ?? {})).toEqual(['down']);
  });
});
