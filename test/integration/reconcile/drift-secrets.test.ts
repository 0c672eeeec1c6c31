// Scenario: over real HTTP, hand edits by jdoekey1 are detected, attributed and corrected; a rotated secret is re-sent; reordering two webhooks in YAML re-sends nothing; adoption beats duplication; no secret leaks.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmulatorWorld, PROJECTS } from '../../helpers/reconcile-emulator.ts';

let world: EmulatorWorld;
beforeEach(async () => {
  world = await EmulatorWorld.start();
});
afterEach(async () => {
  await world.close();
});

const PROD = PROJECTS.paymentsProd;

function pending(report: { plan: { changes: { key: string; action: string; target: { name: string } }[] } }): string[] {
  return report.plan.changes
    .filter((c) => c.action !== 'noop' && !(c.key === 'auditLogRotation' && c.action === 'drift'))
    .map((c) => `${c.target.name}/${c.key}:${c.action}`);
}

async function ownedId(key: string): Promise<string> {
  const state = JSON.parse(await readFile(join(world.dir, 'state', 'state.json'), 'utf8'));
  return state.projects[PROD].alertConfigs[key].id;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return Promise.all(entries.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'utf8')));
}

describe('drift, secrets and adoption against the emulator', () => {
  it('detects a disable, a threshold change and a removed notification, attributes them to jdoekey1, and corrects them', async () => {
    await world.run('apply');
    const human = world.client('jdoekey1');
    await human.setAlertConfigEnabled(PROD, await ownedId('host-down'), false);
    const disk = await human.getAlertConfig(PROD, await ownedId('disk-space-used'));
    await human.updateAlertConfig(PROD, disk.id, {
      enabled: true,
      eventTypeName: disk.eventTypeName,
      matchers: disk.matchers,
      metricThreshold: { ...(disk.metricThreshold as NonNullable<typeof disk.metricThreshold>), threshold: 75 },
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 60, delayMin: 0, emailEnabled: true }],
    });
    const ssl = await human.getAlertConfig(PROD, await ownedId('host-ssl-certificate-stale'));
    await human.updateAlertConfig(PROD, ssl.id, {
      enabled: true,
      eventTypeName: ssl.eventTypeName,
      notifications: [{ typeName: 'EMAIL', emailAddress: 'dba-team@acme.example', intervalMin: 1440, delayMin: 0 }],
    });

    const plan = await world.run('plan');
    expect(pending(plan)).toEqual([
      'payments-prod/disk-space-used:update',
      'payments-prod/host-ssl-certificate-stale:update',
      'payments-prod/host-down:enable',
    ]);
    for (const change of plan.plan.changes.filter(
      (c) => c.target.id === PROD && c.action !== 'noop' && c.kind === 'alertConfig',
    )) {
      expect(change.drift?.detected).toBe(true);
      expect(change.drift?.attribution?.[0]?.actor).toBe('jdoekey1');
      expect(change.drift?.attribution?.[0]?.actorType).toBe('apiKey');
      // Our own create of that config (by gitopsbt) is history, not the author of the drift.
      expect(change.drift?.attribution?.map((a) => a.actor)).not.toContain('gitopsbt');
    }
    const diskChange = plan.plan.changes.find((c) => c.key === 'disk-space-used');
    expect(diskChange?.fields.find((f) => f.path === 'metricThreshold.threshold')).toEqual({
      path: 'metricThreshold.threshold',
      before: 75,
      after: 90,
    });

    const fixed = await world.run('apply');
    expect(fixed.results.filter((r) => r.status !== 'applied')).toEqual([]);
    expect(pending(await world.run('plan'))).toEqual([]);
  });

  it('updates a rotated secret, and no secret value appears in reports, state or archive', async () => {
    await world.run('apply');
    await world.editSecrets((s) => {
      (s['opsman/notify'] as Record<string, string>)['payments-webhook-secret'] = 'fake-rotated-secret-0002-not-real';
    });
    const plan = await world.run('plan');
    const change = plan.plan.changes.find((c) => c.target.id === PROD && c.key === 'no-primary');
    expect(change?.action).toBe('update');
    expect(change?.fields).toEqual([{ path: 'notifications[WEBHOOK].webhookSecret', secret: true, note: 'changed' }]);
    await world.admin('DELETE', 'requests');
    const applied = await world.run('apply');
    expect(applied.results.map((r) => `${r.change.key}:${r.status}`)).toEqual(['no-primary:applied']);
    expect((await world.writes()).map((w) => `${w.method} ${w.route}`)).toEqual([
      'PUT /groups/{groupId}/alertConfigs/{alertConfigId}',
    ]);
    expect(pending(await world.run('plan'))).toEqual([]);

    const secrets = JSON.parse(await readFile(world.secretsFile, 'utf8')) as Record<string, Record<string, string>>;
    const values = Object.values(secrets).flatMap((o) => Object.values(o));
    const blobs = [
      ...(await filesUnder(join(world.dir, 'state'))),
      ...(await filesUnder(join(world.dir, 'archive'))),
      JSON.stringify(applied),
    ];
    expect(blobs.length).toBeGreaterThan(3);
    for (const value of [...values, 'fake-webhook-secret-0001-not-real']) {
      for (const blob of blobs) expect(blob.includes(value)).toBe(false);
    }
  });

  it('reordering two WEBHOOK notifications in YAML changes no secret and writes nothing', async () => {
    const hook = (url: string, secret: string, extra = '') =>
      `        - typeName: WEBHOOK\n          webhookUrl: { secretRef: "opsman/notify#${url}" }\n          webhookSecret: { secretRef: "opsman/notify#${secret}" }\n${extra}`;
    const first = hook('payments-webhook-url', 'payments-webhook-secret');
    const second = hook('hook2-url', 'hook2-secret', '          intervalMin: 10\n');
    const config = (hooks: string) =>
      `  alertConfigs:\n    - key: two-hooks\n      eventTypeName: HOST_RECOVERING\n      notifications:\n${hooks}`;
    await world.editSecrets((s) => {
      const notify = s['opsman/notify'] as Record<string, string>;
      notify['hook2-url'] = 'https://hooks2.example.invalid/FAKE-NOT-A-REAL-URL-0003';
      notify['hook2-secret'] = 'fake-webhook-secret-0003-not-real';
    });
    await world.editDesired('projects/payments.yaml', (t) => t.replace('  alertConfigs:\n', config(first + second)));
    await world.run('apply');
    expect(pending(await world.run('plan'))).toEqual([]);

    await world.editDesired('projects/payments.yaml', (t) => t.replace(first + second, second + first));
    const plan = await world.run('plan');
    expect(plan.plan.changes.find((c) => c.key === 'two-hooks')?.fields).toEqual([]);
    expect(pending(plan)).toEqual([]);
    await world.admin('DELETE', 'requests');
    await world.run('apply');
    expect(await world.writes()).toEqual([]);

    // A real rotation of one of the two is still seen, on that one only.
    await world.editSecrets((s) => {
      (s['opsman/notify'] as Record<string, string>)['hook2-secret'] = 'fake-webhook-secret-0004-not-real';
    });
    const rotated = (await world.run('plan')).plan.changes.find((c) => c.key === 'two-hooks');
    expect(rotated?.action).toBe('update');
    expect(rotated?.fields).toHaveLength(1);
    expect(rotated?.fields[0]).toMatchObject({ secret: true, note: 'changed' });
  });

  it('adopts a config made by hand that equals a desired one instead of duplicating it', async () => {
    const human = world.client('jdoekey1');
    const made = await human.createAlertConfig(PROD, {
      enabled: true,
      eventTypeName: 'HOST_SSL_CERTIFICATE_STALE',
      notifications: [
        { typeName: 'SMS', mobileNumber: '+15555550100', intervalMin: 1440, delayMin: 60 },
        { typeName: 'EMAIL', emailAddress: 'dba-team@acme.example', intervalMin: 1440, delayMin: 0 },
      ],
    });
    const report = await world.run('apply');
    expect(
      report.plan.changes.find((c) => c.target.id === PROD && c.key === 'host-ssl-certificate-stale'),
    ).toMatchObject({ action: 'adopt', id: made?.id });
    const all = await world.client().listAlertConfigs(PROD);
    expect(all.filter((c) => c.eventTypeName === 'HOST_SSL_CERTIFICATE_STALE').map((c) => c.id)).toEqual([made?.id]);
    expect(pending(await world.run('plan'))).toEqual([]);
  });

  it('an owned config deleted by hand and made again equal is adopted as drift, attributed to who deleted and re-made it', async () => {
    await world.run('apply');
    const formerId = await ownedId('host-ssl-certificate-stale');
    const human = world.client('jdoekey1');
    await human.deleteAlertConfig(PROD, formerId);
    const made = await human.createAlertConfig(PROD, {
      enabled: true,
      eventTypeName: 'HOST_SSL_CERTIFICATE_STALE',
      notifications: [
        { typeName: 'EMAIL', emailAddress: 'dba-team@acme.example', intervalMin: 1440, delayMin: 0 },
        { typeName: 'SMS', mobileNumber: '+15555550100', intervalMin: 1440, delayMin: 60 },
      ],
    });
    for (const command of ['plan', 'observe'] as const) {
      const change = (await world.run(command)).plan.changes.find(
        (c) => c.target.id === PROD && c.key === 'host-ssl-certificate-stale',
      );
      // Adopted, never duplicated; but the owned config's delete is drift, not a silent change of owner.
      expect(change).toMatchObject({ action: command === 'plan' ? 'adopt' : 'drift', id: made?.id });
      expect(change?.reason).toContain(`owned config ${formerId} no longer exists in Ops Manager; unowned live config`);
      expect(change?.drift?.detected).toBe(true);
      expect(change?.drift?.attribution?.map((a) => `${a.eventTypeName}:${a.actor}`).sort()).toEqual([
        'ALERT_CONFIG_ADDED_AUDIT:jdoekey1',
        'ALERT_CONFIG_DELETED_AUDIT:jdoekey1',
      ]);
    }
    await world.run('apply');
    expect(await ownedId('host-ssl-certificate-stale')).toBe(made?.id);
    expect(pending(await world.run('plan'))).toEqual([]);
  });
});
