// Scenario: teams, audit-log rotation, the version manifest (byte-exact), S3 blockstore configurations, and events with
// their filters (eventType repeatable, inclusive minDate/maxDate, includeRaw, newest first).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorHarness, K, startHarness, W } from '../../helpers/emulator-client.ts';

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

describe('teams', () => {
  it('gets one team of an organization', async () => {
    const res = await h.as(K.member).get(`/orgs/${W.acme}/teams/${W.dbaOncall}`);
    expect(res.body).toEqual({
      id: W.dbaOncall,
      name: 'dba-oncall',
      links: [{ href: `${h.emu.url}/orgs/${W.acme}/teams/${W.dbaOncall}`, rel: 'self' }],
    });
    expect((await h.owner.get(`/orgs/${W.acme}/teams/${W.platformSre}`)).body.errorCode).toBe('RESOURCE_NOT_FOUND');
    expect((await h.owner.get(`/orgs/${W.missing}/teams/${W.dbaOncall}`)).body.errorCode).toBe('ORG_NOT_FOUND');
  });
});

describe('audit-log rotation', () => {
  const path = `/groups/${W.paymentsProd}/automationConfig/auditLogRotateConfig`;

  it('returns only configured fields and replaces them on PUT with {}', async () => {
    expect((await h.owner.get(path)).body).toEqual({
      sizeThresholdMB: 1000,
      timeThresholdHrs: 24,
      numUncompressed: 5,
      percentOfDiskspace: 0.02,
      numTotal: 10,
    });
    const put = await h.as(K.automation).put(path, { sizeThresholdMB: 2048, timeThresholdHrs: 24, numTotal: 30 });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({});
    expect((await h.owner.get(path)).body).toEqual({ sizeThresholdMB: 2048, timeThresholdHrs: 24, numTotal: 30 });
    const ev = (await h.owner.get(`/groups/${W.paymentsProd}/events?eventType=AUTOMATION_CONFIG_PUBLISHED_AUDIT`)).body
      .results[0];
    expect(ev).toMatchObject({ publicKey: 'autoadmn' });
    expect(ev.diffs[0].params).toContainEqual({
      display: 'Audit log rotation numTotal',
      param: 'auditLogRotate.numTotal',
      old: '10',
      new: '30',
    });
    // Only what changed: timeThresholdHrs stayed 24, so it is not a param.
    expect(ev.diffs[0].params.map((p: { param: string }) => p.param).sort()).toEqual([
      'auditLogRotate.numTotal',
      'auditLogRotate.numUncompressed',
      'auditLogRotate.percentOfDiskspace',
      'auditLogRotate.sizeThresholdMB',
    ]);
  });

  it('an empty body disables rotation', async () => {
    expect((await h.owner.put(path, {})).status).toBe(200);
    expect((await h.owner.get(path)).body).toEqual({});
  });

  it.each([
    [{ timeThresholdHrs: 24 }, 'MISSING_ATTRIBUTE', 'sizeThresholdMB'],
    [{ sizeThresholdMB: 1, timeThresholdHrs: 1.5 }, 'INVALID_JSON_ATTRIBUTE', 'timeThresholdHrs'],
    [
      { sizeThresholdMB: 1, timeThresholdHrs: 1, percentOfDiskspace: 2 },
      'INVALID_JSON_ATTRIBUTE',
      'percentOfDiskspace',
    ],
    [{ sizeThresholdMB: 1, timeThresholdHrs: 1, rotate: true }, 'INVALID_ATTRIBUTE', 'rotate'],
  ])('refuses %j', async (body, code, param) => {
    expect((await h.owner.put(path, body)).body).toMatchObject({ errorCode: code, parameters: [param] });
  });
});

