// Scenario: over real HTTP and Digest auth, the emulator answers owned alert configs as a newer Ops Manager would (a new top-level field, threshold member, notification member, a member of another notification type, new enum values): plans stay empty where nothing this version models differs, an update or a secret-re-sending adoption lists what its full PUT leaves out (never the values), export warns, saved plans apply, every target keeps working; an update of a config whose ignoreFields keep the live metricThreshold and matchers sends them without the newer member, and applies; an enforced audit-log rotation write keeps the live fields git leaves out.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readProjectForExport } from '../../../lambdas/core/export/export-read.ts';
import { exportProject } from '../../../lambdas/core/export/export-run.ts';
import type { Change, RunReport } from '../../../lambdas/core/model.ts';
import { planAuditLogRotation } from '../../../lambdas/core/plan-singletons.ts';
import { renderPlanText } from '../../../lambdas/core/render/plan-text.ts';
import { checkSavedPlan } from '../../../lambdas/core/saved-plan.ts';
import { liveAsRequest } from '../../helpers/live-as-request.ts';
import { EmulatorWorld, PROJECTS } from '../../helpers/reconcile-emulator.ts';

let world: EmulatorWorld;
beforeEach(async () => {
  world = await EmulatorWorld.start();
});
afterEach(async () => {
  await world.close();
});

/** The id of an owned config of payments-prod, from a plan made after the apply. */
function ownedId(report: RunReport, key: string): string {
  const change = report.plan.changes.find((c) => c.target.id === PROJECTS.paymentsProd && c.key === key);
  expect(change?.id).toBeDefined();
  return change?.id as string;
}

function pending(report: RunReport): string[] {
  return report.plan.changes.filter((c) => c.action !== 'noop').map((c) => `${c.target.name}/${c.key}:${c.action}`);
}

/** What a newer Ops Manager answers for the disk-space-used config: members this version does not model. */
const NEWER = {
  config: { severityOverride: 'CRITICAL', metricThreshold: { scale: 'PER_SECOND' } },
  notifications: [{ escalationPolicy: 'tier-2-secret-ish' }],
};

async function newerServer(id: string, members: unknown = NEWER): Promise<void> {
  await world.admin('PUT', `groups/${PROJECTS.paymentsProd}/alertConfigs/${id}/newer-members`, members);
}

