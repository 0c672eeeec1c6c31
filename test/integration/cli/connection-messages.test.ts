// Scenario: through the CLI, connection problems name the CLI's flags and say what happened: https to the emulator's plain HTTP port is a wrong protocol (fix --base-url), a proxy's HTML 404 is not Ops Manager (check --base-url), a missing --ca-file and --insecure-skip-verify name those flags, never the client's caFile/insecureSkipVerify.

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { REPO_ROOT, toolEnv } from '../../helpers/cli-run.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
let emulator: { url: string; close(): Promise<void> };
let proxy: Server;
let proxyOrigin: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-connection-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
  proxy = createServer((_req, res) =>
    res.writeHead(404, { 'content-type': 'text/html' }).end('<html><head><title>404 Not Found</title></head></html>'),
  );
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyOrigin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return async () => {
    await emulator.close();
    await new Promise((resolve) => proxy.close(resolve));
    await rm(dir, { recursive: true, force: true });
  };
});

async function plan(baseUrl: string, extra: string[] = []) {
  const io = recordingIo({ env: toolEnv(baseUrl) });
  const argv = [
    'plan',
    '--desired',
    join(REPO_ROOT, 'desired-state'),
    '--state-dir',
    join(dir, 'state'),
    '--secrets-file',
    join(REPO_ROOT, 'desired-state/local-secrets.json'),
    '--project',
    PAYMENTS_PROD,
    ...extra,
  ];
  const code = await runCli(argv, { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

describe('the CLI names its flags in connection messages', { timeout: 60_000 }, () => {
  it('https:// to a plain HTTP port: wrong protocol, fix --base-url', async () => {
    const run = await plan(emulator.url.replace('http://', 'https://'));
    expect(run.code).toBe(1);
    expect(run.out).toContain('wrong protocol:');
    expect(run.out).toContain('did not answer with TLS');
    expect(run.out).toContain('write http:// in --base-url (or OPSMAN_BASE_URL)');
    expect(run.out).not.toMatch(/verification failed|baseUrl/);
  });

  it("a proxy's HTML 404: says it was not Ops Manager, quotes the page's title, points at --base-url", async () => {
    const run = await plan(`${proxyOrigin}/om/api/public/v1.0`);
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      `${proxyOrigin}/om/api/public/v1.0/groups/${PAYMENTS_PROD}/alertConfigs answered 404 without an Ops Manager error body (text/html: "404 Not Found"); check --base-url (or OPSMAN_BASE_URL)`,
    );
  });

  it('a --ca-file that does not exist is named as --ca-file', async () => {
    const run = await plan(emulator.url, ['--ca-file', join(dir, 'missing.pem')]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      `cannot read --ca-file "${join(dir, 'missing.pem')}": it does not exist (OPSMAN_VALIDATION_ERROR, ENOENT)`,
    );
  });

  it('--insecure-skip-verify warns with the flags, not the option names', async () => {
    const run = await plan(emulator.url, ['--insecure-skip-verify']);
    expect(run.code).toBe(0);
    expect(run.err).toContain('TLS certificate verification is DISABLED (--insecure-skip-verify)');
    expect(run.err).toContain('Use --ca-file with');
    expect(run.err).not.toMatch(/caFile|insecureSkipVerify/);
  });
});
