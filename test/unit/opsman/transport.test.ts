// Scenario: HTTPS to a server signed by a private CA works with caFile or NODE_EXTRA_CA_CERTS, fails fast without, insecureSkipVerify warns on every creation, and proxies from the environment options are honoured (NO_PROXY too).
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createOpsManagerClient,
  INSECURE_WARNING,
  OpsManagerTransportError,
  OpsManagerValidationError,
} from '../../../lambdas/opsman/index.ts';
import { resolveClientOptions } from '../../../lambdas/opsman/options-resolve.ts';
import { buildCaList, isLoopback, plainHttpWarning, proxyConfigured } from '../../../lambdas/opsman/transport.ts';
import { type DigestServer, startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';
import { createTestPki, type TestPki } from '../../helpers/client-tls.ts';

const TEAM = { id: 't', name: 'team', links: [] };
let pki: TestPki;
let https: DigestServer;

beforeAll(async () => {
  pki = await createTestPki();
  https = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    tls: { cert: pki.cert, key: pki.key },
    handler: () => ({ json: TEAM }),
  });
  return async () => {
    await https.close();
    await pki.cleanup();
  };
});

describe('TLS', () => {
  it('trusts a private CA given as caFile', async () => {
    const client = createOpsManagerClient({
      baseUrl: https.baseUrl,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      caFile: pki.caFile,
    });
    try {
      expect(await client.getTeam('o', 't')).toEqual(TEAM);
    } finally {
      await client.close();
    }
  });

  it('fails fast, without retrying, when the CA is unknown', async () => {
    const client = createOpsManagerClient({
      baseUrl: https.baseUrl,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
    });
    try {
      const error = await client.getTeam('o', 't').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpsManagerTransportError);
      expect(error).toMatchObject({ attempts: 1 });
      expect((error as Error).message).toMatch(
        /certificate not trusted: .* pass the PEM certificate of the CA that signed it/,
      );
      expect(error).toMatchObject({ problem: 'untrusted-certificate' });
    } finally {
      await client.close();
    }
  });

  it('ignores NODE_TLS_REJECT_UNAUTHORIZED=0: verification is off only with insecureSkipVerify, which warns', async () => {
    // Node reads the variable at every tls.connect that leaves rejectUnauthorized unset; its own warning is gone with
    // --no-warnings or NODE_NO_WARNINGS, so the variable would turn verification off without a word from the client.
    const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    const noWarnings = process.env.NODE_NO_WARNINGS;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    process.env.NODE_NO_WARNINGS = '1';
    const warnings: string[] = [];
    const client = createOpsManagerClient({
      baseUrl: https.baseUrl,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      warn: (m) => warnings.push(m),
    });
    try {
      const error = await client.getTeam('o', 't').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpsManagerTransportError);
      expect(error).toMatchObject({ problem: 'untrusted-certificate', attempts: 1 });
      expect(warnings).toEqual([]);
    } finally {
      await client.close();
      if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
      if (noWarnings === undefined) delete process.env.NODE_NO_WARNINGS;
      else process.env.NODE_NO_WARNINGS = noWarnings;
    }
  });

  it('insecureSkipVerify connects and warns on every client creation', async () => {
    const warnings: string[] = [];
    for (let i = 0; i < 2; i++) {
      const client = createOpsManagerClient({
        baseUrl: https.baseUrl,
        publicKey: 'pubkey',
        privateKey: TEST_PRIVATE_KEY,
        insecureSkipVerify: true,
        warn: (m) => warnings.push(m),
      });
      expect(await client.getTeam('o', 't')).toEqual(TEAM);
      await client.close();
    }
    expect(warnings).toEqual([INSECURE_WARNING, INSECURE_WARNING]);
  });

  it('warns on every creation of a client whose base URL is plain http:// to another machine', async () => {
    const warned = async (baseUrl: string) => {
      const warnings: string[] = [];
      const client = createOpsManagerClient({
        baseUrl,
        publicKey: 'pubkey',
        privateKey: TEST_PRIVATE_KEY,
        warn: (m) => warnings.push(m),
        settingNames: { baseUrl: '--base-url (or OPSMAN_BASE_URL)', caFile: '--ca-file' },
      });
      client.renewConnections();
      await client.close();
      return warnings;
    };
    const remote = 'http://10.0.1.5:8080/api/public/v1.0';
    expect(await warned(remote)).toEqual([
      'WARNING: opsman-gitops: http://10.0.1.5:8080 is plain HTTP (--base-url (or OPSMAN_BASE_URL)): the notification secrets sent to Ops Manager (webhook URLs, tokens, keys) and every answer cross the network unencrypted, and anyone on the path can read and alter them. Use https:// (with --ca-file for a private CA).',
    ]);
    expect(await warned('http://om.example.com/api/public/v1.0')).toHaveLength(1);
    for (const local of ['http://127.0.0.1:8080', 'http://127.5.0.1', 'http://localhost:1', 'http://[::1]:8080']) {
      expect(await warned(`${local}/api/public/v1.0`)).toEqual([]);
    }
    expect(await warned('https://om.example.com/api/public/v1.0')).toEqual([]);
    expect(isLoopback(new URL('http://127.0.0.1.evil.example/'))).toBe(false);
    expect(plainHttpWarning(new URL(remote), { baseUrl: 'baseUrl', caFile: 'caFile' })).toMatch(/^WARNING: /);
  });

  it('insecureSkipVerify writes its warning to stderr by default', async () => {
    const written: string[] = [];
    const original = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const client = createOpsManagerClient({
        baseUrl: https.baseUrl,
        publicKey: 'pubkey',
        privateKey: TEST_PRIVATE_KEY,
        insecureSkipVerify: true,
      });
      await client.close();
    } finally {
      process.stderr.write = original;
    }
    expect(written).toEqual([`${INSECURE_WARNING}\n`]);
  });

  it('honours NODE_EXTRA_CA_CERTS (Node reads it at start-up: checked in a child process)', async () => {
    const script = join(pki.dir, 'extra-ca.mts');
    const clientModule = join(process.cwd(), 'lambdas/opsman/index.ts');
    await writeFile(
      script,
      `import { createOpsManagerClient } from ${JSON.stringify(clientModule)};
const client = createOpsManagerClient({ baseUrl: process.argv[2], publicKey: 'pubkey', privateKey: ${JSON.stringify(TEST_PRIVATE_KEY)}, retry: { maxAttempts: 1 } });
try { const team = await client.getTeam('o', 't'); process.stdout.write('ok ' + team.id); }
catch (error) { process.stdout.write('failed ' + error.message); }
finally { await client.close(); }
`,
    );
    const run = promisify(execFile);
    const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
    const withCa = await run(tsx, [script, https.baseUrl], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: pki.caFile },
    });
    expect(withCa.stdout).toBe('ok t');
    const without = await run(tsx, [script, https.baseUrl], { env: { ...process.env, NODE_EXTRA_CA_CERTS: '' } });
    expect(without.stdout).toMatch(/^failed .*certificate not trusted/);
  });

  it('adds caFile (and NODE_EXTRA_CA_CERTS, which an explicit CA list would drop) to the default CAs', () => {
    expect(buildCaList(undefined, {})).toBeUndefined();
    const own = buildCaList(pki.caFile, {});
    expect(own).toEqual([...rootCertificates, pki.caPem]);
    expect(buildCaList(pki.caFile, { NODE_EXTRA_CA_CERTS: pki.caFile })).toEqual([
      ...rootCertificates,
      pki.caPem,
      pki.caPem,
    ]);
  });

  it.each([
    ['a missing caFile', '/nonexistent/ca.pem', /cannot read caFile .*ENOENT/],
    ['a caFile without a certificate', 'self', /contains no PEM certificate/],
  ])('rejects %s with a precise message', async (_name, path, message) => {
    const caFile = path === 'self' ? join(pki.dir, 'ext.cnf') : path;
    const create = () =>
      createOpsManagerClient({ baseUrl: https.baseUrl, publicKey: 'p', privateKey: TEST_PRIVATE_KEY, caFile });
    expect(create).toThrow(OpsManagerValidationError);
    expect(create).toThrow(message);
  });
});

