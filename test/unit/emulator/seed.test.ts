// Scenario: the example seed loads; broken seeds are refused with every problem and its path; the CLI flags parse strictly.

import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliUsageError, parseEmulatorArgs } from '../../../emulator/cli-args.ts';
import { SeedError } from '../../../emulator/errors.ts';
import { buildState } from '../../../emulator/store/seed-build.ts';
import {
  EXAMPLE_SEED_PATH,
  parseSeedText,
  readSeed,
  seedCachePath,
  seedTextHash,
} from '../../../emulator/store/seed-read.ts';
import { toSeedDocument } from '../../../emulator/store/snapshot.ts';

function issuesOf(doc: unknown): string[] {
  try {
    buildState(doc, 'test');
    return [];
  } catch (err) {
    if (err instanceof SeedError) return err.issues;
    throw err;
  }
}

const org = { id: '5e2211c17a3e5a48f5497de0', name: 'acme' };
const project = { id: '5e2211c17a3e5a48f5497de3', name: 'p', orgId: org.id };

describe('the example seed', () => {
  it('loads with the team brief ids, keys and defaults', async () => {
    const { doc, source } = await readSeed(undefined);
    const state = buildState(doc, source);
    expect([...state.orgs.keys()]).toEqual(['5e2211c17a3e5a48f5497de0', '5e2211c17a3e5a48f5497de1']);
    expect(state.groups.size).toBe(5);
    expect([...state.apiKeys.keys()]).toEqual(['gitopsbt', 'jdoekey1', 'roviewer', 'acmemmbr', 'autoadmn']);
    for (const g of state.groups.keys()) {
      const types = [...(state.alertConfigs.get(g)?.values() ?? [])].map((c) => c.eventTypeName);
      expect(types).toEqual(expect.arrayContaining(['HOST_DOWN', 'NO_PRIMARY', 'OUTSIDE_METRIC_THRESHOLD']));
    }
    expect(state.groupServerTypes.get('5e2211c17a3e5a48f5497de3')).toBe('DEV_SERVER');
    expect(state.auditLogRotate.get('5e2211c17a3e5a48f5497de3')?.numTotal).toBe(10);
    expect(JSON.parse(state.versionManifest ?? '{}')).toMatchObject({
      updated: expect.any(Number),
      versions: expect.any(Array),
    });
  });

  it('has a fresh parsed cache (regenerate with `npx tsx emulator/seeds/write-cache.ts`)', async () => {
    const text = await readFile(EXAMPLE_SEED_PATH, 'utf8');
    const cache = JSON.parse(await readFile(seedCachePath(EXAMPLE_SEED_PATH), 'utf8'));
    expect(cache.sha256).toBe(seedTextHash(text));
    expect(cache.doc).toEqual(await parseSeedText(text, EXAMPLE_SEED_PATH));
  });

  it('survives a round trip through the data-file form unchanged', async () => {
    const { doc } = await readSeed(undefined);
    const once = toSeedDocument(buildState(doc, 'a'));
    expect(toSeedDocument(buildState(structuredClone(once), 'b'))).toEqual(once);
  });
});

