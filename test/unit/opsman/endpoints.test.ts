// Scenario: every typed method sends the right method, path, query and body, accepts any 2xx (empty bodies included), and normalises the serverType variants on read.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createOpsManagerClient,
  normalizeServerType,
  type OpsManagerClient,
  OpsManagerValidationError,
} from '../../../lambdas/opsman/index.ts';
import {
  type DigestServer,
  type ScriptedReply,
  type ScriptedRequest,
  startDigestServer,
} from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const G = '5e2211c17a3e5a48f5497de3';
const O = '5e2211c17a3e5a48f5497de0';
const ST = { name: 'PRODUCTION_SERVER' as const, label: 'Production Server' };
const LIST = { results: [], links: [{ rel: 'self', href: 'x' }], totalCount: 0 };
const ALERT_BODY = {
  eventTypeName: 'HOST_DOWN',
  enabled: true,
  notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
};
/** ALERT_BODY as sent: the spec's request form of one role, `role: <string>` (lambdas/opsman/role-wire.ts). */
const ALERT_WIRE = { ...ALERT_BODY, notifications: [{ typeName: 'GROUP', role: 'GROUP_OWNER' }] };
const HOST_BODY = { name: 'ph1', serverType: ST, virtualHosts: [{ groupId: G, hostname: 'h1.example' }] };

/** The answer to the next request: fixed, or computed per request. */
let reply: ScriptedReply | ((req: ScriptedRequest) => ScriptedReply) = { json: {} };
const seen: ScriptedRequest[] = [];
let server: DigestServer;
let client: OpsManagerClient;

beforeAll(async () => {
  server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    publicPaths: ['/api/public/v1.0/unauth/'],
    handler: (req) => {
      seen.push(req);
      return typeof reply === 'function' ? reply(req) : reply;
    },
  });
  client = createOpsManagerClient({ baseUrl: `${server.baseUrl}/`, publicKey: 'pubkey', privateKey: TEST_PRIVATE_KEY });
  return async () => {
    await client.close();
    await server.close();
  };
});
afterEach(() => {
  seen.length = 0;
  reply = { json: {} };
});

