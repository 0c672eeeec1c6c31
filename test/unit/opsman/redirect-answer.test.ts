// Scenario: a Digest-protected loopback server answers a signed request with a 3xx redirect (to another host, to a relative path, with no Location); the client follows none of them, so no request or credentials reach the other host, and the error names the status, where the redirect points (without its query) and the base URL setting to fix, never the private key.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpsManagerClient, OpsManagerApiError } from '../../../lambdas/opsman/index.ts';
import { startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Another host the redirects point to: it counts what reaches it. */
async function elsewhere() {
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function redirecting(status: number, location: string | undefined) {
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: () => {
      const headers: Record<string, string> = location === undefined ? {} : { location };
      return { status, text: '', headers };
    },
  });
  cleanups.push(() => server.close());
  const client = createOpsManagerClient({ baseUrl: server.baseUrl, publicKey: 'pubkey', privateKey: TEST_PRIVATE_KEY });
  cleanups.push(() => client.close());
  return { server, client };
}

const FIX =
  "which the client does not follow (requests and credentials go to baseUrl only): set baseUrl to Ops Manager's Public API root itself";

describe('a redirect answered to a signed request', () => {
  it.each([301, 302, 303, 307, 308])('%i to another host: not followed, named without its query', async (status) => {
    const other = await elsewhere();
    const { server, client } = await redirecting(
      status,
      `${other.origin}/sso/login?state=abc&key=${TEST_PRIVATE_KEY}#frag`,
    );
    const error = await client.getTeam('o1', 't1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerApiError);
    expect((error as OpsManagerApiError).status).toBe(status);
    const message = (error as Error).message;
    expect(message).toContain(`answered ${status} without an Ops Manager error body`);
    expect(message).toContain(`; a redirect to ${other.origin}/sso/login, ${FIX}`);
    expect(message).not.toContain('state=abc');
    expect(message).not.toContain(TEST_PRIVATE_KEY);
    expect(other.received).toEqual([]);
    // The challenge and the signed request: nothing more, no retry of a redirect.
    expect(server.log.map((l) => l.status)).toEqual([401, status]);
  });

  it('a POST redirected is not followed either, and is no ambiguous write', async () => {
    const other = await elsewhere();
    const { client } = await redirecting(307, `${other.origin}/api/public/v1.0/groups/g1/alertConfigs`);
    const body = { eventTypeName: 'HOST_DOWN', enabled: true, notifications: [] };
    const error = await client.createAlertConfig('g1', body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerApiError);
    expect((error as Error).message).toContain(
      `a redirect to ${other.origin}/api/public/v1.0/groups/g1/alertConfigs, `,
    );
    expect(other.received).toEqual([]);
  });

  it('a relative Location is resolved against the request URL', async () => {
    const { server, client } = await redirecting(302, '/login?next=%2Fapi');
    const message = await client.getTeam('o1', 't1').catch((e: unknown) => (e as Error).message);
    expect(message).toContain(`; a redirect to ${server.origin}/login, ${FIX}`);
  });

  it('no Location at all', async () => {
    const { client } = await redirecting(302, undefined);
    const message = await client.getTeam('o1', 't1').catch((e: unknown) => (e as Error).message);
    expect(message).toContain(`; a redirect without a usable Location, ${FIX}`);
  });
});
