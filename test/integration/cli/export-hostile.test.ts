// Scenario: `export` against a hostile Ops Manager (a scripted Digest server): a 500 on a later page of one project's
// list fails the run with nothing written under --out, even after another project was read; odd configs (unknown
// notification type, wrong types) are skipped by id with a reason; a config without an id fails the project naming it;
// thousands of configs export in one pass; no secret or mask reaches stdout, stderr or a file.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../lambdas/cli/main.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import {
  type DigestServer,
  type ScriptedReply,
  type ScriptedRequest,
  startDigestServer,
} from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const P = '5e2211c17a3e5a48f5497de3';
const Q = '5e2211c17a3e5a48f5497de4';
const SECRET = 'xoxb-real-token-HOSTILE-0001';

/** The alert configs each project answers; a project missing here answers 404. */
let lists: Record<string, unknown[]> = {};
/** Pages (1-based) answered 500 for a project. */
let failingPage: Record<string, number> = {};
let server: DigestServer;
let dir: string;

function page(request: ScriptedRequest, all: unknown[]): ScriptedReply {
  const size = Number(request.query.get('itemsPerPage') ?? 100);
  const num = Number(request.query.get('pageNum') ?? 1);
  const results = all.slice((num - 1) * size, num * size);
  const next = new URL(request.url, server.origin);
  next.searchParams.set('pageNum', String(num + 1));
  const links = num * size < all.length ? [{ rel: 'next', href: next.href }] : [];
  return { json: { results, totalCount: all.length, links } };
}

function handler(request: ScriptedRequest): ScriptedReply {
  const m = /\/groups\/([0-9a-f]{24})\/(alertConfigs|.*)$/.exec(request.pathname);
  const project = m?.[1] ?? '';
  if (m?.[2] === 'alertConfigs') {
    if (lists[project] === undefined) return { status: 404, json: { errorCode: 'GROUP_NOT_FOUND', detail: 'no' } };
    if (failingPage[project] === Number(request.query.get('pageNum') ?? 1)) {
      return { status: 500, json: { errorCode: 'UNEXPECTED_ERROR', detail: 'boom' } };
    }
    return page(request, lists[project] as unknown[]);
  }
  if (request.pathname.endsWith('/auditLogRotateConfig')) return { json: {} };
  if (request.pathname.endsWith('/defaultServerType')) return { json: { serverType: { name: 'PRODUCTION_SERVER' } } };
  return { status: 404, json: { errorCode: 'RESOURCE_NOT_FOUND', detail: 'none' } };
}

function alert(i: number, body: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `6c99${String(i).padStart(20, '0')}`,
    groupId: P,
    created: '2026-09-01T08:00:00Z',
    enabled: true,
    eventTypeName: 'HOST_DOWN',
    matchers: [],
    notifications: [{ typeName: 'SLACK', channelName: '#ops', apiToken: `****************${SECRET.slice(-4)}` }],
    ...body,
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-hostile-'));
  server = await startDigestServer({ password: TEST_PRIVATE_KEY, handler });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const env = { OPSMAN_BASE_URL: server.baseUrl, OPSMAN_PUBLIC_KEY: 'pubkey', OPSMAN_PRIVATE_KEY: TEST_PRIVATE_KEY };
  const io = recordingIo({ env });
  const code = await runCli([...argv, '--request-timeout', '5'], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

function expectNoSecret(text: string): void {
  expect(text).not.toContain(SECRET);
  expect(text).not.toMatch(/\*{4,}/);
  expect(text).not.toContain(TEST_PRIVATE_KEY);
}

describe('export against a hostile Ops Manager', { timeout: 120_000 }, () => {
  it('fails on a 500 on a later page with nothing written, although another project was read', async () => {
    lists = { [P]: [alert(1)], [Q]: Array.from({ length: 1200 }, (_, i) => alert(i + 2, { groupId: Q })) };
    failingPage = { [Q]: 2 };
    const out = join(dir, 'mid-page');
    const run = await cli(['export', '--project', P, '--project', Q, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`export of project ${Q} failed:`);
    expect(run.err).toContain('nothing was written');
    expect(await readdir(out).catch(() => [])).toEqual([]);
    expectNoSecret(run.err);
  });

  it('skips odd configs by id with a reason, fails a config without id by name, never crashes', async () => {
    failingPage = {};
    lists = {
      [P]: [
        alert(1),
        alert(2, { notifications: [{ typeName: 'CARRIER_PIGEON', apiToken: '****1234', channelName: '#x' }] }),
        alert(3, { eventTypeName: 'NO_PRIMARY', notifications: null }),
        alert(4, { eventTypeName: 'HOST_RECOVERING', enabled: 'yes' }),
        alert(5, {
          eventTypeName: 'HOST_RESTARTED',
          matchers: [{ fieldName: 'HOSTNAME', operator: 'EQUALS', value: 7 }],
        }),
      ],
    };
    const run = await cli(['export', '--project', P]);
    expect(run.code).toBe(0);
    expect(run.err).toContain(`Exported project ${P}: 2 alert config(s), 3 skipped`);
    for (const i of [2, 3, 4]) expect(run.err).toContain(`skipped alert config 6c99${String(i).padStart(20, '0')}`);
    expect(run.out).toContain('value: "7"');
    expectNoSecret(run.out);
    expectNoSecret(run.err);

    lists = { [P]: [alert(1), { ...alert(2), id: undefined }] };
    const malformed = await cli(['export', '--project', P]);
    expect(malformed.code).toBe(1);
    expect(malformed.err).toContain('LIVE_MALFORMED');
    expect(malformed.err).toContain('alert config #2');
    expect(malformed.out).toBe('');
  });

  it('exports thousands of configs of one event type in one run, keys unique', async () => {
    lists = { [P]: Array.from({ length: 3000 }, (_, i) => alert(i + 1)) };
    const started = Date.now();
    const run = await cli(['export', '--project', P]);
    expect(run.code).toBe(0);
    expect(run.err).toContain(`Exported project ${P}: 3000 alert config(s)`);
    const keys = [...run.out.matchAll(/- key: (\S+)/g)].map((k) => k[1]);
    expect(new Set(keys).size).toBe(3000);
    expect(keys.at(-1)).toBe('host-down-3000');
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
