// Scenario: statements of the Public API spec read literally, each checked against the running emulator with real
// Digest-authenticated requests (findings of a statement-by-statement review).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHarness, K, startHarness, W } from '../../helpers/emulator-client.ts';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.emu.close();
});

describe('version manifest: "Query: pretty only"', () => {
  // The conventions: envelope is accepted "by every endpoint unless stated", and "Only the version-manifest endpoints
  // list `pretty` alone". So envelope=true must not change a manifest answer, an error included.
  it('does not wrap an error of PUT /versionManifest?envelope=true', async () => {
    const res = await h.owner.put('/versionManifest?envelope=true', { notAManifest: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(expect.objectContaining({ error: 400, errorCode: 'MISSING_ATTRIBUTE' }));
    expect(res.body).not.toHaveProperty('content');
  });

  it('does not wrap the role error of PUT /versionManifest?envelope=true either', async () => {
    const res = await h.as(K.viewer).request('PUT', '/versionManifest?envelope=true', undefined, '{"versions":[]}');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(expect.objectContaining({ error: 401, errorCode: 'USER_UNAUTHORIZED' }));
  });

  it('answers a manifest byte-exact with envelope=true, on PUT and on the unauthenticated GET', async () => {
    const text = '{"updated":1767225600000,"versions":[{"name":"8.0.4"}]}';
    const put = await h.owner.request('PUT', '/versionManifest?envelope=true', undefined, text);
    expect(put.status).toBe(200);
    expect(put.text).toBe(text);
    const got = await fetch(`${h.emu.url}/unauth/versionManifest?envelope=true`);
    expect(got.status).toBe(200);
    expect(await got.text()).toBe(text);
  });

  it('does not judge an envelope value it does not take: envelope=maybe is no 400 there, as it is elsewhere', async () => {
    const text = '{"updated":1767225600000,"versions":[]}';
    const put = await h.owner.request('PUT', '/versionManifest?envelope=maybe', undefined, text);
    expect(put.status).toBe(200);
    expect(put.text).toBe(text);
    const got = await fetch(`${h.emu.url}/unauth/versionManifest?envelope=maybe`);
    expect(got.status).toBe(200);
    expect(await got.text()).toBe(text);
    const other = await h.owner.get(`/groups/${W.paymentsProd}/events?envelope=maybe`);
    expect(other.body).toMatchObject({ errorCode: 'INVALID_QUERY_PARAMETER', parameters: ['envelope'] });
  });

  it('still wraps errors of endpoints that take envelope', async () => {
    const res = await h.owner.get(`/groups/${W.missing}/events?envelope=true`);
    expect(res.body).toEqual({ status: 404, content: expect.objectContaining({ errorCode: 'GROUP_NOT_FOUND' }) });
  });
});

describe('alert configurations: "A role is returned as `roles`, an array of strings"', () => {
  it('echoes a role sent to a type without roles of its own, on create and on read', async () => {
    const created = await h.owner.post(`/groups/${W.searchProd}/alertConfigs`, {
      eventTypeName: 'HOST_DOWN',
      notifications: [{ typeName: 'EMAIL', emailAddress: 'dba@acme.example', role: 'GROUP_OWNER' }],
    });
    expect(created.status).toBe(200);
    expect(created.body.notifications[0]).toEqual(
      expect.objectContaining({ typeName: 'EMAIL', emailAddress: 'dba@acme.example', roles: ['GROUP_OWNER'] }),
    );
    expect(created.body.notifications[0]).not.toHaveProperty('role');
    const read = await h.owner.get(`/groups/${W.searchProd}/alertConfigs/${created.body.id}`);
    expect(read.body.notifications[0].roles).toEqual(['GROUP_OWNER']);
  });

  it('checks such a role like a GROUP notification role', async () => {
    const res = await h.owner.post(`/groups/${W.searchProd}/alertConfigs`, {
      eventTypeName: 'HOST_DOWN',
      notifications: [{ typeName: 'EMAIL', emailAddress: 'dba@acme.example', role: 'NOT_A_ROLE' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_ENUM_VALUE');
  });
});

describe('events and alert configurations: "created: ISO 8601 UTC timestamp"', () => {
  // A hand-written seed may give any ISO 8601 form (an offset, no zone, milliseconds); answers are UTC all the same,
  // and ordering and the minDate/maxDate filters read the same instant.
  const ORG = '5e2211c17a3e5a48f5497e00';
  const PROJ = '5e2211c17a3e5a48f5497e01';
  let s: EmulatorHarness;
  beforeAll(async () => {
    s = await startHarness({
      seed: {
        organizations: [{ id: ORG, name: 'o' }],
        projects: [{ id: PROJ, name: 'p', orgId: ORG }],
        apiKeys: [{ ...K.owner, desc: 'owner', roles: [{ roleName: 'GLOBAL_OWNER' }] }],
        alertConfigs: [
          {
            groupId: PROJ,
            id: '6c0100000000000000000009',
            created: '2026-11-01T12:00:00+02:00',
            updated: '2026-11-01T12:30:00.250+02:00',
            eventTypeName: 'HOST_DOWN',
            notifications: [{ typeName: 'EMAIL', emailAddress: 'a@acme.example' }],
          },
        ],
        events: [
          { id: '6f0e000000000000000000a1', created: '2026-11-01T12:00:00+02:00', eventTypeName: 'A', groupId: PROJ },
          { id: '6f0e000000000000000000a2', created: '2026-11-01T11:00:00Z', eventTypeName: 'B', groupId: PROJ },
        ],
      },
    });
  });
  afterAll(async () => {
    await s.emu.close();
  });

  it('answers seeded timestamps in UTC', async () => {
    const cfg = await s.owner.get(`/groups/${PROJ}/alertConfigs/6c0100000000000000000009`);
    expect(cfg.body.created).toBe('2026-11-01T10:00:00Z');
    expect(cfg.body.updated).toBe('2026-11-01T10:30:00Z');
    const one = await s.owner.get(`/groups/${PROJ}/events/6f0e000000000000000000a1`);
    expect(one.body.created).toBe('2026-11-01T10:00:00Z');
  });

  it('orders and filters by the instant, not by the text', async () => {
    const all = await s.owner.get(`/groups/${PROJ}/events`);
    expect(all.body.results.map((e: { eventTypeName: string }) => e.eventTypeName)).toEqual(['B', 'A']);
    const late = await s.owner.get(`/groups/${PROJ}/events?minDate=2026-11-01T10:30:00Z`);
    expect(late.body.results.map((e: { eventTypeName: string }) => e.eventTypeName)).toEqual(['B']);
  });
});

describe('events: the organization endpoints serve "organization" events, the project ones project events', () => {
  // A seeded event may name both its project and its organization (the spec's organization example carries orgId).
  // It is a project event: the organization list leaves it out, so the organization's get-one must not find it either.
  const ORG = '5e2211c17a3e5a48f5497e00';
  const PROJ = '5e2211c17a3e5a48f5497e01';
  const BOTH = '6f0e000000000000000000b1';
  let s: EmulatorHarness;
  beforeAll(async () => {
    s = await startHarness({
      seed: {
        organizations: [{ id: ORG, name: 'o' }],
        projects: [{ id: PROJ, name: 'p', orgId: ORG }],
        apiKeys: [{ ...K.owner, desc: 'owner', roles: [{ roleName: 'GLOBAL_OWNER' }] }],
        events: [{ id: BOTH, created: '2026-11-01T11:00:00Z', eventTypeName: 'B', groupId: PROJ, orgId: ORG }],
      },
    });
  });
  afterAll(async () => {
    await s.emu.close();
  });

  it('lists and gets it under the project only', async () => {
    expect((await s.owner.get(`/groups/${PROJ}/events/${BOTH}`)).status).toBe(200);
    expect((await s.owner.get(`/orgs/${ORG}/events`)).body.results).toEqual([]);
    const one = await s.owner.get(`/orgs/${ORG}/events/${BOTH}`);
    expect(one.status).toBe(404);
    expect(one.body.errorCode).toBe('RESOURCE_NOT_FOUND');
  });
});
