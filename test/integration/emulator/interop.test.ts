// Scenario: independent Digest clients against the emulator: curl --digest and GNU wget (spawned; wget where
// installed), Python's standard-library urllib HTTPDigestAuthHandler and Python requests' HTTPDigestAuth (spawned
// python3; requests only where installed), each with a query string and a POST with a JSON body; requests reuses its
// nonce with a rising nc.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHarness, K, startHarness, W } from '../../helpers/emulator-client.ts';

const run = promisify(execFile);
let h: EmulatorHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.emu.close();
});

const creds = `${K.owner.publicKey}:${K.owner.privateKey}`;
const body = JSON.stringify({
  eventTypeName: 'PRIMARY_ELECTED',
  enabled: true,
  notifications: [{ typeName: 'EMAIL', emailAddress: 'interop@acme.example', intervalMin: 5 }],
});

async function curl(args: string[]): Promise<{ status: number; body: string }> {
  const { stdout } = await run('curl', ['-sS', '--digest', '-u', creds, '-w', '\n%{http_code}', ...args], {
    timeout: 20_000,
  });
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

describe('curl --digest', () => {
  it('GETs a list with a query string', async () => {
    const res = await curl([`${h.emu.url}/groups/${W.paymentsProd}/events?eventType=JOINED_GROUP&itemsPerPage=5`]);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).results.map((e: { eventTypeName: string }) => e.eventTypeName)).toEqual([
      'JOINED_GROUP',
    ]);
  });

  it('POSTs a JSON body', async () => {
    const res = await curl([
      '-X',
      'POST',
      '-H',
      'Content-Type: application/json',
      '--data-binary',
      body,
      `${h.emu.url}/groups/${W.analyticsDev}/alertConfigs?pretty=true`,
    ]);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      eventTypeName: 'PRIMARY_ELECTED',
      groupId: W.analyticsDev,
      enabled: true,
    });
  });

  it('fails cleanly with a wrong password', async () => {
    const { stdout } = await run('curl', [
      '-sS',
      '--digest',
      '-u',
      'gitopsbt:wrong',
      '-w',
      '\n%{http_code}',
      `${h.emu.url}/usage/groups`,
    ]);
    expect(stdout.trim().endsWith('401')).toBe(true);
  });
});

const PYTHON = `
import json, sys
import requests
from requests.auth import HTTPDigestAuth
base, user, password, group, body = sys.argv[1:6]
auth = HTTPDigestAuth(user, password)
s = requests.Session()
out = []
r = s.get(base + '/groups/' + group + '/alertConfigs', params={'itemsPerPage': '2', 'pageNum': '2'}, auth=auth)
out.append([r.status_code, r.json().get('totalCount'), len(r.json().get('results', []))])
r = s.post(base + '/groups/' + group + '/alertConfigs', data=body, headers={'Content-Type': 'application/json'}, auth=auth)
out.append([r.status_code, r.json().get('eventTypeName'), r.json().get('enabled')])
r = s.get(base + '/groups/' + group + '/alertConfigs', auth=auth)
out.append([r.status_code, r.json().get('totalCount'), 0])
print(json.dumps(out))
`;

// urllib answers every 401 anew: each request is sent bare first, then with a Digest answer to a fresh challenge.
const URLLIB = `
import json, sys, urllib.request
base, user, password, group, body = sys.argv[1:6]
passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
passwords.add_password(None, base, user, password)
opener = urllib.request.build_opener(urllib.request.HTTPDigestAuthHandler(passwords))
out = []
with opener.open(base + '/groups/' + group + '/alertConfigs?itemsPerPage=2&pageNum=2') as r:
    d = json.load(r); out.append([r.status, d.get('totalCount'), len(d.get('results', []))])
req = urllib.request.Request(base + '/groups/' + group + '/alertConfigs', data=body.encode(), headers={'Content-Type': 'application/json'}, method='POST')
with opener.open(req) as r:
    d = json.load(r); out.append([r.status, d.get('eventTypeName'), d.get('enabled')])
print(json.dumps(out))
`;

describe('python urllib HTTPDigestAuthHandler (standard library)', () => {
  it('GETs with a query and POSTs JSON, each after its own challenge', async () => {
    await h.admin('DELETE', '/requests');
    const { stdout } = await run(
      'python3',
      ['-c', URLLIB, h.emu.url, K.owner.publicKey, K.owner.privateKey, W.searchProd, body],
      { timeout: 30_000 },
    );
    expect(JSON.parse(stdout)).toEqual([
      [200, expect.any(Number), 2],
      [200, 'PRIMARY_ELECTED', true],
    ]);
    const log = (await h.admin('GET', '/requests')).body;
    // Two challenged attempts and two authenticated ones.
    expect(log.challenges).toBe(2);
    expect(log.total).toBe(4);
  });
});

/** Python requests is not in the standard library: its test runs where the machine has it. */
const HAS_REQUESTS = spawnSync('python3', ['-c', 'import requests'], { timeout: 10_000 }).status === 0;

describe.runIf(HAS_REQUESTS)('python requests HTTPDigestAuth', () => {
  it('GETs with a query, POSTs JSON, and reuses its nonce', async () => {
    await h.admin('DELETE', '/requests');
    const { stdout } = await run(
      'python3',
      ['-c', PYTHON, h.emu.url, K.owner.publicKey, K.owner.privateKey, W.ledgerProd, body],
      {
        timeout: 30_000,
      },
    );
    expect(JSON.parse(stdout)).toEqual([
      [200, 4, 2],
      [200, 'PRIMARY_ELECTED', true],
      [200, 5, 0],
    ]);
    const log = (await h.admin('GET', '/requests')).body;
    expect(log.challenges).toBe(1);
    expect(log.total).toBe(4);
  });
});

// GNU wget answers a Digest challenge with --user/--password (it sends each request bare first). Only where installed.
const HAS_WGET = spawnSync('wget', ['--version'], { timeout: 10_000 }).status === 0;

describe.runIf(HAS_WGET)('GNU wget --user/--password', () => {
  const wget = async (args: string[]) =>
    (
      await run('wget', ['-q', '-O', '-', `--user=${K.owner.publicKey}`, `--password=${K.owner.privateKey}`, ...args], {
        timeout: 20_000,
      })
    ).stdout;

  it('GETs a list with a query string and POSTs a JSON body', async () => {
    const page = async () =>
      JSON.parse(await wget([`${h.emu.url}/groups/${W.searchProd}/alertConfigs?itemsPerPage=1&pageNum=2`]));
    const before = await page();
    expect(before.results).toHaveLength(1);
    const created = JSON.parse(
      await wget([
        '--header=Content-Type: application/json',
        `--post-data=${body}`,
        `${h.emu.url}/groups/${W.searchProd}/alertConfigs`,
      ]),
    );
    expect(created).toMatchObject({ eventTypeName: 'PRIMARY_ELECTED', groupId: W.searchProd, enabled: true });
    expect((await page()).totalCount).toBe(before.totalCount + 1);
  });

  it('exits non-zero with a wrong password (wget stops at the second 401)', async () => {
    const refused = await run(
      'wget',
      ['-q', '-O', '-', '--user=gitopsbt', '--password=wrong', `${h.emu.url}/usage/groups`],
      {
        timeout: 20_000,
      },
    ).then(
      () => 0,
      (e: { code?: number }) => e.code,
    );
    expect(refused).toBe(6); // wget's exit code for an authentication failure
  });
});