describe('version manifest', () => {
  it('round-trips the uploaded text byte for byte', async () => {
    const text =
      '{"updated":1763000000000,  "versions":[{"name":"8.0.4","builds":[{"architecture":"amd64","gitVersion":"abc","platform":"linux","url":"https://x/y.tgz","flavor":"ubuntu","minOsVersion":"22.04","modules":["enterprise"]}]}],"extra":1.50}';
    const put = await h.owner.request('PUT', '/versionManifest', undefined, text);
    expect(put.status).toBe(200);
    expect(put.text).toBe(text);
    const res = await fetch(`${h.emu.url}/unauth/versionManifest`);
    expect(await res.text()).toBe(text);
    const pretty = await fetch(`${h.emu.url}/unauth/versionManifest?pretty=true`);
    expect(await pretty.text()).toContain('\n  "versions": [');
    // The spec lists `pretty` alone for the manifest endpoints: envelope is not theirs, whatever its value.
    const enveloped = await fetch(`${h.emu.url}/unauth/versionManifest?envelope=abc`);
    expect(enveloped.status).toBe(200);
    expect(await enveloped.text()).toBe(text);
    expect((await fetch(`${h.emu.url}/unauth/versionManifest?pretty=abc`)).status).toBe(400);
  });

  it('needs a global automation role and a JSON object with versions', async () => {
    expect((await h.as(K.jdoe).request('PUT', '/versionManifest', undefined, '{"versions":[]}')).body.errorCode).toBe(
      'USER_UNAUTHORIZED',
    );
    expect((await h.owner.request('PUT', '/versionManifest', undefined, '{"versions":')).body.errorCode).toBe(
      'INVALID_JSON',
    );
    expect((await h.owner.request('PUT', '/versionManifest', undefined, '{"updated":1}')).body.errorCode).toBe(
      'MISSING_ATTRIBUTE',
    );
    // updated is epoch milliseconds (the reference): a date string is refused, and the stored manifest is kept.
    const before = await (await fetch(`${h.emu.url}/unauth/versionManifest`)).text();
    const dated = await h.owner.request('PUT', '/versionManifest', undefined, '{"updated":"2026-01-01","versions":[]}');
    expect(dated.body).toMatchObject({ errorCode: 'INVALID_JSON_ATTRIBUTE', parameters: ['updated'] });
    expect(await (await fetch(`${h.emu.url}/unauth/versionManifest`)).text()).toBe(before);
  });
});

describe('S3 blockstore configurations', () => {
  const BASE = '/admin/backup/snapshot/s3Configs';
  const body = {
    id: 'globex-snapshots',
    s3BucketEndpoint: 'https://s3.eu-west-1.amazonaws.com',
    s3BucketName: 'globex-snaps',
    uri: 'mongodb://meta.globex.internal:27017',
    acceptedTos: true,
    awsAccessKey: 'AKIAGLOBEX',
    awsSecretKey: 'super-secret-key',
    labels: ['globex'],
  };

  it('lists, creates, reads, updates and deletes, never showing the secret key', async () => {
    expect((await h.as(K.viewer).get(BASE)).body.results[0].id).toBe('acme-snapshots');
    const created = await h.owner.post(BASE, body);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: 'globex-snapshots',
      s3AuthMethod: 'KEYS',
      awsSecretKey: '****************',
    });
    expect((await h.owner.post(BASE, body)).body.errorCode).toBe('DUPLICATE_NAME');
    const got = (await h.owner.get(`${BASE}/globex-snapshots`)).body;
    const updated = await h.owner.put(`${BASE}/globex-snapshots`, { ...got, s3BucketName: 'globex-snaps-2' });
    expect(updated.body.s3BucketName).toBe('globex-snaps-2');
    expect(JSON.stringify((await h.owner.get(BASE)).body)).not.toContain('super-secret');
    expect((await h.owner.delete(`${BASE}/globex-snapshots`)).status).toBe(200);
    expect((await h.owner.delete(`${BASE}/globex-snapshots`)).body.errorCode).toBe('RESOURCE_NOT_FOUND');
  });

  it('validates the body', async () => {
    expect((await h.owner.post(BASE, { ...body, acceptedTos: false })).body.errorCode).toBe('INVALID_ATTRIBUTE');
    expect((await h.owner.post(BASE, { ...body, s3AuthMethod: 'MAGIC' })).body.errorCode).toBe('INVALID_ENUM_VALUE');
    const { uri: _u, ...noUri } = body;
    expect((await h.owner.post(BASE, noUri)).body.parameters).toEqual(['uri']);
    expect((await h.as(K.viewer).post(BASE, body)).body.errorCode).toBe('USER_UNAUTHORIZED');
  });
});