describe('proxy', () => {
  let proxy: Server;
  let proxyUrl: string;
  const tunnels: string[] = [];
  let plain: DigestServer;

  beforeAll(async () => {
    plain = await startDigestServer({ password: TEST_PRIVATE_KEY, handler: () => ({ json: TEAM }) });
    const sockets = new Set<Socket>();
    proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req, client: Socket) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(client);
        client.pipe(upstream);
      });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => s.destroy());
        s.on('close', () => sockets.delete(s));
      }
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    return async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => proxy.close(resolve));
      await plain.close();
    };
  });

  it('tunnels through HTTP_PROXY / HTTPS_PROXY', async () => {
    tunnels.length = 0;
    for (const [server, proxyOptions, extra] of [
      [plain, { httpProxy: proxyUrl }, {}],
      [https, { httpsProxy: proxyUrl }, { caFile: pki.caFile }],
    ] as const) {
      const client = createOpsManagerClient({
        baseUrl: server.baseUrl,
        publicKey: 'pubkey',
        privateKey: TEST_PRIVATE_KEY,
        proxy: proxyOptions,
        ...extra,
      });
      expect(await client.getTeam('o', 't')).toEqual(TEAM);
      await client.close();
    }
    expect([...new Set(tunnels)]).toEqual([new URL(plain.origin).host, new URL(https.origin).host]);
  });

  it('a proxy that closes the CONNECT unanswered fails the request after its attempts, not a reconnect loop', async () => {
    // undici 7 alone retries such a tunnel at once, forever, ignoring the request's deadline (nodejs/undici#3897).
    let connects = 0;
    const closer = createServer((_req, res) => res.writeHead(405).end());
    closer.on('connect', (_req, socket: Socket) => {
      connects++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => closer.listen(0, '127.0.0.1', resolve));
    const port = (closer.address() as { port: number }).port;
    const client = createOpsManagerClient({
      baseUrl: plain.baseUrl,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      proxy: { httpProxy: `http://user:proxy-password@127.0.0.1:${port}` },
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, deadlineMs: 10_000 },
    });
    try {
      const error = await client.getTeam('o', 't').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OpsManagerTransportError);
      const message = (error as Error).message;
      expect(message).toContain(`the proxy 127.0.0.1:${port} closed the connection before answering CONNECT`);
      expect(message).toContain('after 3 attempt(s)');
      expect(message).not.toContain('proxy-password');
      // One tunnel tried per attempt (a loop makes thousands a second).
      expect(connects).toBe(3);
    } finally {
      await client.close();
      await new Promise((resolve) => closer.close(resolve));
    }
  });

  it('goes direct for NO_PROXY hosts', async () => {
    tunnels.length = 0;
    const client = createOpsManagerClient({
      baseUrl: plain.baseUrl,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      proxy: { httpProxy: proxyUrl, noProxy: '127.0.0.1' },
    });
    expect(await client.getTeam('o', 't')).toEqual(TEAM);
    await client.close();
    expect(tunnels).toEqual([]);
  });
});

describe('proxyConfigured', () => {
  const options = resolveClientOptions({
    baseUrl: 'https://om.test/api/public/v1.0',
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
  });

  it.each([
    [{}, false],
    [{ HTTP_PROXY: '' }, false],
    [{ NO_PROXY: '*' }, false],
    [{ HTTP_PROXY: 'http://proxy:3128' }, true],
    [{ http_proxy: 'http://proxy:3128' }, true],
    [{ HTTPS_PROXY: 'http://proxy:3128' }, true],
    [{ https_proxy: 'http://proxy:3128' }, true],
  ])('%j -> %s (either case, as undici reads them)', (env, expected) => {
    expect(proxyConfigured(options, env)).toBe(expected);
  });

  it('a proxy given in the options counts whatever the environment says', () => {
    expect(proxyConfigured({ ...options, proxy: { httpsProxy: 'http://proxy:3128' } }, {})).toBe(true);
  });
});
