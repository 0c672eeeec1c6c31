// Scenario: against real servers on loopback, each TLS failure is named for what happened (https to a plain HTTP port, http to an HTTPS port, an unknown CA, another CA than --ca-file's, a host name the certificate lacks, an expired or not yet valid certificate) with its remedy in the caller's own setting names, and is never retried.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOpsManagerClient, OpsManagerTransportError } from '../../../lambdas/opsman/index.ts';
import type { SettingNames } from '../../../lambdas/opsman/options.ts';
import { resolveClientOptions } from '../../../lambdas/opsman/options-resolve.ts';
import { RequestExecutor } from '../../../lambdas/opsman/request-executor.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';
import { createTestPki, type TestPki } from '../../helpers/client-tls.ts';
import { signDatedLeaf } from '../../helpers/client-tls-dated.ts';

const CLI_NAMES: Partial<SettingNames> = { baseUrl: '--base-url', caFile: '--ca-file' };

let pki: TestPki;
let otherPki: TestPki;
const servers: Server[] = [];

async function listen(server: Server, host = '127.0.0.1'): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

const answer = (_req: unknown, res: { end(body: string): void }) => res.end('{}');

let plainPort: number;
let tlsPort: number;
let tlsOnSecondLoopback: number;
let expiredPort: number;
let futurePort: number;

beforeAll(async () => {
  [pki, otherPki] = await Promise.all([createTestPki(), createTestPki()]);
  const expired = await signDatedLeaf(pki, 'expired', '20200101000000Z', '20200102000000Z');
  const future = await signDatedLeaf(pki, 'future', '20990101000000Z', '20990102000000Z');
  plainPort = await listen(createHttpServer(answer));
  tlsPort = await listen(createHttpsServer({ cert: pki.cert, key: pki.key }, answer));
  // The certificate names 127.0.0.1 and localhost; 127.0.0.2 is loopback too (Linux) but not in it.
  tlsOnSecondLoopback = await listen(createHttpsServer({ cert: pki.cert, key: pki.key }, answer), '127.0.0.2');
  expiredPort = await listen(createHttpsServer(expired, answer));
  futurePort = await listen(createHttpsServer(future, answer));
  return async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await Promise.all([pki.cleanup(), otherPki.cleanup()]);
  };
});

async function failure(baseUrl: string, extra: { caFile?: string } = {}): Promise<OpsManagerTransportError> {
  const client = createOpsManagerClient({
    baseUrl: `${baseUrl}/api/public/v1.0`,
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
    settingNames: CLI_NAMES,
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });
  try {
    const error = await client.getTeam('5e2211c17a3e5a48f5497de0', '6a1f00000000000000000001').catch((e: unknown) => e);
    if (!(error instanceof OpsManagerTransportError))
      throw new Error(`expected a transport error, got ${String(error)}`);
    return error;
  } finally {
    await client.close();
  }
}

describe('TLS failures say what happened and what to do', { timeout: 30_000 }, () => {
  it('https:// to a plain HTTP port: wrong protocol, use http:// in --base-url', async () => {
    const error = await failure(`https://127.0.0.1:${plainPort}`);
    expect(error).toMatchObject({ problem: 'wrong-protocol', attempts: 1 });
    expect(error.message).toContain(`wrong protocol: https://127.0.0.1:${plainPort} did not answer with TLS`);
    expect(error.message).toContain('write http:// in --base-url');
    expect(error.message).not.toMatch(/verification failed|ssl3_get_record/);
  });

  it('http:// to an HTTPS port: wrong protocol, use https:// in --base-url', async () => {
    const error = await failure(`http://127.0.0.1:${tlsPort}`);
    expect(error.problem).toBe('wrong-protocol');
    expect(error.message).toContain(`wrong protocol: http://127.0.0.1:${tlsPort} speaks TLS (HTTPS)`);
    expect(error.message).toContain('write https:// in --base-url');
  });

  it('a plain HTTP server that hangs up stays "no response" (the probe finds no TLS)', async () => {
    const rude = createHttpServer((req) => req.socket.destroy());
    const port = await listen(rude);
    const error = await failure(`http://127.0.0.1:${port}`);
    expect(error.problem).toBeUndefined();
    expect(error.message).toMatch(/no response after 3 attempt\(s\)/);
  });

  it('an unknown CA: certificate not trusted, pass its CA with --ca-file', async () => {
    const error = await failure(`https://127.0.0.1:${tlsPort}`);
    expect(error).toMatchObject({ problem: 'untrusted-certificate', attempts: 1 });
    expect(error.message).toContain('certificate not trusted');
    expect(error.message).toContain('with --ca-file');
    expect(error.message).not.toContain('caFile');
  });

  it('a CA file of another CA: says that file does not hold the signer', async () => {
    const error = await failure(`https://127.0.0.1:${tlsPort}`, { caFile: otherPki.caFile });
    expect(error.problem).toBe('untrusted-certificate');
    expect(error.message).toContain(`--ca-file ${JSON.stringify(otherPki.caFile)} does not hold the CA that signed it`);
  });

  it('a host name the certificate does not name: says which names it has', async () => {
    const error = await failure(`https://127.0.0.2:${tlsOnSecondLoopback}`, { caFile: pki.caFile });
    expect(error.problem).toBe('hostname-mismatch');
    expect(error.message).toContain('is not valid for 127.0.0.2 (the certificate is for 127.0.0.1');
    expect(error.message).toContain('in --base-url');
  });

  it('an expired certificate, and one not valid yet', async () => {
    const expired = await failure(`https://127.0.0.1:${expiredPort}`, { caFile: pki.caFile });
    expect(expired.problem).toBe('expired-certificate');
    expect(expired.message).toContain(`the certificate of https://127.0.0.1:${expiredPort} has expired`);
    const future = await failure(`https://127.0.0.1:${futurePort}`, { caFile: pki.caFile });
    expect(future.problem).toBe('certificate-not-yet-valid');
    expect(future.message).toContain("check this machine's clock");
  });
});

describe('the TLS probe after a plain HTTP connection closed without an answer', () => {
  // The executor alone, with a transport that reports the hang-up: the probe itself goes to the real TLS port.
  it.each([
    ['asks the port and says it speaks TLS', 'http', {}, 'wrong-protocol'],
    [
      'is skipped behind a proxy (the proxy is the only host reached)',
      'http',
      { httpProxy: 'http://127.0.0.1:9' },
      undefined,
    ],
    ['is skipped for an https:// URL (TLS was spoken already)', 'https', {}, undefined],
  ])('%s', async (_, scheme, proxy, problem) => {
    const base = `${scheme}://127.0.0.1:${tlsPort}/api/public/v1.0`;
    const options = resolveClientOptions({
      baseUrl: base,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      retry: { maxAttempts: 1 },
      proxy,
    });
    const hungUp = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const dispatcher = {
      request: async () => {
        throw hungUp;
      },
    } as unknown as Dispatcher;
    const error = await new RequestExecutor(options, dispatcher)
      .execute({ method: 'GET', pathTemplate: '/orgs', url: new URL(`${base}/orgs`), auth: false, secrets: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect((error as OpsManagerTransportError).problem).toBe(problem);
  });
});
