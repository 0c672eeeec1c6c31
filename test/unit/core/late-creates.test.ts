// Scenario: a create whose answer was lost lands late, then its key leaves git: the config is recognised by the digest its marker kept, pruned through every gate, blocked when ambiguous, and the marker forgotten when the POST never landed; a marker of an earlier release (no digest) is left as it was, with a warning saying how to settle it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../../lambdas/core/model.ts';
import type { OwnedAlertConfig, ReconcileState } from '../../../lambdas/core/ports.ts';
import type { ReconcileHarness } from '../../helpers/reconcile-world.ts';
import { actions, ownedId, P1, P2, p1Alerts, p2Alerts, scenario, setP1, setP2 } from './scenario-fixture.ts';

/** The key whose create is lost, and the live form Ops Manager stores for it. */
const LATE = {
  key: 'late',
  eventTypeName: 'HOST_DOWN',
  notifications: [{ typeName: 'EMAIL', emailAddress: 'late@acme.example', intervalMin: 60, delayMin: 0 }],
};
/** A pending-create marker as an earlier release saved it (no desiredDigest): the fixture state of release d2e5f95. */
const OLD_MARKER = (() => {
  const text = readFileSync(new URL('../../fixtures/upgrade/state-d2e5f95.json', import.meta.url), 'utf8');
  const old = JSON.parse(text) as ReconcileState;
  const marker = old.projects['5e2211c17a3e5a48f5497de3']?.alertConfigs['killed-create']?.pendingCreate;
  if (marker === undefined) throw new Error('the fixture lost its marker');
  return marker;
})();
const LATE_LIVE = { eventTypeName: 'HOST_DOWN', enabled: true, notifications: LATE.notifications };

function records(h: ReconcileHarness): Record<string, OwnedAlertConfig> {
  return h.state.state?.projects[P1]?.alertConfigs ?? {};
}

function change(report: { plan: { changes: Change[] } }, key: string): Change | undefined {
  return report.plan.changes.find((c) => c.key === key);
}

/**
 * Converges project 1, then adds LATE and applies with its POST failing after Ops Manager stored it (`landed`) or
 * before (`lost`): the answer is lost either way, so only the pending marker is left. Returns the config it created.
 */
async function lostCreate(h: ReconcileHarness, how: 'landed' | 'lost'): Promise<string | undefined> {
  await h.run('apply');
  const before = new Set(h.world.groups.get(P1)?.alerts.keys());
  setP1(h, { alertConfigs: [...p1Alerts(), LATE] });
  h.world.faults.push({
    method: 'createAlertConfig',
    groupId: P1,
    phase: how === 'landed' ? 'after' : 'before',
    error: () => new Error('socket hang up'),
  });
  const first = await h.run('apply');
  expect(first.results.find((r) => r.change.key === 'late')?.status).toBe('failed');
  expect(records(h).late?.pendingCreate?.desiredDigest).toMatch(/^[0-9a-f]{64}$/);
  expect(records(h).late?.id).toBeUndefined();
  const created = [...(h.world.groups.get(P1)?.alerts.keys() ?? [])].filter((id) => !before.has(id));
  expect(created.length).toBe(how === 'landed' ? 1 : 0);
  return created[0];
}

