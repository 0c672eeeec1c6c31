// Scenario: the client authenticates against independent Digest servers (Ops Manager, Apache, SHA-256, RFC 2069 forms), reuses nonces with increasing nc, survives stale nonces and never loops on bad credentials.
import { afterEach, describe, expect, it } from 'vitest';
import { createApi } from '../../../lambdas/handlers/app-context.ts';
import { MAX_STALE_CHALLENGES } from '../../../lambdas/opsman/auth-exchange.ts';
import { REFUSALS_BEFORE_STOP } from '../../../lambdas/opsman/credential-verdict.ts';
import { createOpsManagerClient, OpsManagerAuthError, type OpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { type DigestServerOptions, startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: DigestServerOptions = {}, privateKey = TEST_PRIVATE_KEY) {
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: (req) => ({ json: { id: 't1', name: 'team', links: [], echo: req.body } }),
    ...options,
  });
  const client = createOpsManagerClient({ baseUrl: server.baseUrl, publicKey: 'pubkey', privateKey });
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  return { server, client };
}

async function getTeams(client: OpsManagerClient, n: number) {
  for (let i = 0; i < n; i++) await client.getTeam('5e2211c17a3e5a48f5497de0', '6a1f00000000000000000001');
}

describe('Digest auth flow', () => {
  it('N sequential requests cost N+1 exchanges and nc increases', async () => {
    const { server, client } = await setup();
    await getTeams(client, 5);
    expect(server.log).toHaveLength(6);
    expect(server.challenges()).toBe(1);
    expect(server.log[0]?.authorization).toBeUndefined();
    expect(server.log.slice(1).map((e) => e.nc)).toEqual(['00000001', '00000002', '00000003', '00000004', '00000005']);
    expect(server.log.every((e, i) => (i === 0 ? e.status === 401 : e.status === 200))).toBe(true);
  });

  it('a cold start with many parallel requests costs one challenge (single flight)', async () => {
    const { server, client } = await setup({ ncCheck: 'unique' });
    await Promise.all(Array.from({ length: 12 }, () => client.getTeam('o', 't')));
    expect(server.challenges()).toBe(1);
    expect(server.log).toHaveLength(13);
    expect(new Set(server.log.slice(1).map((e) => e.nc)).size).toBe(12);
  });

  it('parallel requests survive a server that insists on nc arriving in order (no auth error, bounded cost)', async () => {
    const { server, client } = await setup({ ncCheck: 'increasing' });
    const teams = await Promise.all(Array.from({ length: 12 }, () => client.getTeam('o', 't')));
    expect(teams).toHaveLength(12);
    expect(server.log.filter((e) => e.status === 200)).toHaveLength(12);
    expect(server.log.length).toBeLessThanOrEqual(1 + 12 * 2);
  });

  it('follows the nextnonce of Authentication-Info (Apache near a nonce end): no 401 when the old nonce is retired', async () => {
    const { server, client } = await setup({ nextNonceAfter: 3 });
    await getTeams(client, 10);
    // One challenge for the first request only: each nextnonce is taken up with nc=1, never the retired nonce's nc=4.
    expect(server.challenges()).toBe(1);
    expect(server.log).toHaveLength(11);
    expect(server.log.slice(1).map((e) => e.nc)).toEqual([
      '00000001',
      '00000002',
      '00000003',
      '00000001',
      '00000002',
      '00000003',
      '00000001',
      '00000002',
      '00000003',
      '00000001',
    ]);
    const nonceOf = (i: number) => /nonce="([^"]+)"/.exec(server.log[i]?.authorization ?? '')?.[1];
    expect(new Set([1, 4, 7, 10].map(nonceOf)).size).toBe(4);
  });

  it('re-authenticates transparently on stale=true', async () => {
    const { server, client } = await setup();
    await getTeams(client, 2);
    server.expireNonces();
    await getTeams(client, 2);
    expect(server.log.map((e) => e.status)).toEqual([401, 200, 200, 401, 200, 200]);
    expect(server.log.map((e) => e.nc ?? '-')).toEqual([
      '-',
      '00000001',
      '00000002',
      '00000003',
      '00000001',
      '00000002',
    ]);
  });

  it('answers a few stale challenges in a row (fast nonce rotation) without an auth error', async () => {
    const { server, client } = await setup({ staleOnArrival: 2 });
    await getTeams(client, 1);
    expect(server.log.map((e) => e.status)).toEqual([401, 401, 401, 200]);
  });

  it('gives up after MAX_STALE_CHALLENGES stale answers in a row instead of looping', async () => {
    const { server, client } = await setup({ staleOnArrival: 50 });
    const error = await client.getTeam('o', 't').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAuthError);
    expect(String((error as Error).message)).toContain(`stale ${MAX_STALE_CHALLENGES + 1} times in a row`);
    // One unauthenticated request, then the first fresh answer and MAX_STALE_CHALLENGES re-answers.
    expect(server.log).toHaveLength(2 + MAX_STALE_CHALLENGES);
  });

  it('wrong credentials: OpsManagerAuthError after exactly one answered challenge, every time', async () => {
    const { server, client } = await setup({}, 'wrong-private-key');
    for (let i = 0; i < 2; i++) {
      const error = await client.getTeam('o', 't').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpsManagerAuthError);
      expect(error).toMatchObject({
        status: 401,
        errorCode: 'USER_UNAUTHORIZED',
        method: 'GET',
        pathTemplate: '/orgs/{orgId}/teams/{teamId}',
      });
    }
    expect(server.log.map((e) => e.status)).toEqual([401, 401, 401, 401]);
    expect(server.log.map((e) => e.authorization !== undefined)).toEqual([false, true, false, true]);
  });

  it(`wrong credentials: after ${REFUSALS_BEFORE_STOP} refusals and no acceptance, requests fail without being sent`, async () => {
    const { server, client } = await setup({}, 'wrong-private-key');
    const errors: unknown[] = [];
    for (let i = 0; i < REFUSALS_BEFORE_STOP + 3; i++)
      errors.push(await client.getTeam('o', 't').catch((e: unknown) => e));
    // Each refused request cost a bare request and one answered challenge; nothing was sent after the verdict.
    expect(server.log).toHaveLength(2 * REFUSALS_BEFORE_STOP);
    for (const error of errors) expect(error).toBeInstanceOf(OpsManagerAuthError);
    const last = errors.at(-1) as OpsManagerAuthError;
    expect(last).toMatchObject({ status: 401, errorCode: 'USER_UNAUTHORIZED', code: 'OPSMAN_AUTH_ERROR' });
    expect(last.message).toMatch(
      /^GET \/orgs\/\{orgId\}\/teams\/\{teamId\}: not sent: Ops Manager refused this API key 2 times and has not accepted it \(first refusal: GET .*refused the credentials after one Digest challenge/,
    );
    expect(last.message).not.toContain('wrong-private-key');
    // The refusal names the settings that give the key (the library's option names by default).
    expect((errors[0] as Error).message).toContain(
      'refused the credentials after one Digest challenge; check publicKey and privateKey (401 USER_UNAUTHORIZED',
    );
    // An endpoint that needs no key is still asked (this server challenges it too, and refuses the answer).
    const manifest = await client.getVersionManifest().catch((e: unknown) => e);
    expect((manifest as Error).message).toMatch(/^GET \/unauth\/versionManifest: Ops Manager refused the credentials/);
    expect(server.log).toHaveLength(2 * REFUSALS_BEFORE_STOP + 2);
  });

  it('a key accepted in the last minute is not condemned: each later refusal is its own request', async () => {
    const { server, client } = await setup();
    await getTeams(client, 1);
    server.setPassword('rotated-on-the-server');
    for (let i = 0; i < REFUSALS_BEFORE_STOP + 1; i++) {
      const error = await client.getTeam('o', 't').catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/refused the credentials after one Digest challenge/);
    }
    server.setPassword(TEST_PRIVATE_KEY);
    await getTeams(client, 1);
  });

  it("a refused key names the caller's settings for it (settingNames.apiKey), never the key", async () => {
    const server = await startDigestServer({ password: TEST_PRIVATE_KEY, handler: () => ({ json: {} }) });
    const client = createOpsManagerClient({
      baseUrl: server.baseUrl,
      publicKey: 'pubkey',
      privateKey: 'wrong-private-key',
      settingNames: { apiKey: 'OPSMAN_PUBLIC_KEY and OPSMAN_PRIVATE_KEY' },
    });
    cleanups.push(
      () => server.close(),
      () => client.close(),
    );
    const error = await client.getTeam('o', 't').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAuthError);
    expect((error as Error).message).toMatch(
      /^GET \/orgs\/\{orgId\}\/teams\/\{teamId\}: Ops Manager refused the credentials after one Digest challenge; check OPSMAN_PUBLIC_KEY and OPSMAN_PRIVATE_KEY \(401 /,
    );
    expect((error as Error).message).not.toContain('wrong-private-key');
  });

  it("the Lambda's client names the credentials secret when the key is refused", async () => {
    const server = await startDigestServer({ password: TEST_PRIVATE_KEY, handler: () => ({ json: {} }) });
    const client = createApi({
      baseUrl: server.baseUrl,
      publicKey: 'pubkey',
      privateKey: 'wrong-private-key',
      observer: { onRequest: () => {} },
    });
    cleanups.push(
      () => server.close(),
      () => client.close(),
    );
    const error = await client.getTeam('o', 't').catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      'after one Digest challenge; check the publicKey and privateKey of the secret OPSMAN_CREDENTIALS_SECRET_ID names (401',
    );
  });

  const servers: { name: string; options: DigestServerOptions }[] = [
    {
      name: 'Apache mod_auth_digest style (MD5, qop="auth,auth-int", opaque)',
      options: {
        realm: 'private area',
        qop: 'auth,auth-int',
        opaque: 'op4que+/=',
        challenge: (nonce) =>
          `Digest realm="private area", nonce="${nonce}", algorithm=MD5, qop="auth,auth-int", opaque="op4que+/="`,
      },
    },
    { name: 'SHA-256', options: { algorithm: 'SHA-256' } },
    { name: 'SHA-256-sess', options: { algorithm: 'SHA-256-sess' } },
    { name: 'MD5-sess', options: { algorithm: 'MD5-sess' } },
    { name: 'RFC 2069 (no qop)', options: { qop: null } },
    {
      name: 'several challenges, SHA-256 offered second (the strongest is picked)',
      options: {
        algorithm: 'SHA-256',
        challenge: (nonce) => [
          `Basic realm="MMS Public API"`,
          `Digest realm="MMS Public API", nonce="${nonce}", algorithm=MD5, qop="auth", Digest realm="MMS Public API", nonce="${nonce}", algorithm=SHA-256, qop="auth"`,
        ],
      },
    },
    {
      // The seed spec's wording of the 401 ("op set to auth"): a server written from it literally sends `op`, no
      // `qop`, and checks the qop=auth response (nc, cnonce). An RFC 2069 answer would be refused as bad credentials.
      name: 'the spec\'s literal challenge (op="auth" instead of qop, qop=auth checked)',
      options: {
        qop: 'auth',
        challenge: (nonce, stale) =>
          `Digest realm="MMS Public API", domain="", nonce="${nonce}", algorithm=MD5, op="auth", stale=${stale}`,
      },
    },
    {
      name: 'bare values in any order',
      options: {
        challenge: (nonce) => `Digest qop=auth,algorithm=MD5,nonce="${nonce}",realm="MMS Public API",stale=false`,
      },
    },
  ];

  it.each(servers)('interoperates with $name', async ({ options }) => {
    const { server, client } = await setup(options);
    await getTeams(client, 3);
    expect(server.log.map((e) => e.status)).toEqual([401, 200, 200, 200]);
  });

  it('replays a POST body byte for byte after the challenge', async () => {
    const bodies: string[] = [];
    const { server, client } = await setup({
      handler: (req) => {
        bodies.push(req.body);
        return {
          json: {
            id: 'a1',
            groupId: 'g',
            enabled: true,
            eventTypeName: 'HOST_DOWN',
            notifications: [],
            matchers: [],
            links: [],
            created: '',
            updated: '',
          },
        };
      },
    });
    const body = {
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      // Two roles: a body the client sends as it is (one role would go in the spec's `role` form, role-wire.ts).
      notifications: [{ typeName: 'GROUP', intervalMin: 5, delayMin: 0, roles: ['GROUP_OWNER', 'GROUP_READ_ONLY'] }],
    };
    const created = await client.createAlertConfig('g', body);
    expect(created?.id).toBe('a1');
    expect(bodies).toEqual([JSON.stringify(body)]);
    expect(server.log.map((e) => [e.method, e.status])).toEqual([
      ['POST', 401],
      ['POST', 200],
    ]);
  });

  it('labels a body as JSON (Ops Manager refuses another media type), and sends none on a GET', async () => {
    const seen: [string, string | undefined, string | undefined][] = [];
    const { client } = await setup({
      handler: (req) => {
        seen.push([req.method, req.headers['content-type'], req.headers.accept]);
        return { json: { id: 't1', name: 'team', links: [] } };
      },
    });
    await client.setProjectDefaultServerType('5e2211c17a3e5a48f5497de0', { name: 'DEV_SERVER', label: 'Dev Server' });
    await getTeams(client, 1);
    expect(seen).toEqual([
      ['PUT', 'application/json', 'application/json'],
      ['GET', undefined, 'application/json'],
    ]);
  });

  it('answers an unauthenticated endpoint without credentials and keeps the text exact', async () => {
    const manifest = '{ "updated": 1700000000000,\n  "versions": [ {"name": "6.0.5", "builds": []} ] }';
    const { server, client } = await setup({
      publicPaths: ['/api/public/v1.0/unauth/'],
      handler: () => ({ text: manifest }),
    });
    const doc = await client.getVersionManifest();
    expect(doc.text).toBe(manifest);
    expect(doc.value).toEqual({ updated: 1700000000000, versions: [{ name: '6.0.5', builds: [] }] });
    expect(server.log.map((e) => [e.url, e.status, e.authorization])).toEqual([
      ['/api/public/v1.0/unauth/versionManifest', 200, undefined],
    ]);
  });

  it.each([
    ['a malformed challenge', 'Digest realm="unterminated', 'DIGEST_MALFORMED_CHALLENGE'],
    ['no Digest challenge', 'Basic realm="x"', 'DIGEST_NO_CHALLENGE'],
    ['an unsupported algorithm only', 'Digest realm="r", nonce="n", algorithm=SHA-1', 'DIGEST_UNSUPPORTED_CHALLENGE'],
  ])('fails cleanly on %s', async (_name, header, code) => {
    const { server, client } = await setup({ challenge: () => header });
    const error = await client.getTeam('o', 't').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAuthError);
    expect((error as OpsManagerAuthError).message).toMatch(/cannot answer the authentication challenge/);
    expect(((error as Error).cause as { code?: string }).code).toBe(code);
    expect(server.log).toHaveLength(1);
  });

  it.each([
    ['an unknown algorithm', ['Digest realm="r", nonce="n", algorithm=SHA-1'], ['algorithm "SHA-1"']],
    ['auth-int alone', ['Digest realm="r", nonce="n", qop="auth-int"'], ['qop "auth-int"']],
    // RFC 2617: a -sess HA1 needs the cnonce, which may be sent only with a qop; answering would blame the key.
    ['MD5-sess without qop', ['Digest realm="r", nonce="n", algorithm=MD5-sess'], ['algorithm "MD5-sess" without qop']],
    [
      'two unanswerable challenges in two headers',
      [
        'Digest realm="r", nonce="n", algorithm="SHA3-256"',
        'Digest realm="r", nonce="m", qop="auth-int", algorithm=MD5',
      ],
      ['algorithm "SHA3-256"', 'qop "auth-int"'],
    ],
  ])(
    'a challenge it cannot answer (%s) is named in the error, with what it means; one request, no loop',
    async (_n, header, named) => {
      const { server, client } = await setup({ challenge: () => header });
      const error = await client.getTeam('o', 't').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpsManagerAuthError);
      const message = (error as Error).message;
      for (const offer of named) expect(message).toContain(offer);
      expect(message).toContain("Ops Manager's Public API asks for MD5 with qop=auth");
      expect(server.log).toHaveLength(1);
    },
  );
});