describe('events', () => {
  const path = `/groups/${W.paymentsProd}/events`;

  it('lists newest first, with raw only on request', async () => {
    const res = await h.owner.get(path);
    expect(res.body.results.map((e: { id: string }) => e.id)).toEqual([
      '6f0e00000000000000000002',
      '6f0e00000000000000000001',
    ]);
    expect(res.body.results[0]).not.toHaveProperty('raw');
    expect(res.body.results[0]).toMatchObject({ username: 'j.doe@acme.example', links: [{ rel: 'self' }] });
    const one = await h.owner.get(`/groups/${W.searchProd}/events/6f0e00000000000000000003?includeRaw=true`);
    expect(one.body.raw).toEqual({ _t: 'AUDIT', automationConfigVersion: 42 });
  });

  it('leaves raw out of an event that has one unless includeRaw is true (the spec: "appears only when")', async () => {
    const id = '6f0e00000000000000000003';
    const list = `/groups/${W.searchProd}/events`;
    for (const query of ['', '?includeRaw=false']) {
      expect((await h.owner.get(`${list}/${id}${query}`)).body).not.toHaveProperty('raw');
      const listed = (await h.owner.get(`${list}${query}`)).body.results.find((e: { id: string }) => e.id === id);
      expect(listed).toBeDefined();
      expect(listed).not.toHaveProperty('raw');
    }
    const raw = (await h.owner.get(`${list}?includeRaw=true`)).body.results.find((e: { id: string }) => e.id === id);
    expect(raw.raw).toEqual({ _t: 'AUDIT', automationConfigVersion: 42 });
  });

  // The spec: raw "appears only when includeRaw is true"; a client asking for it gets it on every event, also on one
  // the seed gave no raw (it was left out, so the event looked as if includeRaw had been ignored).
  it('answers raw on every event when asked, one seeded without raw included', async () => {
    const id = '6f0e00000000000000000001';
    const core = { cre: '2026-09-01T08:00:00Z', et: 'JOINED_GROUP', gid: W.paymentsProd };
    const listed = (await h.owner.get(`${path}?includeRaw=true`)).body.results;
    expect(listed.every((e: { raw?: unknown }) => typeof e.raw === 'object' && e.raw !== null)).toBe(true);
    expect(listed.find((e: { id: string }) => e.id === id).raw).toEqual(core);
    expect((await h.owner.get(`${path}/${id}?includeRaw=true`)).body.raw).toEqual(core);
    expect((await h.owner.get(`${path}/${id}`)).body).not.toHaveProperty('raw');
    const org = await h.owner.get(`/orgs/${W.acme}/events/6f0e00000000000000000004?includeRaw=true`);
    expect(org.body.raw).toEqual({ cre: '2026-10-21T11:00:00Z', et: 'JOINED_TEAM', orgId: W.acme });
  });

  it('filters by repeated eventType and inclusive dates', async () => {
    const both = await h.owner.get(`${path}?eventType=JOINED_GROUP&eventType=ALERT_CONFIG_CHANGED_AUDIT`);
    expect(both.body.totalCount).toBe(2);
    // The spec types eventType as one string naming "the given types": a comma-separated list means the same.
    const listed = await h.owner.get(`${path}?eventType=JOINED_GROUP,ALERT_CONFIG_CHANGED_AUDIT`);
    expect(listed.body.results).toEqual(both.body.results);
    const one = await h.owner.get(`${path}?eventType=JOINED_GROUP`);
    expect(one.body.results.map((e: { eventTypeName: string }) => e.eventTypeName)).toEqual(['JOINED_GROUP']);
    const exact = await h.owner.get(`${path}?minDate=2026-10-14T09:12:44Z&maxDate=2026-10-14T09:12:44Z`);
    expect(exact.body.results.map((e: { id: string }) => e.id)).toEqual(['6f0e00000000000000000002']);
    expect((await h.owner.get(`${path}?minDate=2026-10-15`)).body.totalCount).toBe(0);
    expect((await h.owner.get(`${path}?minDate=soon`)).body).toMatchObject({
      errorCode: 'INVALID_QUERY_PARAMETER',
      parameters: ['minDate'],
    });
  });

  it('refuses with 400 a minDate or maxDate that names no instant (Java reads ISO 8601 strictly)', async () => {
    for (const [name, value] of [
      ['minDate', '2026-02-30T00:00:00Z'],
      ['minDate', '2026-02-30'],
      ['maxDate', '2026-10-14T24:00:00Z'],
      ['maxDate', '2026-04-31'],
    ]) {
      const res = await h.owner.get(`${path}?${name}=${encodeURIComponent(value as string)}`);
      expect(res.status, `${name}=${value}`).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'INVALID_QUERY_PARAMETER', parameters: [name] });
    }
  });

  it('takes the ISO 8601 forms with an offset and with more than millisecond digits', async () => {
    for (const value of [
      '2026-10-14T09:12:44.000000Z',
      '2026-10-14T11:12:44+02:00',
      '2026-10-14T09:12:44+0000',
      '2026-10-14T09:12:44.123456789Z',
    ]) {
      const res = await h.owner.get(`${path}?maxDate=${encodeURIComponent(value)}&minDate=2026-10-14T09:12:44Z`);
      expect(res.status, value).toBe(200);
      expect(res.body.results.map((e: { id: string }) => e.id)).toEqual(['6f0e00000000000000000002']);
    }
  });

  it('gets one project event and org events', async () => {
    expect((await h.as(K.viewer).get(`${path}/6f0e00000000000000000001`)).body.eventTypeName).toBe('JOINED_GROUP');
    expect((await h.owner.get(`${path}/6f0e00000000000000000003`)).status).toBe(404);
    const org = await h.as(K.member).get(`/orgs/${W.acme}/events`);
    expect(org.body.results.map((e: { eventTypeName: string }) => e.eventTypeName)).toEqual(['JOINED_TEAM']);
    expect((await h.as(K.member).get(`/orgs/${W.acme}/events/6f0e00000000000000000004`)).body.targetUsername).toBe(
      'b.doe@acme.example',
    );
  });
});