describe('a newer Ops Manager answers members this version does not model', () => {
  it('a new threshold member, top-level field or notification member makes no perpetual diff', async () => {
    expect((await world.run('apply')).failures).toEqual([]);
    const id = ownedId(await world.run('plan'), 'disk-space-used');
    await newerServer(id);
    const live = await world.client().getAlertConfig(PROJECTS.paymentsProd, id);
    expect(live.metricThreshold).toMatchObject({ scale: 'PER_SECOND', threshold: 90 });

    const plan = await world.run('plan');
    expect(plan.failures).toEqual([]);
    // Only the example's deliberate, unenforced audit-log drift remains: no update of disk-space-used.
    expect(pending(plan)).toEqual(['search-prod/auditLogRotation:drift']);
    await world.admin('DELETE', 'requests');
    const apply = await world.run('apply');
    expect(apply.failures).toEqual([]);
    expect(await world.writes()).toEqual([]);
  });

  it('an update lists every live member its full PUT leaves out, by path and never by value, and applies', async () => {
    expect((await world.run('apply')).failures).toEqual([]);
    const id = ownedId(await world.run('plan'), 'disk-space-used');
    await newerServer(id);
    await world.editDesired('templates/baseline.yaml', (t) => t.replace('threshold: 90', 'threshold: 95'));

    const plan = await world.run('plan');
    expect(plan.failures).toEqual([]);
    const change = plan.plan.changes.find(
      (c) => c.target.id === PROJECTS.paymentsProd && c.key === 'disk-space-used',
    ) as Change;
    expect(change.action).toBe('update');
    expect(change.fields).toEqual([
      { path: 'metricThreshold.threshold', before: 90, after: 95 },
      { path: 'severityOverride', unmodelled: true },
      { path: 'metricThreshold.scale', unmodelled: true },
      { path: 'notifications[GROUP].escalationPolicy', unmodelled: true },
    ]);
    expect(change.reason).toBe(
      '1 field(s) differ; the full PUT does not send 3 live member(s) this version does not model (severityOverride, metricThreshold.scale, notifications[GROUP].escalationPolicy): Ops Manager may reset them (edit them in Ops Manager after the apply, or upgrade opsman-gitops)',
    );
    // A member this version does not know may hold a secret: its value is in no plan, text or JSON.
    expect(JSON.stringify(plan)).not.toContain('tier-2-secret-ish');
    const text = renderPlanText(plan.plan);
    expect(text).toContain(
      'notifications[GROUP].escalationPolicy: (set on live, not modelled by this version: not sent, Ops Manager may reset it)',
    );
    expect(text).not.toContain('tier-2-secret-ish');

    // Saved as a file and applied later: the plan, unmodelled lines included, reads back and is fresh.
    const saved = checkSavedPlan(JSON.parse(JSON.stringify(plan.plan)));
    const apply = await world.run('apply', { savedPlan: saved });
    expect(apply.failures).toEqual([]);
    const result = apply.results.find(
      (r) => r.change.target.id === PROJECTS.paymentsProd && r.change.key === 'disk-space-used',
    );
    expect(result?.status).toBe('applied');
    // The newer server reset what the PUT did not send, as the plan said it might.
    const live = await world.client().getAlertConfig(PROJECTS.paymentsProd, id);
    expect((live as unknown as Record<string, unknown>).severityOverride).toBeUndefined();
    expect(live.metricThreshold?.threshold).toBe(95);
  });

  it('an update of a config that ignores metricThreshold and matchers keeps their live values but not the members this version does not model', async () => {
    await world.editDesired('templates/baseline.yaml', (t) =>
      t.replace(
        '    - key: disk-space-used\n      eventTypeName: OUTSIDE_METRIC_THRESHOLD\n',
        '    - key: disk-space-used\n      eventTypeName: OUTSIDE_METRIC_THRESHOLD\n      ignoreFields: [metricThreshold, matchers]\n',
      ),
    );
    expect((await world.run('apply')).failures).toEqual([]);
    const id = ownedId(await world.run('plan'), 'disk-space-used');
    // A person raises the threshold and scopes the alert; the newer server answers a member in each of those.
    const api = world.client('jdoekey1');
    const live = await api.getAlertConfig(PROJECTS.paymentsProd, id);
    const metricThreshold = { ...(live.metricThreshold as NonNullable<typeof live.metricThreshold>), threshold: 97 };
    const matchers = [{ fieldName: 'HOSTNAME', operator: 'STARTS_WITH', value: 'db' }] as typeof live.matchers;
    const request = liveAsRequest(live);
    await api.updateAlertConfig(PROJECTS.paymentsProd, id, { ...request, metricThreshold, matchers } as never);
    await newerServer(id, { config: { metricThreshold: { scale: 'PER_SECOND' } }, notifications: [] });
    await world.editDesired('templates/baseline.yaml', (t) =>
      t.replace(
        'roles: [GROUP_OWNER], intervalMin: 60, delayMin: 0, emailEnabled: true }',
        'roles: [GROUP_OWNER], intervalMin: 30, delayMin: 0, emailEnabled: true }',
      ),
    );

    const plan = await world.run('plan');
    const change = plan.plan.changes.find(
      (c) => c.target.id === PROJECTS.paymentsProd && c.key === 'disk-space-used',
    ) as Change;
    expect(change.action).toBe('update');
    // What the PUT sends is what the plan says: the live threshold and matchers, without the member it cannot model.
    expect(change.after).toMatchObject({ metricThreshold: { threshold: 97 }, matchers });
    expect((change.after as { metricThreshold: Record<string, unknown> }).metricThreshold.scale).toBeUndefined();
    expect(change.fields).toContainEqual({ path: 'metricThreshold.scale', unmodelled: true });

    const apply = await world.run('apply');
    expect(apply.failures).toEqual([]);
    const written = apply.results.find(
      (r) => r.change.target.id === PROJECTS.paymentsProd && r.change.key === 'disk-space-used',
    );
    expect(written?.status).toBe('applied');
    const after = await world.client().getAlertConfig(PROJECTS.paymentsProd, id);
    expect([after.metricThreshold?.threshold, after.matchers, after.notifications[0]?.intervalMin]).toEqual([
      97,
      matchers,
      30,
    ]);
  });

  it("a member this version knows from other notification types, answered on a type it does not echo it for (a newer server's PAGER_DUTY intervalMin), is listed as left out", async () => {
    expect((await world.run('apply')).failures).toEqual([]);
    const plan0 = await world.run('plan');
    const change0 = plan0.plan.changes.find(
      (c) => c.target.id === PROJECTS.analyticsDev && c.key === 'no-primary',
    ) as Change;
    // A newer server lets PagerDuty notifications repeat, and someone set it in its UI: a value this version cannot send.
    await world.admin('PUT', `groups/${PROJECTS.analyticsDev}/alertConfigs/${change0.id}/newer-members`, {
      notifications: [{ intervalMin: 30 }],
    });
    expect(pending(await world.run('plan'))).toEqual(['search-prod/auditLogRotation:drift']);
    await world.editDesired('projects/analytics.yaml', (t) =>
      t.replace('delayMin: 0 # no intervalMin', 'delayMin: 5 # no intervalMin'),
    );
    const plan = await world.run('plan');
    const change = plan.plan.changes.find(
      (c) => c.target.id === PROJECTS.analyticsDev && c.key === 'no-primary',
    ) as Change;
    expect(change.action).toBe('update');
    expect(change.fields).toEqual([
      { path: 'notifications[PAGER_DUTY].delayMin', before: 0, after: 5 },
      { path: 'notifications[PAGER_DUTY].intervalMin', unmodelled: true },
    ]);
    expect(change.reason).toContain(
      'the full PUT does not send 1 live member(s) this version does not model (notifications[PAGER_DUTY].intervalMin)',
    );
  });

  it('a notification answered with an empty roles list equals one without roles: no perpetual update, and it is adopted', async () => {
    await world.editDesired('templates/baseline.yaml', (t) =>
      t.replace(
        '- { typeName: GROUP, roles: [GROUP_OWNER], intervalMin: 15, delayMin: 0, emailEnabled: true, smsEnabled: false }',
        '- { typeName: GROUP, intervalMin: 15, delayMin: 0, emailEnabled: true, smsEnabled: false }',
      ),
    );
    expect((await world.run('apply')).failures).toEqual([]);
    const id = ownedId(await world.run('plan'), 'host-down');
    // A newer server answers `roles` on every role-based notification, as an empty list when there are none.
    await newerServer(id, { config: {}, notifications: [{ roles: [] }] });
    expect((await world.client().getAlertConfig(PROJECTS.paymentsProd, id)).notifications[0]?.roles).toEqual([]);
    expect(pending(await world.run('plan'))).toEqual(['search-prod/auditLogRotation:drift']);
    // The state is lost: the config is adopted by content, not created a second time.
    await rm(join(world.dir, 'state'), { recursive: true, force: true });
    const adopted = (await world.run('plan')).plan.changes.find(
      (c) => c.target.id === PROJECTS.paymentsProd && c.key === 'host-down',
    );
    expect([adopted?.action, adopted?.id]).toEqual(['adopt', id]);
  });

  it('an adoption that re-sends secrets with a full PUT lists what that PUT leaves out; one without secrets (no write) does not', async () => {
    expect((await world.run('apply')).failures).toEqual([]);
    const plan0 = await world.run('plan');
    const noPrimary = ownedId(plan0, 'no-primary');
    const disk = ownedId(plan0, 'disk-space-used');
    await newerServer(noPrimary, { config: { severityOverride: 'CRITICAL' } });
    await newerServer(disk, { config: { severityOverride: 'CRITICAL' } });
    // The state is lost: every config is adopted again.
    await rm(join(world.dir, 'state'), { recursive: true, force: true });
    const plan = await world.run('plan');
    const byKey = new Map(
      plan.plan.changes.filter((c) => c.target.id === PROJECTS.paymentsProd).map((c) => [c.key, c]),
    );
    const adopt = byKey.get('no-primary') as Change;
    expect(adopt.action).toBe('adopt');
    expect(adopt.fields.filter((f) => f.unmodelled === true)).toEqual([{ path: 'severityOverride', unmodelled: true }]);
    expect(adopt.reason).toContain(
      'the full PUT does not send 1 live member(s) this version does not model (severityOverride)',
    );
    const plain = byKey.get('disk-space-used') as Change;
    expect(plain.action).toBe('adopt');
    expect(plain.fields).toEqual([]);
  });

  it('an enable or disable (PATCH of enabled) lists nothing: it keeps every member', async () => {
    expect((await world.run('apply')).failures).toEqual([]);
    const id = ownedId(await world.run('plan'), 'disk-space-used');
    await newerServer(id);
    await world.client().setAlertConfigEnabled(PROJECTS.paymentsProd, id, false);
    const plan = await world.run('plan');
    const change = plan.plan.changes.find(
      (c) => c.target.id === PROJECTS.paymentsProd && c.key === 'disk-space-used',
    ) as Change;
    expect(change.action).toBe('enable');
    expect(change.fields).toEqual([{ path: 'enabled', before: false, after: true }]);
  });

  it('new enum values on live configs (event type, notification type, matcher, threshold operator and units) plan precisely, every target working', async () => {
    expect((await world.run('apply')).failures).toEqual([]);
    const plan0 = await world.run('plan');
    const disk = ownedId(plan0, 'disk-space-used');
    const ssl = ownedId(plan0, 'host-ssl-certificate-stale');
    await newerServer(disk, {
      config: { metricThreshold: { operator: 'ABOVE_BASELINE', units: 'PERCENT_OF_BASELINE' } },
    });
    await newerServer(ssl, {
      config: {
        eventTypeName: 'HOST_SSL_CERTIFICATE_EXPIRING_SOON',
        matchers: [{ fieldName: 'CLUSTER_TIER', operator: 'SEMVER_ABOVE', value: '8' }],
      },
      notifications: [{ typeName: 'CARRIER_PIGEON' }],
    });
    const plan = await world.run('plan');
    expect(plan.failures).toEqual([]);
    const byKey = new Map(
      plan.plan.changes.filter((c) => c.target.id === PROJECTS.paymentsProd).map((c) => [c.key, c]),
    );
    expect(byKey.get('disk-space-used')?.fields).toEqual([
      { path: 'metricThreshold.operator', before: 'ABOVE_BASELINE', after: 'GREATER_THAN' },
      { path: 'metricThreshold.units', before: 'PERCENT_OF_BASELINE', after: 'RAW' },
    ]);
    expect(byKey.get('host-ssl-certificate-stale')?.action).toBe('update');
    expect(byKey.get('host-ssl-certificate-stale')?.fields.map((f) => f.path)).toEqual([
      'eventTypeName',
      'matchers',
      'notifications[CARRIER_PIGEON]',
      'notifications[EMAIL:dba-team@acme.example]',
    ]);
    // Every other project plans as before.
    expect(pending(plan).filter((p) => !p.startsWith('payments-prod/'))).toEqual([
      'search-prod/auditLogRotation:drift',
    ]);
  });

  it('export writes the config without the members it cannot express, says which, and the export adopts it', async () => {
    expect((await world.run('apply')).failures).toEqual([]);
    const id = ownedId(await world.run('plan'), 'disk-space-used');
    await newerServer(id);
    const warnings: string[] = [];
    const read = await readProjectForExport(world.client(), PROJECTS.paymentsProd, (m) => warnings.push(m));
    const exported = await exportProject(read, { orgId: '5e2211c17a3e5a48f5497de0', api: world.client() });
    expect(exported.skipped.filter((s) => s.id === id)).toEqual([]);
    expect(exported.warnings.filter((w) => w.includes(id))).toEqual([
      `alert config ${id} (outside-metric-threshold): severityOverride, metricThreshold.scale, notifications[GROUP].escalationPolicy not exported: this version does not model them (an update of the config, a full PUT, will not send them)`,
    ]);
    expect(exported.text).not.toContain('scale');
    expect(exported.text).not.toContain('tier-2-secret-ish');
  });
});

