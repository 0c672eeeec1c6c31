// Scenario: the roles matrix over HTTP with the example keys: each operation either proceeds (any status but 401) or
// answers 401 USER_UNAUTHORIZED; the role check comes before validation and before existence checks of children.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHarness, K, type KeyPair, startHarness, W } from '../../helpers/emulator-client.ts';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.emu.close();
});

const KEYS: Record<string, KeyPair> = {
  owner: K.owner,
  jdoe: K.jdoe,
  viewer: K.viewer,
  member: K.member,
  automation: K.automation,
};

// [operation, method, path, raw body, keys allowed]. Write bodies are invalid on purpose: allowed => 400, never a change.
const MATRIX: [string, string, string, string | undefined, string[]][] = [
  [
    'list alert configs (own project)',
    'GET',
    `/groups/${W.paymentsProd}/alertConfigs`,
    undefined,
    ['owner', 'jdoe', 'viewer', 'automation'],
  ],
  ['list alert configs (other project)', 'GET', `/groups/${W.ledgerProd}/alertConfigs`, undefined, ['owner', 'viewer']],
  ['create alert config', 'POST', `/groups/${W.paymentsProd}/alertConfigs`, '{}', ['owner', 'jdoe']],
  ['replace alert config', 'PUT', `/groups/${W.paymentsProd}/alertConfigs/${W.missing}`, '{}', ['owner', 'jdoe']],
  ['toggle alert config', 'PATCH', `/groups/${W.paymentsProd}/alertConfigs/${W.missing}`, '{}', ['owner', 'jdoe']],
  [
    'delete alert config',
    'DELETE',
    `/groups/${W.paymentsProd}/alertConfigs/${W.missing}`,
    undefined,
    ['owner', 'jdoe'],
  ],
  [
    'matcher field names',
    'GET',
    '/alertConfigs/matchers/fieldNames',
    undefined,
    ['owner', 'jdoe', 'viewer', 'member', 'automation'],
  ],
  [
    'get audit-log rotation',
    'GET',
    `/groups/${W.paymentsProd}/automationConfig/auditLogRotateConfig`,
    undefined,
    ['owner', 'jdoe', 'automation'],
  ],
  [
    'set audit-log rotation',
    'PUT',
    `/groups/${W.paymentsProd}/automationConfig/auditLogRotateConfig`,
    '{"x":1}',
    ['owner', 'jdoe', 'automation'],
  ],
  ['list physical hosts', 'GET', '/usage/groups', undefined, ['owner']],
  ['create physical host', 'POST', '/usage/groups', '{}', ['owner']],
  ['project host assignments', 'GET', `/usage/groups/${W.paymentsProd}/hosts`, undefined, ['owner']],
  ['org host assignments', 'GET', `/usage/organizations/${W.acme}/hosts`, undefined, ['owner']],
  ['host server type', 'PUT', `/usage/hosts/${W.missing}`, '{}', ['owner']],
  ['project default server type', 'GET', `/usage/groups/${W.paymentsProd}/defaultServerType`, undefined, ['owner']],
  ['set org default server type', 'PUT', `/usage/organizations/${W.acme}/defaultServerType`, '{}', ['owner']],
  ['get team', 'GET', `/orgs/${W.acme}/teams/${W.dbaOncall}`, undefined, ['owner', 'viewer', 'member']],
  ['project events', 'GET', `/groups/${W.paymentsProd}/events`, undefined, ['owner', 'jdoe', 'viewer', 'automation']],
  [
    'one project event',
    'GET',
    `/groups/${W.paymentsProd}/events/${W.missing}`,
    undefined,
    ['owner', 'jdoe', 'viewer', 'automation'],
  ],
  ['org events', 'GET', `/orgs/${W.acme}/events`, undefined, ['owner', 'viewer', 'member']],
  ['org events of another org', 'GET', `/orgs/${W.globex}/events`, undefined, ['owner', 'viewer']],
  ['upload version manifest', 'PUT', '/versionManifest', '[]', ['owner']],
  ['list S3 configs', 'GET', '/admin/backup/snapshot/s3Configs', undefined, ['owner', 'viewer']],
  ['delete S3 config', 'DELETE', '/admin/backup/snapshot/s3Configs/none', undefined, ['owner']],
];

describe.each(MATRIX)('%s', (_op, method, path, body, allowed) => {
  it.each(Object.keys(KEYS))('as %s', async (name) => {
    const res = await h.as(KEYS[name] as KeyPair).request(method, path, undefined, body);
    if (allowed.includes(name)) {
      expect(res.status).not.toBe(401);
    } else {
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('USER_UNAUTHORIZED');
    }
  });
});