describe('a late create whose key left git', () => {
  it('is planned as a delete naming the run, and apply with prune deletes exactly that config', async () => {
    const h = scenario();
    const late = await lostCreate(h, 'landed');
    setP1(h, { alertConfigs: p1Alerts() });
    const others = [...(h.world.groups.get(P1)?.alerts.keys() ?? [])].filter((id) => id !== late);
    const report = await h.run('apply');
    const c = change(report, 'late');
    expect(c).toMatchObject({ action: 'delete', id: late });
    expect(c?.reason).toMatch(/created by run run-2 .*answer was lost/);
    expect(report.results.find((r) => r.change.key === 'late')?.status).toBe('applied');
    expect([...(h.world.groups.get(P1)?.alerts.keys() ?? [])].sort()).toEqual(others.sort());
    expect(records(h).late).toBeUndefined();
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('is blocked with the usual reason when prune is off, and stays (with its marker) until prune is on', async () => {
    const h = scenario();
    const late = await lostCreate(h, 'landed');
    setP1(h, { alertConfigs: p1Alerts(), prune: false });
    const report = await h.run('apply');
    const c = change(report, 'late');
    expect(c).toMatchObject({ action: 'blocked', id: late });
    expect(c?.reason).toMatch(/^prune is off for project payments-prod: would delete 1 owned alert config/);
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(true);
    expect(records(h).late?.pendingCreate).toBeDefined();
    // Still recognised on the next runs: the marker is not forgotten while the config stays.
    expect(change(await h.run('apply'), 'late')).toMatchObject({ action: 'blocked', id: late });
    setP1(h, { alertConfigs: p1Alerts(), prune: true });
    expect(change(await h.run('apply'), 'late')).toMatchObject({ action: 'delete', id: late });
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(false);
  });

  it('goes through the allowEmpty and maxDeletes gates like any owned config', async () => {
    const h = scenario();
    const late = await lostCreate(h, 'landed');
    setP1(h, { alertConfigs: [] });
    const empty = await h.run('apply');
    expect(change(empty, 'late')?.reason).toMatch(/empty desired alert set but owns 3 live alert config/);
    expect(empty.plan.changes.filter((c) => c.action === 'delete')).toEqual([]);
    setP1(h, { alertConfigs: p1Alerts() });
    const capped = await h.run('apply', { overrides: { maxDeletes: 0 } });
    expect(change(capped, 'late')?.reason).toMatch(/maxDeletes is 0/);
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(true);
  });

  it('is applied from a saved plan, and a saved plan naming another config for it deletes nothing', async () => {
    const h = scenario();
    const late = await lostCreate(h, 'landed');
    setP1(h, { alertConfigs: p1Alerts() });
    const saved = (await h.run('plan')).plan;
    expect(change({ plan: saved }, 'late')).toMatchObject({ action: 'delete', id: late });
    // The same plan pointed at the unmanaged HOST_DOWN default: the state does not own it, and it is not what the
    // lost create sent.
    const other = [...(h.world.groups.get(P1)?.alerts.values() ?? [])].find(
      (c) => c.id !== late && !Object.values(records(h)).some((r) => r.id === c.id),
    )?.id as string;
    const forged = structuredClone(saved);
    for (const c of forged.changes) if (c.key === 'late') c.id = other;
    forged.unmanaged = forged.unmanaged?.map((u) => (u.id === other ? { ...u, id: late as string } : u));
    const refused = await h.run('apply', { savedPlan: forged });
    expect(refused.results.find((r) => r.change.key === 'late')).toMatchObject({ status: 'failed' });
    expect(refused.results.find((r) => r.change.key === 'late')?.message).toMatch(/NOT_OWNED|not what the lost create/);
    expect(h.world.groups.get(P1)?.alerts.has(other)).toBe(true);
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(true);
    // The genuine saved plan (the state is unchanged: a failed run saves it as it was) deletes it.
    const plan = (await h.run('plan')).plan;
    const applied = await h.run('apply', { savedPlan: plan });
    expect(applied.results.find((r) => r.change.key === 'late')?.status).toBe('applied');
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(false);
    expect(h.world.groups.get(P1)?.alerts.has(other)).toBe(true);
  });

  it('with several equal unmanaged configs, blocks the key naming them and deletes none', async () => {
    const h = scenario();
    const late = await lostCreate(h, 'landed');
    const copy = h.world.seedAlert(P1, LATE_LIVE);
    setP1(h, { alertConfigs: p1Alerts() });
    const report = await h.run('apply');
    const c = change(report, 'late');
    expect(c?.action).toBe('blocked');
    expect(c?.reason).toContain([late, copy].sort().join(', '));
    expect(c?.reason).toMatch(/which one it created is not known/);
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(true);
    expect(h.world.groups.get(P1)?.alerts.has(copy)).toBe(true);
    expect(records(h).late?.pendingCreate).toBeDefined();
  });

  it('holds no delete of its key in another project: it is no create, nothing waits for it', async () => {
    const h = scenario();
    setP2(h, { alertConfigs: [...p2Alerts(), LATE], prune: true });
    await h.run('apply');
    const inP2 = h.state.state?.projects[P2]?.alertConfigs.late?.id;
    expect(inP2).toBeDefined();
    await lostCreate(h, 'landed');
    h.world.seedAlert(P1, LATE_LIVE);
    // The key leaves git in both projects: payments-prod's late create is ambiguous (blocked), payments-staging's
    // config is an ordinary delete.
    setP1(h, { alertConfigs: p1Alerts() });
    setP2(h, { alertConfigs: p2Alerts(), prune: true });
    const report = await h.run('apply');
    expect(change(report, 'late')?.action).toBe('blocked');
    const staging = report.plan.changes.find((c) => c.key === 'late' && c.target.id === P2);
    expect(staging).toMatchObject({ action: 'delete', id: inP2 });
    expect(h.world.groups.get(P2)?.alerts.has(inP2 as string)).toBe(false);
  });

  it("leaves alone a person's identical config made while the lost POST never landed: the audit names them", async () => {
    const h = scenario();
    await lostCreate(h, 'lost');
    // The key is leaving git: someone re-creates the alert by hand, exactly as git had it.
    const copy = (await h.world.as('jdoekey1').createAlertConfig(P1, LATE_LIVE as never)).id;
    setP1(h, { alertConfigs: p1Alerts() });
    const report = await h.run('apply');
    expect(change(report, 'late')).toBeUndefined();
    expect((report.plan.unmanaged ?? []).map((u) => u.id)).toContain(copy);
    expect(h.world.groups.get(P1)?.alerts.has(copy)).toBe(true);
    expect(records(h).late).toBeUndefined();
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('lists such a config among the unmanaged in id order, with one made by hand after it', async () => {
    const h = scenario();
    await lostCreate(h, 'lost');
    const copy = (await h.world.as('jdoekey1').createAlertConfig(P1, LATE_LIVE as never)).id;
    const later = h.world.seedAlert(P1, { eventTypeName: 'NO_PRIMARY', enabled: false, notifications: [] });
    setP1(h, { alertConfigs: p1Alerts() });
    const report = await h.run('plan');
    const ids = (report.plan.unmanaged ?? []).filter((u) => u.target.id === P1).map((u) => u.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids.slice(-2)).toEqual([copy, later]);
  });

  it('blocks the delete for the run when the audit of who created it cannot be read, keeping the marker', async () => {
    const h = scenario();
    const late = await lostCreate(h, 'landed');
    setP1(h, { alertConfigs: p1Alerts() });
    h.world.faults.push({ method: 'listProjectEvents', groupId: P1, error: () => new Error('socket hang up') });
    const report = await h.run('apply');
    const c = change(report, 'late');
    expect(c?.action).toBe('blocked');
    expect(c?.reason).toMatch(
      /not deleted this run: Ops Manager's audit of who created it could not be read \(socket hang up\)/,
    );
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(true);
    expect(records(h).late?.pendingCreate).toBeDefined();
    expect(change(await h.run('apply'), 'late')?.action).toBe('delete');
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(false);
  });

  it('forgets the marker once an apply finds no config equal to what the POST sent (it never landed)', async () => {
    const h = scenario();
    await lostCreate(h, 'lost');
    setP1(h, { alertConfigs: p1Alerts() });
    const plan = await h.run('plan');
    expect(change(plan, 'late')).toBeUndefined();
    expect(records(h).late?.pendingCreate).toBeDefined();
    await h.run('apply');
    expect(records(h).late).toBeUndefined();
  });

  it('leaves a marker saved without a digest (an older release) as it was, and warns of it with both ways out', async () => {
    const h = scenario();
    const late = await lostCreate(h, 'landed');
    // The marker exactly as release d2e5f95 saved it when its apply was killed during the POST (test/fixtures/upgrade).
    const state = h.state.state;
    const record = state?.projects[P1]?.alertConfigs.late;
    if (record !== undefined) record.pendingCreate = OLD_MARKER;
    h.state.text = JSON.stringify(state);
    setP1(h, { alertConfigs: p1Alerts() });
    const report = await h.run('apply');
    expect(change(report, 'late')).toBeUndefined();
    expect(report.plan.unmanaged?.map((u) => u.id)).toContain(late);
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(true);
    expect(records(h).late?.pendingCreate).toEqual(OLD_MARKER);
    // It said nothing before: the config stayed unmanaged and the marker in the state for ever, unnoticed.
    const warnings = (report.plan.warnings ?? []).filter((w) => w.includes('"late"'));
    expect(warnings).toEqual([
      expect.stringContaining(
        `project payments-prod (${P1}): alert key "late" left git while its create was unresolved: run ${OLD_MARKER.runId} (started ${OLD_MARKER.startedAt}, by an earlier version of opsman-gitops)`,
      ),
    ]);
    expect(warnings[0]).toMatch(
      /put the key back in git with the body it had and apply.*list the key in spec\.release/,
    );
    // The second way out settles it: the marker is forgotten, the config stays, and the warning goes.
    setP1(h, { alertConfigs: p1Alerts(), release: ['late'] });
    const released = await h.run('apply');
    expect(change(released, 'late')?.action).toBe('release');
    expect(records(h).late).toBeUndefined();
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(true);
    const after = await h.run('plan');
    expect((after.plan.warnings ?? []).filter((w) => w.includes('"late"'))).toEqual([]);
  });

  it('warns of no marker of a desired key, nor of one that carries its digest', async () => {
    const h = scenario();
    await lostCreate(h, 'landed');
    expect((await h.run('plan')).plan.warnings ?? []).toEqual([]);
    setP1(h, { alertConfigs: p1Alerts() });
    expect((await h.run('plan')).plan.warnings ?? []).toEqual([]);
  });

  it('is adopted by a desired key with the same body (a rename in the same commit), and the marker goes', async () => {
    const h = scenario();
    const late = await lostCreate(h, 'landed');
    setP1(h, { alertConfigs: [...p1Alerts(), { ...LATE, key: 'renamed' }] });
    const report = await h.run('apply');
    expect(change(report, 'renamed')).toMatchObject({ action: 'adopt', id: late });
    expect(change(report, 'late')).toBeUndefined();
    expect(ownedId(h, 'renamed')).toBe(late);
    expect(records(h).late).toBeUndefined();
    expect(h.world.groups.get(P1)?.alerts.has(late as string)).toBe(true);
    expect(actions(await h.run('plan'))).toEqual([]);
  });
});

describe('a late create whose key stayed in git with another body', () => {
  // The landed config equals what the lost create sent; a key that has that very body now (the old body copied to a
  // new key, the first key edited) adopts it, whichever sorts first: the first key is then created, not blocked on a
  // config another key of the same plan takes over.
  for (const copy of ['a-copy', 'zz-copy']) {
    it(`is created when key "${copy}" adopts the landed config`, async () => {
      const h = scenario();
      const late = await lostCreate(h, 'landed');
      const edited = { ...LATE, notifications: [{ ...LATE.notifications[0], intervalMin: 30 }] };
      setP1(h, { alertConfigs: [...p1Alerts(), edited, { ...LATE, key: copy }] });
      const report = await h.run('plan');
      expect(change(report, copy)).toMatchObject({ action: 'adopt', id: late });
      expect(change(report, 'late')).toMatchObject({ action: 'create' });
    });
  }

  it('is blocked naming the landed config when no key adopts it', async () => {
    const h = scenario();
    const late = await lostCreate(h, 'landed');
    const edited = { ...LATE, notifications: [{ ...LATE.notifications[0], intervalMin: 30 }] };
    setP1(h, { alertConfigs: [...p1Alerts(), edited] });
    const c = change(await h.run('plan'), 'late');
    expect(c).toMatchObject({ action: 'blocked' });
    expect(c?.reason).toContain(`unmanaged alert config ${late} equals what it sent`);
  });
});

describe('a late create blocked on its landing, beside a config its plan released', () => {
  it('never names the released config (made with the same body, minutes before) as what the lost create made', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    // One commit releases "disk" and adds "disk-copy" with its body: the copy is created beside it (a release claims
    // its config first), and that POST's answer is lost after it landed.
    const copy = { ...(p1Alerts().find((a) => a.key === 'disk') as Record<string, unknown>), key: 'disk-copy' };
    setP1(h, { alertConfigs: [...p1Alerts().filter((a) => a.key !== 'disk'), copy], release: ['disk'] });
    h.world.faults.push({
      method: 'createAlertConfig',
      groupId: P1,
      phase: 'after',
      error: () => new Error('socket hang up'),
    });
    await h.run('apply');
    expect(records(h)['disk-copy']?.pendingCreate?.releasedIds).toEqual([disk]);
    const landed = [...(h.world.groups.get(P1)?.alerts.keys() ?? [])].find(
      (id) =>
        id !== disk &&
        !Object.values(records(h)).some((r) => r.id === id) &&
        h.world.groups.get(P1)?.alerts.get(id)?.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD',
    );
    // The copy's body edited before the next run: blocked on its landing, which is the only config named.
    setP1(h, { alertConfigs: [...p1Alerts().filter((a) => a.key !== 'disk'), { ...copy, enabled: false }] });
    const c = change(await h.run('plan'), 'disk-copy');
    expect(c).toMatchObject({ action: 'blocked' });
    expect(c?.reason).toContain(`unmanaged alert config ${landed} equals what it sent`);
    expect(c?.reason).not.toContain(disk);
  });
});
