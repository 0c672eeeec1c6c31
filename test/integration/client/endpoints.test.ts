// Scenario: every typed method round-trips against the emulator (alert configs CRUD and toggle, usage, server types, audit log, teams, events, version manifest, S3 configs), and lists page through many items.
import { beforeAll, describe, expect, it } from 'vitest';
import { OpsManagerApiError, type OpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { type EmulatorFixture, IDS, startEmulatorFixture } from '../../helpers/client-emulator.ts';
import { recordingObserver } from '../../helpers/client-fixtures.ts';

let emu: EmulatorFixture;
let client: OpsManagerClient;
beforeAll(async () => {
  emu = await startEmulatorFixture();
  client = emu.client();
  return () => emu.close();
});

const alert = (i: number) => ({
  eventTypeName: 'HOST_DOWN',
  enabled: i % 2 === 0,
  notifications: [{ typeName: 'EMAIL', emailAddress: `ops${i}@acme.example`, intervalMin: 5, delayMin: 0 }],
});

describe('pagination against the emulator', () => {
  it('pages across many items with a small page size', async () => {
    for (let i = 0; i < 7; i++) await client.createAlertConfig(IDS.searchProd, alert(i));
    const observer = recordingObserver();
    const small = emu.client({ pageSize: 3, observer });
    const all = await small.listAlertConfigs(IDS.searchProd);
    const expected = await client.listAlertConfigs(IDS.searchProd);
    expect(all.map((a) => a.id)).toEqual(expected.map((a) => a.id));
    expect(new Set(all.map((a) => a.id)).size).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(7);
    expect(observer.events).toHaveLength(Math.ceil(all.length / 3));
  });

  it('iterates events page by page', async () => {
    // Each create records an audit event in the project: several pages of one event, whatever ran before.
    const created: string[] = [];
    for (let i = 0; i < 3; i++) created.push((await client.createAlertConfig(IDS.searchProd, alert(i)))?.id ?? '');
    const small = emu.client({ pageSize: 1 });
    const ids: string[] = [];
    for await (const event of small.iterateProjectEvents(IDS.searchProd)) ids.push(event.id);
    const all = await client.listProjectEvents(IDS.searchProd);
    expect(ids).toEqual(all.map((e) => e.id));
    expect(ids.length).toBeGreaterThan(1);
    expect(all.map((e) => e.alertConfigId)).toEqual(expect.arrayContaining(created));
  });
});

describe('typed endpoints against the emulator', () => {
  it('alert configs: create, get, full update, toggle, delete', async () => {
    const created = await client.createAlertConfig(IDS.paymentsStaging, alert(0));
    expect(created).toMatchObject({ groupId: IDS.paymentsStaging, eventTypeName: 'HOST_DOWN', enabled: true });
    const createdId = created?.id ?? '';
    expect((await client.getAlertConfig(IDS.paymentsStaging, createdId)).id).toBe(createdId);
    const updated = await client.updateAlertConfig(IDS.paymentsStaging, createdId, {
      ...alert(0),
      eventTypeName: 'HOST_RECOVERING',
    });
    expect(updated?.eventTypeName).toBe('HOST_RECOVERING');
    expect((await client.setAlertConfigEnabled(IDS.paymentsStaging, createdId, false))?.enabled).toBe(false);
    await client.deleteAlertConfig(IDS.paymentsStaging, createdId);
    const error = await client.getAlertConfig(IDS.paymentsStaging, createdId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerApiError);
    expect(error).toMatchObject({ status: 404, errorCode: 'ALERT_CONFIG_NOT_FOUND' });
  });

  it('validation errors come back with the server code and detail', async () => {
    const error = await client
      .createAlertConfig(IDS.paymentsStaging, { eventTypeName: 'HOST_DOWN', notifications: [] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OpsManagerApiError', status: 400, errorCode: 'MISSING_NOTIFICATIONS' });
  });

  it('matcher field names', async () => {
    expect(await client.listMatcherFieldNames()).toContain('HOSTNAME');
  });

  it('audit-log rotation: set then get', async () => {
    await client.setAuditLogRotateConfig(IDS.analyticsDev, { sizeThresholdMB: 250, timeThresholdHrs: 6 });
    expect(await client.getAuditLogRotateConfig(IDS.analyticsDev)).toMatchObject({
      sizeThresholdMB: 250,
      timeThresholdHrs: 6,
    });
  });

  it('default server types: set then get (project and organization)', async () => {
    await client.setProjectDefaultServerType(IDS.analyticsDev, { name: 'TEST_SERVER', label: 'Test Server' });
    expect(await client.getProjectDefaultServerType(IDS.analyticsDev)).toEqual({
      name: 'TEST_SERVER',
      label: 'Test Server',
    });
    await client.setOrgDefaultServerType(IDS.acme, { name: 'RAM_POOL' });
    expect((await client.getOrgDefaultServerType(IDS.acme))?.name).toBe('RAM_POOL');
  });

  it('physical hosts: create, get, update, list, delete; serverType always an object', async () => {
    const created = await client.createPhysicalHost({
      name: 'it-client-host',
      serverType: { name: 'DEV_SERVER', label: 'Dev Server' },
      virtualHosts: [{ groupId: IDS.analyticsDev, hostname: 'it-client-vh.example' }],
    });
    expect(created.serverType).toMatchObject({ name: 'DEV_SERVER' });
    expect((await client.getPhysicalHost(created.id)).name).toBe('it-client-host');
    const updated = await client.updatePhysicalHost(created.id, {
      name: 'it-client-host',
      serverType: { name: 'PRODUCTION_SERVER', label: 'Production Server' },
      virtualHosts: [],
    });
    expect(updated.serverType).toMatchObject({ name: 'PRODUCTION_SERVER' });
    const listed = await client.listPhysicalHosts();
    expect(listed.every((h) => typeof h.serverType === 'object')).toBe(true);
    expect(listed.map((h) => h.id)).toContain(created.id);
    await client.deletePhysicalHost(created.id);
    expect((await client.listPhysicalHosts()).map((h) => h.id)).not.toContain(created.id);
  });

  it('host assignments and one host server type', async () => {
    // The seed's acme hosts: payments-prod's three, payments-staging's one and search-prod's two (the old one only in
    // October 2026); globex's hosts are not listed.
    const assignments = await client.listOrgHostAssignments(IDS.acme, '2026-01-01', '2026-12-31');
    expect(assignments.map((a) => a.hostname)).toEqual([
      'pay-prod-0.acme.internal',
      'pay-prod-1.acme.internal',
      'pay-prod-2.acme.internal',
      'pay-stg-0.acme.internal',
      'search-prod-0.acme.internal',
      'search-prod-old.acme.internal',
    ]);
    const project = await client.listProjectHostAssignments(IDS.paymentsProd, '2026-01-01', '2026-12-31');
    expect(project.map((a) => a.hostname)).toEqual([
      'pay-prod-0.acme.internal',
      'pay-prod-1.acme.internal',
      'pay-prod-2.acme.internal',
    ]);
    for (const a of project) {
      expect(a.serverType).toMatchObject({ name: 'PRODUCTION_SERVER' });
      expect(a.processes).toEqual([expect.objectContaining({ cluster: 'payments', processType: 7 })]);
    }
    const early = await client.listOrgHostAssignments(IDS.acme, '2026-01-01', '2026-09-30');
    expect(early.map((a) => a.hostname)).not.toContain('search-prod-old.acme.internal');

    // One host's server type: pay-stg-0 (6f...04) becomes a development server, and is listed as one.
    const staging = () => client.listProjectHostAssignments(IDS.paymentsStaging, '2026-01-01', '2026-12-31');
    expect((await staging()).map((a) => a.serverType.name)).toEqual(['TEST_SERVER']);
    await client.setHostServerType('6f0000000000000000000004', { name: 'DEV_SERVER', label: 'Development Server' });
    try {
      expect((await staging()).map((a) => a.serverType.name)).toEqual(['DEV_SERVER']);
    } finally {
      await client.setHostServerType('6f0000000000000000000004', { name: 'TEST_SERVER', label: 'Test Server' });
    }
  });

  it('team, events (list and one), organization events', async () => {
    expect(await client.getTeam(IDS.acme, IDS.dbaOncall)).toMatchObject({ id: IDS.dbaOncall, name: 'dba-oncall' });
    const events = await client.listProjectEvents(IDS.paymentsProd);
    expect(events.length).toBeGreaterThan(0);
    const first = events[0] as (typeof events)[number];
    expect((await client.getProjectEvent(IDS.paymentsProd, first.id)).id).toBe(first.id);
    const orgEvents = await client.listOrgEvents(IDS.acme);
    expect(orgEvents.length).toBeGreaterThan(0);
    const firstOrg = orgEvents[0] as (typeof orgEvents)[number];
    expect((await client.getOrgEvent(IDS.acme, firstOrg.id)).id).toBe(firstOrg.id);
  });

  it('version manifest: put text unaltered, get it back byte for byte', async () => {
    const text =
      '{"updated":1763000000000,"versions":[{"name":"7.0.2","builds":[{"architecture":"amd64","gitVersion":"abc","platform":"linux","url":"https://example/x.tgz"}]}]}';
    await client.putVersionManifest(text);
    const doc = await client.getVersionManifest();
    expect(doc.value).toEqual(JSON.parse(text));
  });

  it('S3 blockstore configs: create, get, update, list, delete', async () => {
    const config = {
      id: 'it-client-s3',
      s3BucketName: 'bucket-a',
      s3BucketEndpoint: 'https://s3.example',
      uri: 'mongodb://meta.example:27017',
      acceptedTos: true,
      s3AuthMethod: 'IAM_ROLE' as const,
      ssl: true,
      assignmentEnabled: true,
      loadFactor: 1,
      pathStyleAccessEnabled: false,
      sseEnabled: false,
      writeConcern: 'W1',
      encryptedCredentials: false,
      labels: [],
    };
    const created = await client.createS3Config(config);
    expect(created.id).toBe('it-client-s3');
    expect((await client.getS3Config('it-client-s3')).s3BucketName).toBe('bucket-a');
    expect((await client.updateS3Config('it-client-s3', { ...config, s3BucketName: 'bucket-b' })).s3BucketName).toBe(
      'bucket-b',
    );
    expect((await client.listS3Configs()).map((c) => c.id)).toContain('it-client-s3');
    await client.deleteS3Config('it-client-s3');
    expect((await client.listS3Configs()).map((c) => c.id)).not.toContain('it-client-s3');
  });
});