type Case = [string, (c: OpsManagerClient) => Promise<unknown>, string, string, unknown?, ScriptedReply?];
const P = '/api/public/v1.0';
const cases: Case[] = [
  [
    'listAlertConfigs',
    (c) => c.listAlertConfigs(G),
    'GET',
    `${P}/groups/${G}/alertConfigs?pageNum=1&itemsPerPage=500`,
    undefined,
    { json: LIST },
  ],
  ['getAlertConfig', (c) => c.getAlertConfig(G, 'a1'), 'GET', `${P}/groups/${G}/alertConfigs/a1`],
  ['createAlertConfig', (c) => c.createAlertConfig(G, ALERT_BODY), 'POST', `${P}/groups/${G}/alertConfigs`, ALERT_WIRE],
  [
    'updateAlertConfig',
    (c) => c.updateAlertConfig(G, 'a1', ALERT_BODY),
    'PUT',
    `${P}/groups/${G}/alertConfigs/a1`,
    ALERT_WIRE,
  ],
  [
    'setAlertConfigEnabled',
    (c) => c.setAlertConfigEnabled(G, 'a1', false),
    'PATCH',
    `${P}/groups/${G}/alertConfigs/a1`,
    { enabled: false },
  ],
  [
    'deleteAlertConfig',
    (c) => c.deleteAlertConfig(G, 'a1'),
    'DELETE',
    `${P}/groups/${G}/alertConfigs/a1`,
    undefined,
    { status: 204 },
  ],
  [
    'listMatcherFieldNames',
    (c) => c.listMatcherFieldNames(),
    'GET',
    `${P}/alertConfigs/matchers/fieldNames`,
    undefined,
    { json: ['HOSTNAME'] },
  ],
  [
    'getAuditLogRotateConfig',
    (c) => c.getAuditLogRotateConfig(G),
    'GET',
    `${P}/groups/${G}/automationConfig/auditLogRotateConfig`,
  ],
  [
    'setAuditLogRotateConfig',
    (c) => c.setAuditLogRotateConfig(G, { sizeThresholdMB: 100, timeThresholdHrs: 24 }),
    'PUT',
    `${P}/groups/${G}/automationConfig/auditLogRotateConfig`,
    { sizeThresholdMB: 100, timeThresholdHrs: 24 },
  ],
  [
    'listPhysicalHosts',
    (c) => c.listPhysicalHosts(),
    'GET',
    `${P}/usage/groups?pageNum=1&itemsPerPage=500`,
    undefined,
    { json: LIST },
  ],
  [
    'getPhysicalHost',
    (c) => c.getPhysicalHost('ph1'),
    'GET',
    `${P}/usage/groups/ph1`,
    undefined,
    { json: { id: 'ph1', name: 'n', serverType: 'DEV_SERVER', hosts: [] } },
  ],
  [
    'createPhysicalHost',
    (c) => c.createPhysicalHost(HOST_BODY),
    'POST',
    `${P}/usage/groups`,
    HOST_BODY,
    { json: { id: 'ph1', name: 'n', serverType: 'DEV_SERVER', hosts: [] } },
  ],
  [
    'updatePhysicalHost',
    (c) => c.updatePhysicalHost('ph1', HOST_BODY),
    'PUT',
    `${P}/usage/groups/ph1`,
    HOST_BODY,
    { json: { id: 'ph1', name: 'n', serverType: ST, hosts: [] } },
  ],
  ['deletePhysicalHost', (c) => c.deletePhysicalHost('ph1'), 'DELETE', `${P}/usage/groups/ph1`],
  [
    'listProjectHostAssignments',
    (c) => c.listProjectHostAssignments(G, '2026-01-01', '2026-01-31'),
    'GET',
    `${P}/usage/groups/${G}/hosts?startDate=2026-01-01&endDate=2026-01-31&pageNum=1&itemsPerPage=500`,
    undefined,
    { json: LIST },
  ],
  [
    'listOrgHostAssignments',
    (c) => c.listOrgHostAssignments(O, '2026-01-01', '2026-01-31'),
    'GET',
    `${P}/usage/organizations/${O}/hosts?startDate=2026-01-01&endDate=2026-01-31&pageNum=1&itemsPerPage=500`,
    undefined,
    { json: LIST },
  ],
  [
    'setHostServerType',
    (c) => c.setHostServerType('host-1', ST),
    'PUT',
    `${P}/usage/hosts/host-1`,
    { serverType: ST },
    { status: 200 },
  ],
  [
    'getProjectDefaultServerType',
    (c) => c.getProjectDefaultServerType(G),
    'GET',
    `${P}/usage/groups/${G}/defaultServerType`,
  ],
  [
    'setProjectDefaultServerType',
    (c) => c.setProjectDefaultServerType(G, ST),
    'PUT',
    `${P}/usage/groups/${G}/defaultServerType`,
    { serverType: ST },
    { status: 200 },
  ],
  [
    'getOrgDefaultServerType',
    (c) => c.getOrgDefaultServerType(O),
    'GET',
    `${P}/usage/organizations/${O}/defaultServerType`,
  ],
  [
    'setOrgDefaultServerType',
    (c) => c.setOrgDefaultServerType(O, ST),
    'PUT',
    `${P}/usage/organizations/${O}/defaultServerType`,
    { serverType: ST },
    { status: 202 },
  ],
  ['getTeam', (c) => c.getTeam(O, '6a1f00000000000000000001'), 'GET', `${P}/orgs/${O}/teams/6a1f00000000000000000001`],
  [
    'listProjectEvents',
    (c) => c.listProjectEvents(G, { minDate: '2026-01-01T00:00:00Z', maxDate: '2026-02-01T00:00:00Z' }),
    'GET',
    `${P}/groups/${G}/events?minDate=2026-01-01T00%3A00%3A00Z&maxDate=2026-02-01T00%3A00%3A00Z&pageNum=1&itemsPerPage=500`,
    undefined,
    { json: LIST },
  ],
  [
    'getProjectEvent',
    (c) => c.getProjectEvent(G, 'e1', { includeRaw: true }),
    'GET',
    `${P}/groups/${G}/events/e1?includeRaw=true`,
  ],
  [
    'listOrgEvents',
    (c) => c.listOrgEvents(O),
    'GET',
    `${P}/orgs/${O}/events?pageNum=1&itemsPerPage=500`,
    undefined,
    { json: LIST },
  ],
  ['getOrgEvent', (c) => c.getOrgEvent(O, 'e2'), 'GET', `${P}/orgs/${O}/events/e2`],
  ['getVersionManifest', (c) => c.getVersionManifest(), 'GET', `${P}/unauth/versionManifest`],
  [
    'putVersionManifest',
    (c) => c.putVersionManifest('{"versions":[],"updated":1}'),
    'PUT',
    `${P}/versionManifest`,
    { versions: [], updated: 1 },
  ],
  [
    'listS3Configs',
    (c) => c.listS3Configs(),
    'GET',
    `${P}/admin/backup/snapshot/s3Configs?pageNum=1&itemsPerPage=500`,
    undefined,
    { json: LIST },
  ],
  ['getS3Config', (c) => c.getS3Config('my store'), 'GET', `${P}/admin/backup/snapshot/s3Configs/my%20store`],
  [
    'createS3Config',
    (c) => c.createS3Config({ id: 's3a', s3BucketName: 'b', acceptedTos: true }),
    'POST',
    `${P}/admin/backup/snapshot/s3Configs`,
    { id: 's3a', s3BucketName: 'b', acceptedTos: true },
  ],
  [
    'updateS3Config',
    (c) => c.updateS3Config('s3a', { id: 's3a', s3BucketName: 'c' }),
    'PUT',
    `${P}/admin/backup/snapshot/s3Configs/s3a`,
    { id: 's3a', s3BucketName: 'c' },
  ],
  [
    'deleteS3Config',
    (c) => c.deleteS3Config('s3a'),
    'DELETE',
    `${P}/admin/backup/snapshot/s3Configs/s3a`,
    undefined,
    { status: 204 },
  ],
];

