// Scenario: ownership: adoption instead of duplication, pending-create recovery, ambiguous POSTs, non-convergence, corrupt state.
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { PLAN_FORMAT_VERSION } from '../../../lambdas/core/model.ts';
import { checkSavedPlan } from '../../../lambdas/core/saved-plan.ts';
import { ambiguous } from '../../helpers/fake-opsman-api.ts';
import { actions, DISK_BODY, ownedId, P1, P2, p1Alerts, SECRETS, scenario, setP1 } from './scenario-fixture.ts';

/** A change of a saved plan with every member the apply reads (an update of an owned alert config of P1). */
const wellFormed = {
  key: 'k',
  kind: 'alertConfig',
  target: { type: 'project', id: P1, name: 'p1' },
  action: 'update',
  id: '6c0100000000000000000001',
  after: { eventTypeName: 'HOST_DOWN', enabled: true, notifications: [] },
  fields: [{ path: 'enabled', before: false, after: true }],
  reason: 'differs',
};

/** The members of a saved plan around its changes that these tests do not vary. */
const PLAN_HEADER = {
  runId: 'r',
  createdAt: '2026-11-27T00:00:00.000Z',
  mode: 'apply',
  desired: { digest: 'd', files: [] },
};

describe('adoption', () => {
  it('adopts an equal unowned config instead of creating a duplicate', async () => {
    const h = scenario();
    const existing = h.world.seedAlert(P1, DISK_BODY);
    const report = await h.run('apply');
    const disk = report.plan.changes.find((c) => c.key === 'disk');
    expect(disk).toMatchObject({ action: 'adopt', id: existing });
    expect(ownedId(h, 'disk')).toBe(existing);
    expect(h.world.writes(P1).filter((w) => w.method === 'createAlertConfig').length).toBe(1);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('never lets two desired keys adopt the same live config; the earliest created is chosen', async () => {
    const h = scenario({
      alertConfigs: [
        { key: 'a', eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'EMAIL', emailAddress: 'x@y.z' }] },
        { key: 'b', eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'EMAIL', emailAddress: 'x@y.z' }] },
      ],
    });
    const first = h.world.seedAlert(P1, {
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      notifications: [{ typeName: 'EMAIL', emailAddress: 'x@y.z' }],
    });
    h.world.seedAlert(P1, {
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      notifications: [{ typeName: 'EMAIL', emailAddress: 'x@y.z' }],
    });
    const plan = await h.run('plan');
    const adopted = plan.plan.changes.filter((c) => c.action === 'adopt');
    expect(adopted.map((c) => c.key)).toEqual(['a', 'b']);
    expect(adopted[0]?.id).toBe(first);
    expect(new Set(adopted.map((c) => c.id)).size).toBe(2);
  });

  it('re-sends secrets once when adopting a config that has them', async () => {
    const h = scenario();
    h.world.seedAlert(P1, {
      eventTypeName: 'NO_PRIMARY',
      enabled: true,
      notifications: [
        { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true },
        { typeName: 'WEBHOOK', webhookUrl: 'https://old.example/x', webhookSecret: 'old-secret' },
      ],
    });
    const report = await h.run('apply');
    expect(report.results.find((r) => r.change.key === 'no-primary')?.message).toContain('secrets re-sent');
    const stored = h.world.groups.get(P1)?.alerts.get(ownedId(h, 'no-primary'));
    expect(stored?.notifications.find((n) => n.typeName === 'WEBHOOK')?.webhookSecret).toBe(
      'whsec-super-secret-value-9876',
    );
  });
});