describe('export of values a newer Ops Manager holds that this version does not know', () => {
  it('skips the config naming the value, without a did-you-mean that would pass the live value off as a typo', async () => {
    expect((await world.run('apply')).failures).toEqual([]);
    const id = ownedId(await world.run('plan'), 'disk-space-used');
    await newerServer(id, { config: { metricThreshold: { units: 'ZETTABYTES' } }, notifications: [] });
    const read = await readProjectForExport(world.client(), PROJECTS.paymentsProd, () => {});
    const exported = await exportProject(read, { orgId: '5e2211c17a3e5a48f5497de0', api: world.client() });
    const skipped = exported.skipped.filter((s) => s.id === id);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.reason).toContain('metricThreshold.units must be one of RAW');
    expect(skipped[0]?.reason.endsWith('found "ZETTABYTES"')).toBe(true);
    expect(skipped[0]?.reason).not.toContain('did you mean');
    expect(skipped[0]?.reason).not.toContain('PETABYTES"?');
  });
});

describe('audit-log rotation: a write keeps what the desired state does not set', () => {
  it('an enforced update keeps a live field the desired state leaves out (Ops Manager resets a field a PUT does not send)', async () => {
    expect((await world.run('apply')).failures).toEqual([]);
    const api = world.client();
    expect(await api.getAuditLogRotateConfig(PROJECTS.paymentsProd)).toMatchObject({ numTotal: 20 });
    // numTotal leaves git (no opinion any more), and another field changes: the write must not reset numTotal to 0.
    await world.editDesired('projects/payments.yaml', (t) =>
      t.replace('    numTotal: 20\n', '').replace('sizeThresholdMB: 1000', 'sizeThresholdMB: 2000'),
    );
    const plan = await world.run('plan');
    const change = plan.plan.changes.find(
      (c) => c.target.id === PROJECTS.paymentsProd && c.kind === 'auditLogRotation',
    ) as Change;
    expect(change).toMatchObject({
      action: 'update',
      fields: [{ path: 'sizeThresholdMB', before: 1000, after: 2000 }],
    });
    const apply = await world.run('apply');
    expect(apply.failures).toEqual([]);
    expect(await api.getAuditLogRotateConfig(PROJECTS.paymentsProd)).toEqual({
      sizeThresholdMB: 2000,
      timeThresholdHrs: 24,
      numUncompressed: 5,
      percentOfDiskspace: 0.4,
      numTotal: 20,
    });
    expect(pending(await world.run('plan'))).toEqual(['search-prod/auditLogRotation:drift']);
  });

  it("an enforced update lists a newer server's rotation member it does not send; a drift (nothing written) does not", () => {
    const target = { type: 'project' as const, id: PROJECTS.paymentsProd, name: 'payments-prod' };
    const desired = { enforce: true, sizeThresholdMB: 2000, timeThresholdHrs: 24 };
    const live = { sizeThresholdMB: 1000, timeThresholdHrs: 24, compressionCodec: 'zstd' };
    const update = planAuditLogRotation(target, desired, live, undefined);
    expect(update.fields).toEqual([
      { path: 'sizeThresholdMB', before: 1000, after: 2000 },
      { path: 'compressionCodec', unmodelled: true },
    ]);
    expect(update.reason).toContain('does not send 1 live member(s) this version does not model (compressionCodec)');
    const drift = planAuditLogRotation(target, { ...desired, enforce: false }, live, undefined);
    expect(drift.fields).toEqual([{ path: 'sizeThresholdMB', before: 1000, after: 2000 }]);
  });

  it("a newer server's rotation member is in no plan by value, enforced or not (it may hold a secret)", () => {
    const target = { type: 'project' as const, id: PROJECTS.paymentsProd, name: 'payments-prod' };
    // A numeric text, as live-shape.ts lets through, is carried as answered.
    const live = { sizeThresholdMB: '1000', numTotal: 7, archiveBucketSecret: 'rotation-secret-ish' } as never;
    for (const enforce of [true, false]) {
      const change = planAuditLogRotation(target, { enforce, sizeThresholdMB: 2000 }, live, undefined);
      expect(change.action).toBe(enforce ? 'update' : 'drift');
      expect(JSON.stringify(change)).not.toContain('rotation-secret-ish');
      // What the write carries over from live is still there: the modelled fields, as Ops Manager answered them.
      expect(change.before).toEqual({ sizeThresholdMB: '1000', numTotal: 7 });
    }
  });

  it("a newer server's hypermedia links on the rotation answer are server-only: an enforced update does not list them as reset", () => {
    const target = { type: 'project' as const, id: PROJECTS.paymentsProd, name: 'payments-prod' };
    const desired = { enforce: true, sizeThresholdMB: 2000 };
    const live = { sizeThresholdMB: 1000, links: [{ rel: 'self', href: 'https://om.example/x' }], codec: 'zstd' };
    const update = planAuditLogRotation(target, desired, live, undefined);
    expect(update.fields).toEqual([
      { path: 'sizeThresholdMB', before: 1000, after: 2000 },
      { path: 'codec', unmodelled: true },
    ]);
    expect(update.reason).toContain('does not send 1 live member(s) this version does not model (codec)');
  });
});