describe('typed endpoints', () => {
  it.each(cases)('%s', async (_name, call, method, url, body, answer) => {
    reply = answer ?? { json: { id: 'x', name: 'n', links: [] } };
    await call(client);
    expect(seen.map((r) => [r.method, r.url])).toEqual([[method, url]]);
    expect(seen[0]?.body === '' ? undefined : JSON.parse(seen[0]?.body ?? '')).toEqual(body);
    if (body !== undefined) expect(seen[0]?.headers['content-type']).toBe('application/json');
  });

  it('sends the version manifest text unaltered', async () => {
    const text = '{\n  "updated": 1.0e3,\n  "versions": [ ]\n}\n';
    reply = { text: '{"updated":1000}' };
    const doc = await client.putVersionManifest(text);
    expect(seen[0]?.body).toBe(text);
    expect(doc).toEqual({ text: '{"updated":1000}', value: { updated: 1000 } });
  });

  it('reads a manifest answered without a body as no document, its text kept', async () => {
    reply = { status: 200 };
    expect(await client.putVersionManifest('{}')).toEqual({ text: '', value: null });
    reply = { text: ' \n' };
    expect(await client.getVersionManifest()).toEqual({ text: ' \n', value: null });
  });

  it.each([
    ['an empty body', { status: 200 } as ScriptedReply, null],
    ['a bare object', { json: ST } as ScriptedReply, ST],
    ['a wrapped object', { json: { serverType: ST } } as ScriptedReply, ST],
    ['a bare string', { json: 'RAM_POOL' } as ScriptedReply, { name: 'RAM_POOL', label: 'RAM Pool' }],
    ['an empty object', { json: {} } as ScriptedReply, null],
    ['an object with an empty name', { json: { name: '', label: '' } } as ScriptedReply, null],
  ])('reads a default server type from %s', async (_name, answer, expected) => {
    reply = answer;
    expect(await client.getProjectDefaultServerType(G)).toEqual(expected);
  });

  it('normalises physical hosts and host assignments', async () => {
    reply = {
      json: {
        results: [{ id: 'p', name: 'n', serverType: 'DEV_SERVER', hosts: [{ groupId: G, hostname: 'h' }] }],
        links: [],
      },
    };
    expect(await client.listPhysicalHosts()).toEqual([
      {
        id: 'p',
        name: 'n',
        serverType: { name: 'DEV_SERVER', label: 'Dev Server' },
        hosts: [{ groupId: G, hostname: 'h' }],
      },
    ]);
    reply = {
      json: {
        results: [
          { hostname: 'h', serverType: 'TEST_SERVER', processes: [{ cluster: { name: 'c1' }, processType: 7 }] },
        ],
        links: [],
      },
    };
    expect(await client.listOrgHostAssignments(O, '2026-01-01', '2026-01-02')).toEqual([
      {
        hostname: 'h',
        serverType: { name: 'TEST_SERVER', label: 'Test Server' },
        processes: [{ cluster: 'c1', processType: 7 }],
      },
    ]);
  });

  it('reads a physical host answered without hosts (none bound) as hosts []', async () => {
    reply = { json: { results: [{ id: 'p', name: 'n', serverType: { name: 'RAM_POOL' } }], links: [] } };
    expect(await client.listPhysicalHosts()).toEqual([
      { id: 'p', name: 'n', serverType: { name: 'RAM_POOL', label: 'RAM Pool' }, hosts: [] },
    ]);
  });

  it('reads a host assignment answered without processes as processes []', async () => {
    reply = { json: { results: [{ hostname: 'h', serverType: { name: 'DEV_SERVER' } }], links: [] } };
    expect(await client.listProjectHostAssignments(G, '2026-01-01', '2026-01-31')).toEqual([
      { hostname: 'h', serverType: { name: 'DEV_SERVER', label: 'Dev Server' }, processes: [] },
    ]);
  });

  it('an empty audit-log body reads as {}', async () => {
    reply = { status: 200 };
    expect(await client.getAuditLogRotateConfig(G)).toEqual({});
  });

  it.each([
    ['an empty id', (c: OpsManagerClient) => c.getAlertConfig(G, ''), /alertConfigId must be a non-empty string/],
    ['a control character', (c: OpsManagerClient) => c.getTeam(O, 'a\nb'), /teamId must be a non-empty string/],
    [
      'a bad date',
      (c: OpsManagerClient) => c.listProjectHostAssignments(G, '2026-1-1', '2026-01-02'),
      /startDate must be an ISO 8601 date/,
    ],
    [
      'a day the month does not have',
      (c: OpsManagerClient) => c.listOrgHostAssignments(O, '2026-02-01', '2026-02-30'),
      /endDate must be an ISO 8601 date \(YYYY-MM-DD\) that exists, got "2026-02-30"/,
    ],
    ['a manifest that is not JSON', (c: OpsManagerClient) => c.putVersionManifest('{nope'), /the manifest is not JSON/],
  ])('rejects %s before sending anything', async (_name, call, message) => {
    const error = await call(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerValidationError);
    expect((error as Error).message).toMatch(message);
    expect(seen).toEqual([]);
  });

  it('a getter with an empty body fails clearly', async () => {
    reply = { status: 200 };
    await expect(client.getTeam(O, 't')).rejects.toMatchObject({
      name: 'OpsManagerResponseError',
      code: 'OPSMAN_INVALID_RESPONSE',
    });
  });

  it('a 2xx body that is not JSON fails clearly', async () => {
    reply = { text: '<html>' };
    await expect(client.getAlertConfig(G, 'a1')).rejects.toThrow(/the response is not JSON/);
  });
});

