// Scenario: a Digest loopback server challenges in the awkward forms a server or the proxy in front of it may use (a realm and opaque holding quotes, commas and backslashes; Basic offered next to Digest, in either order, in one header or two); the client answers the Digest challenge exactly once, echoing realm and opaque byte for byte.
import { afterEach, describe, expect, it } from 'vitest';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { type DigestServerOptions, startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A quoted-string as RFC 9110 writes it: backslash before each quote and backslash. */
const quoted = (value: string) => `"${value.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;

async function teamVia(options: DigestServerOptions) {
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: () => ({ json: { id: 't1', name: 'ops' } }),
    ...options,
  });
  cleanups.push(() => server.close());
  const client = createOpsManagerClient({ baseUrl: server.baseUrl, publicKey: 'pubkey', privateKey: TEST_PRIVATE_KEY });
  cleanups.push(() => client.close());
  const first = await client.getTeam('o1', 't1');
  const second = await client.getTeam('o1', 't1');
  return { server, answers: [first, second] };
}

describe('awkward Digest challenges', () => {
  it('a realm and opaque with quotes, commas and a backslash are answered and echoed exactly', async () => {
    const realm = 'MMS, "Public" API \\ eu-1';
    const opaque = 'o,"p",=q\\';
    const { server, answers } = await teamVia({
      realm,
      opaque,
      challenge: (nonce, stale) =>
        `Digest realm=${quoted(realm)}, nonce="${nonce}", qop="auth", algorithm=MD5, opaque=${quoted(opaque)}, stale=${stale}`,
    });
    expect(answers).toEqual([
      { id: 't1', name: 'ops' },
      { id: 't1', name: 'ops' },
    ]);
    // One challenge, then the nonce reused: the server checked realm, opaque and the response each time.
    expect(server.log.map((l) => l.status)).toEqual([401, 200, 200]);
    expect(server.log[1]?.authorization).toContain(`realm=${quoted(realm)}`);
    expect(server.log[1]?.authorization).toContain(`opaque=${quoted(opaque)}`);
  });

  it.each([
    ['Basic first, two headers', (d: string) => ['Basic realm="corp-sso", charset="UTF-8"', d]],
    ['Digest first, two headers', (d: string) => [d, 'Basic realm="corp-sso"']],
    ['Basic first, one header', (d: string) => `Basic realm="corp-sso", ${d}`],
    ['Bearer and Basic around Digest, one header', (d: string) => `Bearer realm="api", ${d}, Basic realm="x"`],
  ])('%s: the Digest challenge is answered, Basic never used', async (_, build) => {
    const { server } = await teamVia({
      challenge: (nonce, stale) =>
        build(`Digest realm="MMS Public API", nonce="${nonce}", qop="auth", algorithm=MD5, stale=${stale}`),
    });
    expect(server.log.map((l) => l.status)).toEqual([401, 200, 200]);
    for (const entry of server.log.slice(1)) expect(entry.authorization).toMatch(/^Digest /);
  });
});
