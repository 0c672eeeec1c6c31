// Scenario: alert configurations over HTTP: create, read, full replace, enable/disable, delete, redaction on every read,
// masks sent back on PUT keep the secret, and the audit events each mutation records.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alertBody, type EmulatorHarness, K, startHarness, W } from '../../helpers/emulator-client.ts';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startHarness();
});
beforeEach(async () => {
  await h.admin('POST', '/reset');
});
afterAll(async () => {
  await h.emu.close();
});

const BASE = `/groups/${W.paymentsProd}/alertConfigs`;
const SLACK_TOKEN = 'xoxb-000111222333-abcdefSECRET';
const HOOK = 'https://hooks.example.com/services/T000/B000/XXXX';
const secretBody = () =>
  alertBody({
    notifications: [
      { typeName: 'SLACK', apiToken: SLACK_TOKEN, channelName: '#dba', intervalMin: 30 },
      { typeName: 'WEBHOOK', webhookUrl: HOOK, webhookSecret: 'hush-hush' },
      { typeName: 'GROUP', role: 'GROUP_OWNER', emailEnabled: true, emailAddress: 'sent@acme.example' },
      { typeName: 'TEAM', teamId: W.dbaOncall },
    ],
  });

describe('create and read', () => {
  it('lists the seeded default alerts of a project', async () => {
    const res = await h.owner.get(BASE);
    expect(res.status).toBe(200);
    expect(res.body.totalCount).toBe(4);
    expect(res.body.results.map((c: { eventTypeName: string }) => c.eventTypeName)).toEqual([
      'HOST_DOWN',
      'NO_PRIMARY',
      'OUTSIDE_METRIC_THRESHOLD',
      'AUTOMATION_AGENT_DOWN',
    ]);
    expect(res.body.results[0].links).toEqual([{ href: `${h.emu.url}${BASE}/${res.body.results[0].id}`, rel: 'self' }]);
  });

  it("creates with defaults, redacts secrets and echoes each type's own fields and the spec's when-set ones", async () => {
    const created = await h.owner.post(BASE, secretBody());
    expect(created.status).toBe(200);
    const c = created.body;
    expect(c.id).toMatch(/^[0-9a-f]{24}$/);
    expect(c.groupId).toBe(W.paymentsProd);
    expect(c.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(c.updated).toBe(c.created);
    expect(c.matchers).toEqual([]);
    const [slack, hook, group, team] = c.notifications;
    expect(slack).toEqual({
      typeName: 'SLACK',
      delayMin: 0,
      intervalMin: 30,
      apiToken: `${'*'.repeat(SLACK_TOKEN.length - 4)}CRET`,
      channelName: '#dba',
      notifierId: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    expect(hook.webhookUrl).toBe(
      `https://hooks.example.com/${'*'.repeat(HOOK.length - 'https://hooks.example.com/'.length)}`,
    );
    expect(hook.webhookSecret).toBe('*********');
    expect(group).toEqual({
      typeName: 'GROUP',
      delayMin: 0,
      intervalMin: 60,
      emailEnabled: true,
      smsEnabled: false,
      roles: ['GROUP_OWNER'],
      // Sent on a GROUP notification: the spec returns request fields "when they were set".
      emailAddress: 'sent@acme.example',
      notifierId: expect.any(String),
    });
    expect(team).toMatchObject({ teamId: W.dbaOncall, teamName: 'dba-oncall' });
    const again = await h.owner.get(`${BASE}/${c.id}`);
    expect(again.body).toEqual(c);
    expect(JSON.stringify((await h.owner.get(BASE)).body)).not.toContain('SECRET');
  });

  it('stores enabled=false when omitted', async () => {
    const { enabled: _e, ...body } = alertBody();
    expect((await h.owner.post(BASE, body)).body.enabled).toBe(false);
  });

  it('answers the matcher field names as a bare array', async () => {
    const res = await h.as(K.member).get('/alertConfigs/matchers/fieldNames');
    // The reference's whole list, in its order: a client offering them as choices must see every one.
    expect(res.body).toEqual([
      'TYPE_NAME',
      'HOSTNAME',
      'PORT',
      'HOSTNAME_AND_PORT',
      'REPLICA_SET_NAME',
      'SHARD_NAME',
      'CLUSTER_NAME',
    ]);
  });
});

describe('replace, toggle, delete', () => {
  it('PUT replaces the whole entity; a missing enabled stores false; masks keep the stored secret', async () => {
    const c = (await h.owner.post(BASE, secretBody())).body;
    const read = (await h.owner.get(`${BASE}/${c.id}`)).body;
    const { enabled: _enabled, ...fromGet } = read;
    const put = await h.owner.put(`${BASE}/${c.id}`, { ...fromGet, notifications: read.notifications.slice(0, 2) });
    expect(put.status).toBe(200);
    expect(put.body.enabled).toBe(false);
    expect(put.body.notifications).toHaveLength(2);
    expect(put.body.notifications[0].apiToken).toBe(read.notifications[0].apiToken);
    expect(put.body.created).toBe(c.created);
    const events = (await h.owner.get(`/groups/${W.paymentsProd}/events?eventType=ALERT_CONFIG_CHANGED_AUDIT`)).body;
    const params = events.results[0].diffs[0].params.map((p: { param: string }) => p.param);
    expect(params).toContain('enabled');
    expect(params).not.toContain('notifications[0].apiToken');
    expect(JSON.stringify(events)).not.toContain('SECRET');
  });

  it('PUT with a new secret records that it changed without its value', async () => {
    const c = (await h.owner.post(BASE, secretBody())).body;
    const body = secretBody();
    (body.notifications as Record<string, unknown>[])[0] = {
      typeName: 'SLACK',
      apiToken: 'xoxb-rotated-value-9999',
      channelName: '#dba',
    };
    await h.owner.put(`${BASE}/${c.id}`, body);
    const events = (await h.owner.get(`/groups/${W.paymentsProd}/events?eventType=ALERT_CONFIG_CHANGED_AUDIT`)).body;
    const p = events.results[0].diffs[0].params.find((x: { param: string }) => x.param === 'notifications[0].apiToken');
    expect(p.new).toBe(`${'*'.repeat(19)}9999`);
    expect(JSON.stringify(events)).not.toContain('rotated');
  });

  it('PUT keeps created of an older config and moves updated', async () => {
    // A seeded config, created long before the test: a config created in this second could not tell them apart.
    const seeded = (await h.owner.get(BASE)).body.results[0];
    expect(seeded.created).toBe('2026-09-01T08:00:00Z');
    const put = await h.owner.put(`${BASE}/${seeded.id}`, seeded);
    expect(put.status).toBe(200);
    expect(put.body.created).toBe(seeded.created);
    expect(put.body.updated).not.toBe(seeded.updated);
  });

  it('PUT rejects read-only fields that differ, and unknown ids', async () => {
    const c = (await h.owner.post(BASE, alertBody())).body;
    const bad = await h.owner.put(`${BASE}/${c.id}`, { ...alertBody(), created: '2001-01-01T00:00:00Z' });
    expect(bad.body.errorCode).toBe('ATTRIBUTE_READ_ONLY');
    const missing = await h.owner.put(`${BASE}/aaaaaaaaaaaaaaaaaaaaaaaa`, alertBody());
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('ALERT_CONFIG_NOT_FOUND');
  });

  it('PATCH takes {enabled} only and records ENABLED/DISABLED audits', async () => {
    const c = (await h.owner.post(BASE, alertBody({ enabled: true }))).body;
    const off = await h.as(K.jdoe).patch(`${BASE}/${c.id}`, { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.enabled).toBe(false);
    expect(off.body.notifications).toEqual(c.notifications);
    expect(
      (await h.owner.patch(`${BASE}/${c.id}`, { enabled: true, eventTypeName: 'NO_PRIMARY' })).body.errorCode,
    ).toBe('INVALID_ATTRIBUTE');
    expect((await h.owner.patch(`${BASE}/${c.id}`, {})).body.errorCode).toBe('MISSING_ATTRIBUTE');
    expect((await h.owner.patch(`${BASE}/${c.id}`, { enabled: null })).body.errorCode).toBe('MISSING_ATTRIBUTE');
    // A string is not a boolean: stored as sent it would answer "enabled":"false", which a client reads as truthy.
    expect((await h.owner.patch(`${BASE}/${c.id}`, { enabled: 'false' })).body).toMatchObject({
      errorCode: 'INVALID_JSON_ATTRIBUTE',
      parameters: ['enabled'],
    });
    await h.owner.patch(`${BASE}/${c.id}`, { enabled: true });
    const events = (await h.owner.get(`/groups/${W.paymentsProd}/events?includeRaw=true`)).body.results;
    expect(events.slice(0, 3).map((e: { eventTypeName: string }) => e.eventTypeName)).toEqual([
      'ALERT_CONFIG_ENABLED_AUDIT',
      'ALERT_CONFIG_DISABLED_AUDIT',
      'ALERT_CONFIG_ADDED_AUDIT',
    ]);
    expect(events[1]).toMatchObject({
      alertConfigId: c.id,
      publicKey: 'jdoekey1',
      apiKeyId: '6b1f000000000000000000a2',
      remoteAddress: '127.0.0.1',
      groupId: W.paymentsProd,
    });
    expect(events[1].raw).toMatchObject({ et: 'ALERT_CONFIG_DISABLED_AUDIT' });
  });

  it('DELETE removes it with no body and an audit event', async () => {
    const c = (await h.owner.post(BASE, alertBody())).body;
    const del = await h.owner.delete(`${BASE}/${c.id}`);
    expect(del.status).toBe(200);
    expect(del.text).toBe('');
    expect((await h.owner.get(`${BASE}/${c.id}`)).body.errorCode).toBe('ALERT_CONFIG_NOT_FOUND');
    const ev = (await h.owner.get(`/groups/${W.paymentsProd}/events?eventType=ALERT_CONFIG_DELETED_AUDIT`)).body
      .results[0];
    expect(ev).toMatchObject({ alertConfigId: c.id, publicKey: 'gitopsbt' });
    expect(ev.diffs[0].status).toBe('REMOVED');
    // The spec: params are "all strings; old can be null": a removed value's new is "", never null.
    const params = ev.diffs[0].params as { old: string | null; new: unknown }[];
    expect(params.length).toBeGreaterThan(0);
    for (const p of params) expect(p.new).toBe('');
  });

  it('echoes a legacy typeName as sent and accepts the spec categories of event types', async () => {
    const sent = { ...alertBody(), eventTypeName: 'DATA_EXPLORER_CRUD', typeName: 'HOST_METRIC' };
    const c = (await h.owner.post(BASE, sent)).body;
    expect(c).toMatchObject({ eventTypeName: 'DATA_EXPLORER_CRUD', typeName: 'HOST_METRIC' });
    expect((await h.owner.get(`${BASE}/${c.id}`)).body.typeName).toBe('HOST_METRIC');
    for (const eventTypeName of ['JOINED_TEAM', 'ORG_USERS_WITHOUT_MFA', 'TEAM_ADDED_TO_GROUP', 'SHARD_ADDED'])
      expect((await h.owner.post(BASE, { ...alertBody(), eventTypeName })).status).toBe(200);
    expect((await h.owner.post(BASE, { ...alertBody(), eventTypeName: 'JOINED_TEEM' })).body.errorCode).toBe(
      'INVALID_ENUM_VALUE',
    );
  });

  it('refuses a webhookSecret without webhookUrl, also on a PUT that keeps the URL by notifierId', async () => {
    const c = (await h.owner.post(BASE, secretBody())).body;
    const hook = c.notifications.find((n: { typeName: string }) => n.typeName === 'WEBHOOK');
    const put = await h.owner.put(`${BASE}/${c.id}`, {
      eventTypeName: c.eventTypeName,
      notifications: [{ typeName: 'WEBHOOK', notifierId: hook.notifierId, webhookSecret: 'rotated' }],
    });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ errorCode: 'INVALID_ATTRIBUTE', parameters: ['notifications[0].webhookSecret'] });
  });

  it('answers GROUP_NOT_FOUND for an unknown project', async () => {
    const res = await h.owner.get(`/groups/${W.missing}/alertConfigs`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      detail: `No group with ID ${W.missing} exists.`,
      error: 404,
      errorCode: 'GROUP_NOT_FOUND',
      parameters: [W.missing],
      reason: 'Not Found',
    });
  });
});