describe('a base URL at the root of its host (a proxy that maps / to the API)', () => {
  it('sends single paths and follows next links without a doubled slash', async () => {
    const c = createOpsManagerClient({
      baseUrl: `${server.origin}/`,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
    });
    try {
      reply = { json: { id: 't', name: 'dba' } };
      await c.getTeam(O, 't');
      let page = 0;
      reply = () => {
        page++;
        const links = [{ rel: 'self', href: `${server.origin}/groups/${G}/alertConfigs?pageNum=${page}` }];
        if (page === 1)
          links.push({ rel: 'next', href: `${server.origin}/groups/${G}/alertConfigs?pageNum=2&itemsPerPage=500` });
        return { json: { results: [{ id: `a${page}` }], links, totalCount: 2 } };
      };
      const all = await c.listAlertConfigs(G);
      expect(all.map((a) => a.id)).toEqual(['a1', 'a2']);
      expect(seen.map((r) => r.url)).toEqual([
        `/orgs/${O}/teams/t`,
        `/groups/${G}/alertConfigs?pageNum=1&itemsPerPage=500`,
        `/groups/${G}/alertConfigs?pageNum=2&itemsPerPage=500`,
      ]);
    } finally {
      await c.close();
    }
  });
});

describe('close', () => {
  it('is idempotent and refuses later requests without sending them', async () => {
    const c = createOpsManagerClient({ baseUrl: server.baseUrl, publicKey: 'pubkey', privateKey: TEST_PRIVATE_KEY });
    await Promise.all([c.close(), c.close()]);
    await c.close();
    const error = await c.getTeam(O, 't').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerValidationError);
    expect((error as Error).message).toMatch(/the client is closed/);
    expect(seen).toEqual([]);
  });
});

describe('normalizeServerType', () => {
  it.each([
    [null, null],
    ['', null],
    [42, null],
    ['CUSTOM', { name: 'CUSTOM' }],
    [{ name: 'DEV_SERVER' }, { name: 'DEV_SERVER', label: 'Dev Server' }],
    [{ serverType: 'TEST_SERVER' }, { name: 'TEST_SERVER', label: 'Test Server' }],
    [
      { name: 'RAM_POOL', label: 'Ram Pool' },
      { name: 'RAM_POOL', label: 'Ram Pool' },
    ],
  ])('%j -> %j', (input, expected) => {
    expect(normalizeServerType(input)).toEqual(expected);
  });
});