describe('seed validation', () => {
  it.each([
    ['an unknown section', { organisations: [] }, '(seed).organisations: unknown field'],
    ['a bad id', { organizations: [{ id: 'acme', name: 'acme' }] }, 'organizations[0].id: expected a 24-character'],
    [
      'a project in an unknown org',
      { organizations: [org], projects: [{ ...project, orgId: '5e2211c17a3e5a48f5497de9' }] },
      'projects[0].orgId: unknown organization',
    ],
    [
      'a GROUP role without groupId',
      { organizations: [org], apiKeys: [{ publicKey: 'k', privateKey: 'p', roles: [{ roleName: 'GROUP_OWNER' }] }] },
      'apiKeys[0].roles[0].groupId: required',
    ],
    [
      'an unknown role',
      { apiKeys: [{ publicKey: 'k', privateKey: 'p', roles: [{ roleName: 'EMPEROR' }] }] },
      'apiKeys[0].roles[0].roleName: expected one of',
    ],
    [
      'an invalid alert config',
      {
        organizations: [org],
        projects: [project],
        alertConfigs: [{ groupId: project.id, eventTypeName: 'HOST_DOWN' }],
      },
      'alertConfigs[0]: MISSING_NOTIFICATIONS',
    ],
    [
      'a bad server type',
      { organizations: [org], projects: [project], defaultServerTypes: [{ groupId: project.id, serverType: 'HUGE' }] },
      'defaultServerTypes[0].serverType: INVALID_ENUM_VALUE',
    ],
    [
      'a bad assignment date',
      {
        organizations: [org],
        projects: [project],
        hostAssignments: [{ groupId: project.id, hostname: 'h', serverType: 'DEV_SERVER', from: '2026-13-01' }],
      },
      'hostAssignments[0].from: expected a date',
    ],
    [
      'a manifest that is not JSON',
      { versionManifest: '{nope' },
      'versionManifest: the manifest text is not valid JSON',
    ],
    ['an event without a type', { events: [{ created: '2026-01-01T00:00:00Z' }] }, 'events[0].eventTypeName: required'],
    [
      'an event created on a day that does not exist',
      { events: [{ created: '2026-02-30T10:00:00Z', eventTypeName: 'A' }] },
      'events[0].created: expected an ISO 8601 timestamp',
    ],
    [
      'an event created at hour 24',
      { events: [{ created: '2026-02-01T24:00:00Z', eventTypeName: 'A' }] },
      'events[0].created: expected an ISO 8601 timestamp',
    ],
    // The spec: apiKeyId "when present, userId is omitted"; publicKey "when present, username is omitted".
    [
      'an event by both an API key and a user',
      { events: [{ eventTypeName: 'X', apiKeyId: '6b1f000000000000000000a1', userId: '5f0000000000000000000101' }] },
      'events[0].userId: an event triggered by an API key (apiKeyId) has no userId',
    ],
    [
      'an event with both a public key and a username',
      { events: [{ eventTypeName: 'X', publicKey: 'gitopsbt', username: 'j.doe@acme.example' }] },
      'events[0].username: an event triggered by an API key (publicKey) has no username',
    ],
  ])('reports %s', (_name, doc, expected) => {
    expect(issuesOf(doc).join('\n')).toContain(expected);
  });

  it('reports every problem at once', () => {
    expect(issuesOf({ organizations: [{ id: 1 }, { name: 2 }] })).toHaveLength(4);
  });

  // `--seed my-seed.yaml` from the wrong directory said only `cannot read the file (ENOENT)`.
  it('a seed file that is not there is said in words', async () => {
    const missing = join(tmpdir(), `no-such-seed-${process.pid}.yaml`);
    const err = await readSeed(missing).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SeedError);
    expect((err as SeedError).issues).toEqual([`cannot read the file: ${missing} does not exist (ENOENT)`]);
  });

  it('refuses broken YAML and JSON', async () => {
    await expect(parseSeedText('a: [1,\nb: ]', 'x.yaml')).rejects.toThrow(/not valid YAML/);
    await expect(parseSeedText('a: 1\na: 2\n', 'x.yaml')).rejects.toThrow(/not valid YAML/);
    await expect(parseSeedText('{"a":', 'x.json')).rejects.toThrow(/not valid JSON/);
  });
});

describe('parseEmulatorArgs', () => {
  it.each([
    [[], { host: '127.0.0.1', port: 8080, admin: false }],
    [['--port', '0', '--admin', '--host=0.0.0.0'], { host: '0.0.0.0', port: 0, admin: true }],
    [['--seed', 's.yaml', '--data-file', 'd.json'], { seed: 's.yaml', dataFile: 'd.json' }],
    [['--tls-cert', 'c.pem', '--tls-key', 'k.pem'], { tlsCert: 'c.pem', tlsKey: 'k.pem' }],
    [['-h'], { help: true }],
    [['--max-alert-configs', '25'], { maxAlertConfigs: 25 }],
    [['--max-alert-configs=0'], { maxAlertConfigs: 0 }],
  ])('parses %j', (argv, expected) => {
    expect(parseEmulatorArgs(argv)).toMatchObject(expected);
  });

  it.each([
    [['--port', 'eighty'], '--port must be 0..65535'],
    [['--port', '70000'], '--port must be 0..65535'],
    [['--port'], '--port needs a value'],
    [['--seed', '--admin'], '--seed needs a value'],
    [['--verbose'], 'unknown option "--verbose"'],
    [['--prot', '1'], 'unknown option "--prot" (did you mean --port?)'],
    [['--data-flie=d.json'], 'unknown option "--data-flie=d.json" (did you mean --data-file?)'],
    [['-admin'], 'unknown option "-admin" (did you mean --admin?)'],
    [['--tls'], 'unknown option "--tls"'],
    [['--tls-cert', 'c.pem'], '--tls-cert and --tls-key go together'],
    [['--admin=yes'], '--admin takes no value'],
    [['--max-alert-configs', '-1'], '--max-alert-configs must be a whole number, got "-1"'],
    [['--max-alert-configs', '1e4'], '--max-alert-configs must be a whole number, got "1e4"'],
    [['--max-alert-configs'], '--max-alert-configs needs a value'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseEmulatorArgs(argv)).toThrow(CliUsageError);
    expect(() => parseEmulatorArgs(argv)).toThrow(message);
  });
});
