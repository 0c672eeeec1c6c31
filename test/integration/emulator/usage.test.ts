// Scenario: usage endpoints over HTTP: physical hosts (list, create, get, update, delete), host assignments per project and
// organization with date ranges, a host's server type, and default server types, plus the /usage/groups/{x} overloading.
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

const NOV = 'startDate=2026-11-01&endDate=2026-11-30';

describe('physical hosts', () => {
  it('lists them with serverType as a string', async () => {
    const res = await h.owner.get('/usage/groups');
    expect(res.body.totalCount).toBe(4);
    expect(res.body.results[0]).toEqual({
      id: '6e0000000000000000000001',
      name: 'rack1-node01.acme.internal',
      serverType: 'PRODUCTION_SERVER',
      hosts: [
        { groupId: W.paymentsProd, hostname: 'pay-prod-0.acme.internal' },
        { groupId: W.paymentsProd, hostname: 'pay-prod-1.acme.internal' },
      ],
    });
  });

  it('creates, reads, updates and deletes one', async () => {
    const body = {
      name: 'rack9-node01',
      serverType: { name: 'RAM_POOL', label: 'RAM Pool' },
      virtualHosts: [{ groupId: W.searchProd, hostname: 's1' }],
    };
    const created = await h.owner.post('/usage/groups', body);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'rack9-node01',
      serverType: 'RAM_POOL',
      hosts: [{ groupId: W.searchProd, hostname: 's1' }],
    });
    const id = created.body.id;
    expect((await h.owner.get(`/usage/groups/${id}`)).body.name).toBe('rack9-node01');
    const updated = await h.owner.put(`/usage/groups/${id}`, {
      ...body,
      name: 'rack9-node01b',
      serverType: { name: 'TEST_SERVER' },
    });
    expect(updated.body).toMatchObject({ id, name: 'rack9-node01b', serverType: 'TEST_SERVER' });
    expect((await h.owner.post('/usage/groups', { ...body, name: 'rack9-node01b' })).body.errorCode).toBe(
      'DUPLICATE_NAME',
    );
    expect((await h.owner.delete(`/usage/groups/${id}`)).status).toBe(200);
    expect((await h.owner.get(`/usage/groups/${id}`)).body.errorCode).toBe('RESOURCE_NOT_FOUND');
  });

  it('validates the body', async () => {
    expect((await h.owner.post('/usage/groups', { name: 'x', virtualHosts: [] })).body).toMatchObject({
      errorCode: 'MISSING_ATTRIBUTE',
      parameters: ['serverType'],
    });
    expect(
      (await h.owner.post('/usage/groups', { name: 'x', serverType: { name: 'HUGE' }, virtualHosts: [] })).body
        .errorCode,
    ).toBe('INVALID_ENUM_VALUE');
    expect((await h.owner.post('/usage/groups', { name: 'x', serverType: 'DEV_SERVER' })).body.parameters).toEqual([
      'virtualHosts',
    ]);
    expect(
      (
        await h.owner.post('/usage/groups', {
          name: 'x',
          serverType: 'DEV_SERVER',
          virtualHosts: [{ groupId: W.missing }],
        })
      ).body.errorCode,
    ).toBe('GROUP_NOT_FOUND');
  });
});