describe('renamed keys', () => {
  /** Project 1's alert configs with `from` renamed to `to` (and `edit` applied to that config). */
  function renamed(from: string, to: string, edit: (c: Record<string, unknown>) => void = () => {}) {
    return p1Alerts().map((c) => {
      if (c.key !== from) return c;
      const copy = structuredClone(c);
      copy.key = to;
      edit(copy);
      return copy;
    });
  }

  it('moves ownership instead of a delete and a create; the config keeps its id and nothing is written', async () => {
    const h = scenario();
    await h.run('apply');
    const id = ownedId(h, 'disk');
    const before = h.world.writes(P1).length;
    setP1(h, { alertConfigs: renamed('disk', 'disk-space') });
    const report = await h.run('apply');
    expect(actions(report)).toEqual(['disk-space:adopt']);
    expect(report.plan.changes.find((c) => c.key === 'disk-space')).toMatchObject({
      movedFrom: 'disk',
      id,
      reason: `key renamed from "disk": its config ${id} equals the desired one in every non-secret field, so ownership moves instead of a delete and a create`,
    });
    expect(h.world.writes(P1).length).toBe(before);
    expect(ownedId(h, 'disk-space')).toBe(id);
    expect(h.state.state?.projects[P1]?.alertConfigs.disk).toBeUndefined();
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('a renamed config with secrets keeps its id; they are re-sent only when its old record does not prove them sent', async () => {
    const h = scenario();
    await h.run('apply');
    const id = ownedId(h, 'no-primary');
    const before = h.world.writes(P1).length;
    setP1(h, { alertConfigs: renamed('no-primary', 'primary-missing') });
    const moved = await h.run('apply');
    expect(actions(moved)).toEqual(['primary-missing:adopt']);
    // The old key's record fingerprints this very request, secrets included: nothing to re-send.
    expect(moved.results.find((r) => r.change.key === 'primary-missing')?.message).toBe('adopted');
    expect(h.world.writes(P1).length).toBe(before);
    expect(ownedId(h, 'primary-missing')).toBe(id);
    expect(actions(await h.run('plan'))).toEqual([]);
    // Renamed back while a secret changed in the secrets file: the redacted live value cannot show it, so it is sent.
    h.secrets.values = { ...SECRETS, 'notify#secret': 'whsec-rotated-value-1234' };
    setP1(h, { alertConfigs: p1Alerts() });
    expect(actions(await h.run('apply'))).toEqual(['no-primary:adopt']);
    expect(
      h.world
        .writes(P1)
        .slice(before)
        .map((w) => w.method),
    ).toEqual(['updateAlertConfig']);
    expect(
      h.world.groups
        .get(P1)
        ?.alerts.get(id)
        ?.notifications.find((n) => n.typeName === 'WEBHOOK')?.webhookSecret,
    ).toBe('whsec-rotated-value-1234');
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('a key renamed and edited at once without renamedFrom is a create and a delete (the old config no longer matches)', async () => {
    const h = scenario();
    await h.run('apply');
    setP1(h, {
      alertConfigs: renamed('disk', 'disk-space', (c) => {
        (c.metricThreshold as { threshold: number }).threshold = 80;
      }),
    });
    expect(actions(await h.run('plan')).sort()).toEqual(['disk-space:create', 'disk:delete']);
  });

  it('a renamed config whose redacted live secret shows a hand edit is re-sent, whatever its old record says', async () => {
    const h = scenario();
    await h.run('apply');
    const id = ownedId(h, 'no-primary');
    const webhook = h.world.groups
      .get(P1)
      ?.alerts.get(id)
      ?.notifications.find((n) => n.typeName === 'WEBHOOK');
    if (webhook === undefined) throw new Error('the seeded config has no webhook');
    // Someone pointed the webhook elsewhere in Ops Manager: the host its redaction keeps tells.
    webhook.webhookUrl = 'https://elsewhere.example.invalid/other-path-0000';
    setP1(h, { alertConfigs: renamed('no-primary', 'primary-missing') });
    const report = await h.run('apply');
    expect(report.results.find((r) => r.change.key === 'primary-missing')?.message).toBe(
      'adopted; secrets re-sent with a full PUT',
    );
    const stored = h.world.groups
      .get(P1)
      ?.alerts.get(id)
      ?.notifications.find((n) => n.typeName === 'WEBHOOK');
    expect(stored?.webhookUrl).toBe(SECRETS['notify#url']);
  });

  it('renamedFrom makes a key renamed and edited at once an update of the same config, its record moved', async () => {
    const h = scenario();
    await h.run('apply');
    const id = ownedId(h, 'disk');
    const createdAt = h.state.state?.projects[P1]?.alertConfigs.disk?.createdAt;
    const before = h.world.writes(P1).length;
    setP1(h, {
      alertConfigs: renamed('disk', 'disk-space', (c) => {
        c.renamedFrom = ['disk'];
        (c.metricThreshold as { threshold: number }).threshold = 80;
      }),
    });
    const report = await h.run('apply');
    expect(actions(report)).toEqual(['disk-space:update']);
    expect(report.plan.changes.find((c) => c.key === 'disk-space')).toMatchObject({
      action: 'update',
      id,
      movedFrom: 'disk',
      reason: '1 field(s) differ; key renamed from "disk" (renamedFrom): its config keeps its id',
    });
    expect(
      h.world
        .writes(P1)
        .slice(before)
        .map((w) => w.method),
    ).toEqual(['updateAlertConfig']);
    expect(h.world.groups.get(P1)?.alerts.get(id)?.metricThreshold?.threshold).toBe(80);
    expect(ownedId(h, 'disk-space')).toBe(id);
    expect(h.state.state?.projects[P1]?.alertConfigs['disk-space']?.createdAt).toBe(createdAt);
    expect(h.state.state?.projects[P1]?.alertConfigs.disk).toBeUndefined();
    // Left in git after the move, renamedFrom is inert: the key has its own record now.
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('renamedFrom with only enabled changed is a disable of the same config (PATCH)', async () => {
    const h = scenario();
    await h.run('apply');
    const id = ownedId(h, 'disk');
    setP1(h, {
      alertConfigs: renamed('disk', 'disk-space', (c) => {
        c.renamedFrom = ['disk'];
        c.enabled = false;
      }),
    });
    const report = await h.run('apply');
    expect(report.plan.changes.find((c) => c.key === 'disk-space')).toMatchObject({
      action: 'disable',
      id,
      movedFrom: 'disk',
    });
    expect(h.world.groups.get(P1)?.alerts.get(id)?.enabled).toBe(false);
    expect(ownedId(h, 'disk-space')).toBe(id);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('renamedFrom without an edit moves a config with secrets and writes nothing: its record proves what was sent', async () => {
    const h = scenario();
    await h.run('apply');
    const id = ownedId(h, 'no-primary');
    const before = h.world.writes(P1).length;
    setP1(h, { alertConfigs: renamed('no-primary', 'primary-missing', (c) => (c.renamedFrom = ['no-primary'])) });
    const report = await h.run('apply');
    expect(report.plan.changes.find((c) => c.key === 'primary-missing')).toMatchObject({
      action: 'adopt',
      id,
      movedFrom: 'no-primary',
      reason: `key renamed from "no-primary" (renamedFrom): its config ${id} already equals the desired one, so ownership moves with nothing to change`,
    });
    expect(report.results.find((r) => r.change.key === 'primary-missing')?.message).toBe('adopted');
    expect(h.world.writes(P1).length).toBe(before);
    expect(ownedId(h, 'primary-missing')).toBe(id);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('renamedFrom naming a key that owns nothing leaves the key a create (first old key that owns a live config wins)', async () => {
    const h = scenario();
    await h.run('apply');
    const id = ownedId(h, 'disk');
    setP1(h, {
      alertConfigs: [
        ...renamed('disk', 'disk-space', (c) => {
          c.renamedFrom = ['never-existed', 'disk'];
          (c.metricThreshold as { threshold: number }).threshold = 80;
        }),
        {
          key: 'fresh',
          renamedFrom: ['never-existed-either'],
          eventTypeName: 'HOST_DOWN',
          notifications: [{ typeName: 'EMAIL', emailAddress: 'x@y.z' }],
        },
      ],
    });
    const plan = await h.run('plan');
    expect(actions(plan).sort()).toEqual(['disk-space:update', 'fresh:create']);
    expect(plan.plan.changes.find((c) => c.key === 'disk-space')).toMatchObject({ id, movedFrom: 'disk' });
  });

  /** Project 1's `disk` config as key `key`, its threshold `threshold`. */
  function diskAt(key: string, threshold: number): Record<string, unknown> {
    const disk = structuredClone(p1Alerts().find((c) => c.key === 'disk') as Record<string, unknown>);
    disk.key = key;
    (disk.metricThreshold as { threshold: number }).threshold = threshold;
    return disk;
  }
  const withoutDisk = () => p1Alerts().filter((c) => c.key !== 'disk');

  it('renamedFrom on a key that already owns a config takes nothing: the old key is deleted as any other', async () => {
    const h = scenario();
    setP1(h, { alertConfigs: [...p1Alerts(), diskAt('disk-space', 80)] });
    await h.run('apply');
    const own = ownedId(h, 'disk-space');
    const disk = ownedId(h, 'disk');
    setP1(h, { alertConfigs: [...withoutDisk(), { ...diskAt('disk-space', 80), renamedFrom: ['disk'] }] });
    expect(actions(await h.run('apply'))).toEqual(['disk:delete']);
    expect(ownedId(h, 'disk-space')).toBe(own);
    expect(h.world.groups.get(P1)?.alerts.has(disk)).toBe(false);
    expect(h.world.groups.get(P1)?.alerts.get(own)?.metricThreshold?.threshold).toBe(80);
  });

  it('renamedFrom whose old config was deleted by hand in Ops Manager: the key is created, the old record forgotten', async () => {
    const h = scenario();
    await h.run('apply');
    h.world.groups.get(P1)?.alerts.delete(ownedId(h, 'disk'));
    setP1(h, { alertConfigs: [...withoutDisk(), { ...diskAt('disk-space', 80), renamedFrom: ['disk'] }] });
    const report = await h.run('apply');
    const changed = report.plan.changes.filter((c) => c.action !== 'noop');
    expect(changed).toMatchObject([{ key: 'disk-space', action: 'create', reason: 'not in Ops Manager' }]);
    expect(changed[0]?.movedFrom).toBeUndefined();
    expect(h.state.state?.projects[P1]?.alertConfigs.disk).toBeUndefined();
    expect(h.world.groups.get(P1)?.alerts.get(ownedId(h, 'disk-space'))?.metricThreshold?.threshold).toBe(80);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('renamedFrom listing two old keys that own live configs: the first listed takes its config, the other is deleted', async () => {
    const h = scenario();
    setP1(h, { alertConfigs: [...p1Alerts(), diskAt('disk-old', 85)] });
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    setP1(h, { alertConfigs: [...withoutDisk(), { ...diskAt('disk-space', 80), renamedFrom: ['disk', 'disk-old'] }] });
    const plan = await h.run('plan');
    expect(actions(plan).sort()).toEqual(['disk-old:delete', 'disk-space:update']);
    expect(plan.plan.changes.find((c) => c.key === 'disk-space')).toMatchObject({ id: disk, movedFrom: 'disk' });
  });

  it('a new key equal to the config renamed away with renamedFrom does not take it: it is created', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    // disk-copy keeps disk's old settings and sorts before disk-space: as a plain rename it would match disk's config.
    setP1(h, {
      alertConfigs: [...withoutDisk(), diskAt('disk-copy', 90), { ...diskAt('disk-space', 80), renamedFrom: ['disk'] }],
    });
    expect(actions(await h.run('apply')).sort()).toEqual(['disk-copy:create', 'disk-space:update']);
    expect(ownedId(h, 'disk-space')).toBe(disk);
    expect(ownedId(h, 'disk-copy')).not.toBe(disk);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('renamedFrom with only enabled turned on is an enable of the same config (PATCH)', async () => {
    const h = scenario();
    setP1(h, { alertConfigs: p1Alerts().map((c) => (c.key === 'disk' ? { ...c, enabled: false } : c)) });
    await h.run('apply');
    const id = ownedId(h, 'disk');
    setP1(h, { alertConfigs: renamed('disk', 'disk-space', (c) => (c.renamedFrom = ['disk'])) });
    const report = await h.run('apply');
    expect(report.plan.changes.find((c) => c.key === 'disk-space')).toMatchObject({
      action: 'enable',
      id,
      movedFrom: 'disk',
    });
    expect(h.world.groups.get(P1)?.alerts.get(id)?.enabled).toBe(true);
    expect(ownedId(h, 'disk-space')).toBe(id);
    expect(h.state.state?.projects[P1]?.alertConfigs.disk).toBeUndefined();
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('renamedFrom on a template entry renames the key in place in each project that uses the template', async () => {
    const h = scenario();
    const template = (entry: Record<string, unknown>) =>
      stringify({
        apiVersion: 'opsman-gitops/v1',
        kind: 'AlertTemplate',
        metadata: { name: 'base' },
        spec: { alertConfigs: [entry] },
      });
    const using = (yaml: string) => yaml.replace('spec:\n', 'spec:\n  alertTemplates: [base]\n');
    const entry = {
      key: 'repl-lag',
      eventTypeName: 'NO_PRIMARY',
      notifications: [{ typeName: 'EMAIL', emailAddress: 'ops@acme.example' }],
    };
    h.source.files.set('base.yaml', template(entry));
    for (const [file, yaml] of h.source.files) if (file.startsWith('p')) h.source.files.set(file, using(yaml));
    await h.run('apply');
    const ids = [ownedId(h, 'repl-lag', P1), ownedId(h, 'repl-lag', P2)];
    const email = [{ typeName: 'EMAIL', emailAddress: 'oncall@acme.example' }];
    h.source.files.set(
      'base.yaml',
      template({ ...entry, key: 'no-primary-email', renamedFrom: ['repl-lag'], notifications: email }),
    );
    const report = await h.run('apply');
    expect(report.plan.changes.filter((c) => c.action !== 'noop')).toMatchObject([
      {
        target: { id: P1 },
        key: 'no-primary-email',
        action: 'update',
        id: ids[0],
        movedFrom: 'repl-lag',
        template: { name: 'base' },
      },
      {
        target: { id: P2 },
        key: 'no-primary-email',
        action: 'update',
        id: ids[1],
        movedFrom: 'repl-lag',
        template: { name: 'base' },
      },
    ]);
    expect([ownedId(h, 'no-primary-email', P1), ownedId(h, 'no-primary-email', P2)]).toEqual(ids);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it("a plan saved while the project is in observe mode keeps its renamed keys' drift (movedFrom) and loads", async () => {
    // Found by review: observe mode turns a rename's adopt or update into a drift that keeps movedFrom, and the saved
    // plan check refused the whole plan as malformed.
    const h = scenario();
    await h.run('apply');
    const writes = h.world.writes(P1).length;
    const alertConfigs = renamed('no-primary', 'primary-missing').filter((c) => c.key !== 'disk');
    setP1(h, {
      mode: 'observe',
      alertConfigs: [...alertConfigs, { ...diskAt('disk-space', 80), renamedFrom: ['disk'] }],
    });
    const planned = await h.run('plan');
    const drifts = planned.plan.changes.filter((c) => c.action !== 'noop').map((c) => [c.key, c.action, c.movedFrom]);
    expect(drifts.sort()).toEqual([
      ['disk-space', 'drift', 'disk'],
      ['primary-missing', 'drift', 'no-primary'],
    ]);
    const report = await h.run('apply', { savedPlan: JSON.parse(JSON.stringify(planned.plan)) });
    expect(report.results.filter((r) => r.status === 'failed')).toEqual([]);
    expect(h.world.writes(P1).length).toBe(writes);
    expect(ownedId(h, 'disk')).toBeDefined();
    expect(ownedId(h, 'no-primary')).toBeDefined();
  });

  it('a saved plan may name movedFrom on an adopt, update, enable, disable or drift only, as a string', () => {
    // Every target written carries its live digest (checked separately in apply-ownership.test.ts).
    const plan = {
      formatVersion: PLAN_FORMAT_VERSION,
      ...PLAN_HEADER,
      failures: [],
      liveDigests: { [`project:${P1}`]: 'digest' },
      stateVersion: null,
    };
    const change = { ...wellFormed, action: 'delete', movedFrom: 'old' };
    expect(() => checkSavedPlan({ ...plan, changes: [change] })).toThrow(/malformed change \(changes\[0\]: movedFrom/);
    expect(() => checkSavedPlan({ ...plan, changes: [{ ...change, action: 'adopt', movedFrom: 7 }] })).toThrow(
      /malformed change \(changes\[0\]: movedFrom/,
    );
    expect(checkSavedPlan({ ...plan, changes: [{ ...change, action: 'adopt' }] }).changes).toHaveLength(1);
    for (const action of ['update', 'enable', 'disable', 'drift']) {
      expect(checkSavedPlan({ ...plan, changes: [{ ...change, action }] }).changes).toHaveLength(1);
    }
  });

  it('a saved plan change missing what the apply reads is refused by name, never a TypeError half-way', () => {
    const plan = {
      formatVersion: PLAN_FORMAT_VERSION,
      ...PLAN_HEADER,
      failures: [],
      liveDigests: { [`project:${P1}`]: 'digest' },
      stateVersion: null,
    };
    expect(checkSavedPlan({ ...plan, changes: [wellFormed] }).changes).toHaveLength(1);
    const { fields: _fields, ...noFields } = wellFormed;
    const { id: _id, ...noId } = wellFormed;
    const { after: _after, ...noBody } = wellFormed;
    for (const [change, problem] of [
      [noFields, 'fields is not a list'],
      [{ ...wellFormed, fields: [{ path: 3 }] }, 'fields[0].path is not a string'],
      [{ ...wellFormed, action: 'destroy' }, 'unknown action "destroy"'],
      [{ ...wellFormed, kind: 'team' }, 'unknown kind "team"'],
      [{ ...wellFormed, target: { type: 'cluster', id: P1, name: 'p1' } }, 'target.type is not project'],
      [{ ...wellFormed, target: { type: 'project', id: P1 } }, 'target.id and target.name must be strings'],
      [noId, 'update without an id'],
      [noBody, 'update without a desired body (after)'],
      [{ ...noId, action: 'delete' }, 'delete without an id'],
      [{ ...wellFormed, reason: null }, 'reason is not a string'],
    ] as const) {
      expect(() => checkSavedPlan({ ...plan, changes: [wellFormed, change] })).toThrow(
        `the saved plan has a malformed change (changes[1]: ${problem}`,
      );
    }
  });

  it('a saved plan that writes to a target without its live digest is refused: its freshness could not be checked', () => {
    // An edited plan once deleted an unmanaged default alert of a project whose digest was removed: nothing re-read it.
    const plan = {
      formatVersion: PLAN_FORMAT_VERSION,
      ...PLAN_HEADER,
      failures: [],
      liveDigests: { [`project:${P1}`]: 'digest' },
      stateVersion: null,
    };
    const other = '5e2211c17a3e5a48f5497dff';
    const del = { ...wellFormed, key: 'evil', target: { type: 'project', id: other, name: 'other' }, action: 'delete' };
    expect(() => checkSavedPlan({ ...plan, changes: [del] })).toThrow(
      `the saved plan writes to other (project:${other}) but has no live digest for it`,
    );
    // A change that writes nothing needs no digest.
    expect(checkSavedPlan({ ...plan, changes: [{ ...del, action: 'noop' }] }).changes).toHaveLength(1);
  });
});

describe('crash-safe creates', () => {
  it('saves a pending marker before the POST', async () => {
    const h = scenario();
    // At each POST Ops Manager receives, the keys whose marker the saved state holds.
    const markedAtPost: string[][] = [];
    h.world.onStore = (stored) => {
      if (stored.groupId !== P1) return;
      const records = h.state.state?.projects[P1]?.alertConfigs ?? {};
      markedAtPost.push(
        Object.entries(records)
          .filter(([, r]) => r.pendingCreate !== undefined)
          .map(([key]) => key)
          .sort(),
      );
    };
    const report = await h.run('apply');
    const creates = report.plan.changes
      .filter((c) => c.action === 'create' && c.target.id === P1)
      .map((c) => c.key)
      .sort();
    expect(creates.length).toBeGreaterThan(1);
    // One POST per create, and the first already finds every create of the run marked (saved together, before it).
    expect(markedAtPost).toHaveLength(creates.length);
    expect(markedAtPost[0]).toEqual(creates);
    // Afterwards each created key is owned by the id Ops Manager gave it, and no marker is left.
    const records = h.state.state?.projects[P1]?.alertConfigs ?? {};
    const created = report.results.filter(
      (r) => r.status === 'applied' && r.change.action === 'create' && r.change.target.id === P1,
    );
    expect(created.map((r) => r.change.key).sort()).toEqual(creates);
    for (const r of created) expect(records[r.change.key]?.id).toBe(r.id);
    expect(Object.values(records).filter((r) => r.pendingCreate !== undefined)).toEqual([]);
  });

  it('an ambiguous POST that did create is adopted in the same run: no duplicate', async () => {
    const h = scenario();
    h.world.faults.push({ method: 'createAlertConfig', groupId: P1, phase: 'after', error: () => ambiguous() });
    const report = await h.run('apply');
    expect(report.failures).toEqual([]);
    expect(report.results.some((r) => r.message?.includes('ambiguous'))).toBe(true);
    expect(h.world.groups.get(P1)?.alerts.size).toBe(3);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('a crash after the POST is recovered by the next run adopting the single match', async () => {
    const h = scenario();
    // The POST reached Ops Manager, then the connection (and the run's save) was lost: only the marker remains.
    h.world.faults.push({
      method: 'createAlertConfig',
      groupId: P1,
      phase: 'after',
      error: () => new Error('socket hang up'),
    });
    const first = await h.run('apply');
    expect(first.results.filter((r) => r.status === 'failed').length).toBe(1);
    const pendingKey = Object.entries(h.state.state?.projects[P1]?.alertConfigs ?? {}).find(
      ([, r]) => r.pendingCreate !== undefined,
    )?.[0];
    expect(pendingKey).toBeDefined();
    const second = await h.run('apply');
    expect(second.plan.changes.find((c) => c.key === pendingKey)?.action).toBe('adopt');
    expect(h.world.groups.get(P1)?.alerts.size).toBe(3);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('several matches for a pending create block the key for a human', async () => {
    const h = scenario({
      alertConfigs: [
        { key: 'x', eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'EMAIL', emailAddress: 'x@y.z' }] },
      ],
    });
    h.world.faults.push({ method: 'createAlertConfig', groupId: P1, phase: 'after', error: () => new Error('reset') });
    await h.run('apply');
    h.world.seedAlert(P1, {
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      notifications: [{ typeName: 'EMAIL', emailAddress: 'x@y.z' }],
    });
    const plan = await h.run('plan');
    const x = plan.plan.changes.find((c) => c.key === 'x');
    expect(x?.action).toBe('blocked');
    expect(x?.reason).toMatch(/interrupted .* 2 matching unmanaged alert configs/);
  });
});

describe('non-convergence guard', () => {
  it('reports a config that still differs after the write and does not rewrite it until desired changes', async () => {
    const h = scenario();
    h.world.onStore = (stored) => {
      if (stored.metricThreshold) stored.metricThreshold.threshold = 85;
    };
    const first = await h.run('apply');
    const written = first.results.find((r) => r.change.key === 'disk');
    expect(written?.status).toBe('not-converging');
    // It says what to do, not only that nothing more will be done.
    const advice = 'write that value in the YAML as the plan shows it on live, or find what changes it on the server';
    expect(written?.message).toContain(advice);
    expect(h.state.state?.projects[P1]?.alertConfigs.disk?.notConverging?.fields).toEqual([
      'metricThreshold.threshold',
    ]);
    const writes = h.world.writes().length;
    const second = await h.run('apply');
    expect(second.plan.changes.find((c) => c.key === 'disk')?.action).toBe('blocked');
    expect(second.plan.changes.find((c) => c.key === 'disk')?.reason).toContain(advice);
    expect(h.world.writes().length).toBe(writes);
    // A change of the desired state re-arms it.
    const alerts = (await import('./scenario-fixture.ts')).p1Alerts();
    (alerts[1] as { metricThreshold: { threshold: number } }).metricThreshold.threshold = 95;
    setP1(h, { alertConfigs: alerts });
    const third = await h.run('plan');
    expect(third.plan.changes.find((c) => c.key === 'disk')?.action).toBe('update');
  });
});

describe('corrupt state', () => {
  it('is reported loudly, recovers ownership by adoption, and prunes nothing', async () => {
    const h = scenario();
    await h.run('apply');
    const before = h.world.groups.get(P1)?.alerts.size;
    // Every key of project 1 left git: with a readable state (and allowEmpty) they would be pruned.
    setP1(h, { alertConfigs: [] });
    h.state.text = '{ this is not json';
    const report = await h.run('apply', { overrides: { allowEmpty: true } });
    expect(report.warnings?.[0]).toMatch(/STATE WAS CORRUPT/);
    expect(report.plan.changes.filter((c) => c.action === 'delete')).toEqual([]);
    expect(h.world.groups.get(P1)?.alerts.size).toBe(before);
    expect(report.plan.changes.filter((c) => c.target.id === P2 && c.action === 'adopt').map((c) => c.key)).toEqual([
      'host-down',
    ]);
    expect(h.state.state?.projects[P2]?.alertConfigs['host-down']?.id).toBeDefined();
  });
});