describe('host assignments', () => {
  it('lists a project for a date range, with names filled in', async () => {
    const res = await h.owner.get(`/usage/groups/${W.searchProd}/hosts?${NOV}`);
    expect(res.body.results).toEqual([
      {
        hostname: 'search-prod-0.acme.internal',
        processes: [
          {
            cluster: 'search',
            name: 'search-prod-0.acme.internal:27017',
            processType: 7,
            hasConflictingServerType: false,
            groupName: 'search-prod',
            orgName: 'acme',
            groupId: W.searchProd,
          },
        ],
        serverType: { name: 'PRODUCTION_SERVER', label: 'Production Server' },
        isChargeable: true,
        memSizeMB: 32768,
      },
    ]);
    const october = await h.owner.get(`/usage/groups/${W.searchProd}/hosts?startDate=2026-10-01&endDate=2026-10-31`);
    expect(october.body.totalCount).toBe(2);
    // Both ends are inclusive: search-prod-old was assigned from 2026-10-01 to 2026-10-20.
    const hosts = async (query: string) =>
      (await h.owner.get(`/usage/groups/${W.searchProd}/hosts?${query}`)).body.results.map(
        (r: { hostname: string }) => r.hostname,
      );
    expect(await hosts('startDate=2026-10-20&endDate=2026-10-20')).toContain('search-prod-old.acme.internal');
    expect(await hosts('startDate=2026-09-01&endDate=2026-10-01')).toContain('search-prod-old.acme.internal');
    expect(await hosts('startDate=2026-10-21&endDate=2026-10-31')).not.toContain('search-prod-old.acme.internal');
  });

  it('lists an organization across its projects', async () => {
    const res = await h.owner.get(`/usage/organizations/${W.globex}/hosts?${NOV}`);
    expect(res.body.results.map((r: { hostname: string }) => r.hostname)).toEqual([
      'analytics-dev-0.globex.internal',
      'ledger-prod-0.globex.internal',
      'ledger-prod-1.globex.internal',
    ]);
  });

  it.each([
    ['', 'MISSING_QUERY_PARAMETER', 'startDate'],
    ['startDate=2026-11-01', 'MISSING_QUERY_PARAMETER', 'endDate'],
    ['startDate=yesterday&endDate=2026-11-30', 'INVALID_QUERY_PARAMETER', 'startDate'],
    ['startDate=2026-11-30&endDate=2026-11-01', 'INVALID_QUERY_PARAMETER', 'endDate'],
  ])('refuses query %j', async (query, code, param) => {
    // No bare "?" for the empty query: Node 20's fetch and Node 24's differ on sending it (the Digest uri would not match).
    const res = await h.owner.get(`/usage/groups/${W.paymentsProd}/hosts${query === '' ? '' : `?${query}`}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: code, parameters: [param] });
  });

  it('answers ORG_NOT_FOUND for an unknown organization', async () => {
    expect((await h.owner.get(`/usage/organizations/${W.missing}/hosts?${NOV}`)).body.errorCode).toBe('ORG_NOT_FOUND');
  });
});

describe('server types', () => {
  it('GET gives the bare object, PUT takes it wrapped and answers 200 without a body', async () => {
    const path = `/usage/groups/${W.paymentsProd}/defaultServerType`;
    expect((await h.owner.get(path)).body).toEqual({ name: 'DEV_SERVER', label: 'Dev Server' });
    const put = await h.owner.put(path, { serverType: { name: 'PRODUCTION_SERVER', label: 'Production Server' } });
    expect(put.status).toBe(200);
    expect(put.text).toBe('');
    expect((await h.owner.get(path)).body).toEqual({ name: 'PRODUCTION_SERVER', label: 'Production Server' });
    const ev = (await h.owner.get(`/groups/${W.paymentsProd}/events?eventType=DEFAULT_SERVER_TYPE_CHANGED_AUDIT`)).body
      .results[0];
    expect(ev.diffs[0].params[0]).toMatchObject({ old: 'DEV_SERVER', new: 'PRODUCTION_SERVER' });
  });

  it('does the same for an organization, with an org event', async () => {
    const path = `/usage/organizations/${W.acme}/defaultServerType`;
    expect((await h.owner.put(path, { serverType: { name: 'TEST_SERVER' } })).status).toBe(200);
    expect((await h.owner.get(path)).body).toEqual({ name: 'TEST_SERVER', label: 'Test Server' });
    const ev = (await h.owner.get(`/orgs/${W.acme}/events`)).body.results[0];
    expect(ev).toMatchObject({ eventTypeName: 'DEFAULT_SERVER_TYPE_CHANGED_AUDIT', orgId: W.acme });
  });

  it('validates the wrapped body', async () => {
    const path = `/usage/groups/${W.paymentsProd}/defaultServerType`;
    expect((await h.owner.put(path, { name: 'DEV_SERVER' })).body.errorCode).toBe('INVALID_ATTRIBUTE');
    expect((await h.owner.put(path, {})).body.errorCode).toBe('MISSING_ATTRIBUTE');
    expect((await h.owner.put(path, { serverType: { name: 'NOPE' } })).body.errorCode).toBe('INVALID_ENUM_VALUE');
    // The spec: "serverType (object, required)"; a bare name is not that object.
    const bare = await h.owner.put(path, { serverType: 'PRODUCTION_SERVER' });
    expect(bare.body).toMatchObject({ errorCode: 'INVALID_JSON_ATTRIBUTE', parameters: ['serverType'] });
    expect((await h.owner.put('/usage/hosts/6f0000000000000000000005', { serverType: 'TEST_SERVER' })).status).toBe(
      400,
    );
    expect((await h.owner.get(path)).body.name).not.toBe('PRODUCTION_SERVER');
  });

  it('updates the server type of one host', async () => {
    const put = await h.owner.put('/usage/hosts/6f0000000000000000000005', { serverType: { name: 'TEST_SERVER' } });
    expect(put.status).toBe(200);
    const res = await h.owner.get(`/usage/groups/${W.searchProd}/hosts?${NOV}`);
    expect(res.body.results[0].serverType).toEqual({ name: 'TEST_SERVER', label: 'Test Server' });
    expect((await h.owner.put(`/usage/hosts/${W.missing}`, { serverType: { name: 'TEST_SERVER' } })).status).toBe(404);
  });

  it('takes the hostname an assignment listing shows for the host id (the API shows no host id)', async () => {
    const listed = await h.owner.get(`/usage/groups/${W.paymentsProd}/hosts?${NOV}`);
    const hostname: string = listed.body.results[0].hostname;
    const put = await h.owner.put(`/usage/hosts/${hostname}`, { serverType: { name: 'RAM_POOL' } });
    expect(put.status).toBe(200);
    const res = await h.owner.get(`/usage/groups/${W.paymentsProd}/hosts?${NOV}`);
    expect(res.body.results[0]).toMatchObject({ hostname, serverType: { name: 'RAM_POOL', label: 'RAM Pool' } });
    expect(res.body.results[1].serverType.name).toBe('PRODUCTION_SERVER');
    expect((await h.owner.put('/usage/hosts/nowhere.example', { serverType: { name: 'DEV_SERVER' } })).status).toBe(
      404,
    );
  });

  it('records the host by its id and hostname in the event, whichever of them the path named', async () => {
    const events = async () =>
      (await h.owner.get(`/groups/${W.paymentsProd}/events?eventType=HOST_SERVER_TYPE_CHANGED_AUDIT`)).body.results;
    const host = { hostId: '6f0000000000000000000001', hostname: 'pay-prod-0.acme.internal' };
    expect((await h.owner.put(`/usage/hosts/${host.hostname}`, { serverType: { name: 'TEST_SERVER' } })).status).toBe(
      200,
    );
    expect((await h.owner.put(`/usage/hosts/${host.hostId}`, { serverType: { name: 'DEV_SERVER' } })).status).toBe(200);
    const [byId, byName] = await events();
    for (const ev of [byName, byId]) {
      expect(ev).toMatchObject({ groupId: W.paymentsProd, ...host });
      expect(ev.diffs[0]).toMatchObject({ id: host.hostId, name: host.hostname });
    }
    expect(byName.diffs[0].params).toEqual([
      { display: 'Server type', param: 'serverType', old: 'PRODUCTION_SERVER', new: 'TEST_SERVER' },
    ]);
  });
});

describe('host assignments of a hand-written seed', () => {
  // The example seed lists its assignments already in hostname order, so it cannot show the sort.
  const ORG = '5e2211c17a3e5a48f5497e00';
  const PROJ = '5e2211c17a3e5a48f5497e01';
  let s: EmulatorHarness;
  beforeAll(async () => {
    const assignment = (hostId: string, hostname: string) => ({
      groupId: PROJ,
      hostId,
      hostname,
      serverType: 'DEV_SERVER',
      processes: [{ cluster: 'c', name: `${hostname}:27017`, processType: 7, hasConflictingServerType: false }],
    });
    s = await startHarness({
      seed: {
        organizations: [{ id: ORG, name: 'o' }],
        projects: [{ id: PROJ, name: 'p', orgId: ORG }],
        apiKeys: [{ ...K.owner, desc: 'owner', roles: [{ roleName: 'GLOBAL_OWNER' }] }],
        hostAssignments: [
          assignment('6f0000000000000000000e03', 'c.example'),
          assignment('6f0000000000000000000e01', 'a.example'),
          assignment('6f0000000000000000000e02', 'b.example'),
        ],
      },
    });
  });
  afterAll(async () => {
    await s.emu.close();
  });

  it('lists them sorted by hostname, so pages do not depend on the seed order', async () => {
    const res = await s.owner.get(`/usage/groups/${PROJ}/hosts?${NOV}`);
    expect(res.body.results.map((r: { hostname: string }) => r.hostname)).toEqual([
      'a.example',
      'b.example',
      'c.example',
    ]);
  });
});

describe('a host that moved between projects', () => {
  // moved.example was in project A until October, then (with the same host id) in project B; in C it was re-registered (a new host id) in
  // July; in D it kept its id and changed type in July. One hostname, six assignments, four projects.
  const ORG = '5e2211c17a3e5a48f5497e10';
  const [A, B, C, D] = [
    '5e2211c17a3e5a48f5497e11',
    '5e2211c17a3e5a48f5497e12',
    '5e2211c17a3e5a48f5497e13',
    '5e2211c17a3e5a48f5497e14',
  ];
  const id = (n: number) => `6f0000000000000000000e${n}`;
  let s: EmulatorHarness;
  beforeAll(async () => {
    const assignment = (groupId: string, hostId: string, serverType: string, dates: Record<string, string>) => ({
      groupId,
      hostId,
      hostname: 'moved.example',
      serverType,
      processes: [],
      ...dates,
    });
    s = await startHarness({
      seed: {
        organizations: [{ id: ORG, name: 'o' }],
        projects: [A, B, C, D].map((p, i) => ({ id: p, name: `p${i}`, orgId: ORG })),
        apiKeys: [{ ...K.owner, desc: 'owner', roles: [{ roleName: 'GLOBAL_OWNER' }] }],
        hostAssignments: [
          assignment(A, id(11), 'DEV_SERVER', { to: '2026-10-01' }),
          assignment(B, id(11), 'TEST_SERVER', { from: '2026-10-02' }),
          assignment(C, id(13), 'DEV_SERVER', { to: '2026-06-30' }),
          assignment(C, id(14), 'TEST_SERVER', { from: '2026-07-01' }),
          assignment(D, id(15), 'DEV_SERVER', { to: '2026-06-30' }),
          assignment(D, id(15), 'RAM_POOL', { from: '2026-07-01' }),
        ],
      },
    });
  });
  afterAll(async () => {
    await s.emu.close();
  });

  it('records the change of each host in its own project, with its old type (of its first assignment)', async () => {
    const put = await s.owner.put('/usage/hosts/moved.example', { serverType: { name: 'PRODUCTION_SERVER' } });
    expect(put.status).toBe(200);
    const expected: Record<string, [string, string][]> = {
      [A]: [[id(11), 'DEV_SERVER']],
      [B]: [[id(11), 'TEST_SERVER']],
      [C]: [
        [id(14), 'TEST_SERVER'],
        [id(13), 'DEV_SERVER'],
      ],
      [D]: [[id(15), 'DEV_SERVER']],
    };
    for (const [groupId, hosts] of Object.entries(expected)) {
      const res = await s.owner.get(`/groups/${groupId}/events?eventType=HOST_SERVER_TYPE_CHANGED_AUDIT`);
      // biome-ignore lint/suspicious/noExplicitAny: an event as answered
      const seen = res.body.results.map((ev: any) => {
        expect(ev).toMatchObject({ groupId, hostname: 'moved.example' });
        expect(ev.diffs[0].params).toHaveLength(1);
        expect(ev.diffs[0].params[0].new).toBe('PRODUCTION_SERVER');
        return [ev.hostId, ev.diffs[0].params[0].old];
      });
      expect(seen).toEqual(hosts);
    }
  });
});
