// Scenario: Digest authentication over HTTP: no header, unknown key, wrong password, stale and expired nonces, replayed nc,
// nc of either width (never zero, at most 8 hex digits), uri mismatch, the unauthenticated manifest, and a key without the role.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  digestHeader,
  type EmulatorHarness,
  K,
  parseChallenge,
  startHarness,
  W,
} from '../../helpers/emulator-client.ts';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startHarness({ nonceTtlMs: 60_000 });
});
afterAll(async () => {
  await h.emu.close();
});

const PATH = `/groups/${W.paymentsProd}/alertConfigs`;
const uri = `/api/public/v1.0${PATH}`;

async function challenge(): Promise<string> {
  const res = await fetch(`${h.emu.url}${PATH}`);
  return parseChallenge(res.headers.get('www-authenticate')).nonce ?? '';
}

async function withHeader(authorization: string, method = 'GET', target = uri) {
  const res = await fetch(`${h.emu.origin}${target}`, { method, headers: { authorization } });
  const body = (await res.json().catch(() => null)) as { errorCode?: string } | null;
  return { status: res.status, www: res.headers.get('www-authenticate'), body };
}

describe('challenges', () => {
  it('answers a request without credentials with the exact 401', async () => {
    const res = await fetch(`${h.emu.url}${PATH}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json;charset=ISO-8859-1');
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Digest realm="MMS Public API", domain="", nonce="[A-Za-z0-9_-]+", algorithm=MD5, qop="auth", stale=false$/,
    );
    expect(await res.json()).toEqual({
      detail: 'You are not authorized for this resource.',
      error: 401,
      errorCode: 'NOT_AUTHORIZED',
      parameters: [],
      reason: 'Unauthorized',
    });
  });

  it('wraps the 401 body with envelope=true, keeping the status and the challenge', async () => {
    // The spec: "With envelope=true, clients that cannot read status codes get the code in the status field".
    const res = await fetch(`${h.emu.url}${PATH}?envelope=true`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Digest realm="MMS Public API", /);
    expect(await res.json()).toEqual({
      status: 401,
      content: expect.objectContaining({ error: 401, errorCode: 'NOT_AUTHORIZED' }),
    });
  });

  it('challenges before routing: an unknown path still gets 401, not 404', async () => {
    expect((await fetch(`${h.emu.url}/no/such/thing`)).status).toBe(401);
  });

  it.each([
    ['an unknown key', { publicKey: 'nobody', privateKey: 'x' }],
    ['a wrong password', { publicKey: K.owner.publicKey, privateKey: 'wrong' }],
  ])('refuses %s with a fresh, non-stale challenge', async (_name, key) => {
    const r = await withHeader(digestHeader(key, 'GET', uri, await challenge(), '00000001'));
    expect(r.status).toBe(401);
    expect(parseChallenge(r.www).stale).toBe('false');
    expect(r.body?.errorCode).toBe('NOT_AUTHORIZED');
  });

  it('refuses a uri that is not the request target', async () => {
    const nonce = await challenge();
    const r = await withHeader(
      digestHeader(K.owner, 'GET', `/api/public/v1.0/groups/${W.ledgerProd}/alertConfigs`, nonce, '1'),
    );
    expect(r.status).toBe(401);
  });

  it('refuses a response computed for another realm, though it hashes right for the realm it names', async () => {
    const r = await withHeader(digestHeader(K.owner, 'GET', uri, await challenge(), '1', { realm: 'Other Realm' }));
    expect(r.status).toBe(401);
    expect(r.body?.errorCode).toBe('NOT_AUTHORIZED');
  });

  it('refuses a response computed for another method', async () => {
    const r = await withHeader(digestHeader(K.owner, 'POST', uri, await challenge(), '1'), 'GET');
    expect(r.status).toBe(401);
  });
});

describe('nonces', () => {
  it('accepts nc as sent, bare or zero-padded, and nonce reuse with a higher nc', async () => {
    const nonce = await challenge();
    const a = await withHeader(digestHeader(K.owner, 'GET', uri, nonce, '1'));
    const b = await withHeader(digestHeader(K.owner, 'GET', uri, nonce, '00000002'));
    const c = await withHeader(digestHeader(K.owner, 'GET', uri, nonce, 'a'));
    expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
  });

  it.each([
    ['zero, padded', '00000000'],
    ['zero, bare', '0'],
    ['nine digits', '000000001'],
    ['not hex', '0000000g'],
  ])('refuses nc %s with a fresh, non-stale challenge; the nonce still works with nc 1', async (_name, nc) => {
    const nonce = await challenge();
    const refused = await withHeader(digestHeader(K.owner, 'GET', uri, nonce, nc));
    expect(refused.status).toBe(401);
    expect(refused.body?.errorCode).toBe('NOT_AUTHORIZED');
    const fresh = parseChallenge(refused.www);
    expect(fresh.stale).toBe('false');
    expect(fresh.nonce).not.toBe(nonce);
    expect((await withHeader(digestHeader(K.owner, 'GET', uri, nonce, '00000001'))).status).toBe(200);
  });

  it('accepts one nonce used by many concurrent requests arriving out of order', async () => {
    const nonce = await challenge();
    const ncs = Array.from({ length: 20 }, (_, i) => (20 - i).toString(16).padStart(8, '0'));
    const results = await Promise.all(ncs.map((nc) => withHeader(digestHeader(K.owner, 'GET', uri, nonce, nc))));
    expect(results.map((r) => r.status)).toEqual(ncs.map(() => 200));
  });

  it('accepts SHA-256 responses for the same nonce', async () => {
    const { createHash } = await import('node:crypto');
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const nonce = await challenge();
    const ha1 = sha(`${K.owner.publicKey}:MMS Public API:${K.owner.privateKey}`);
    const response = sha(`${ha1}:${nonce}:00000001:c1:auth:${sha(`GET:${uri}`)}`);
    const header = digestHeader(K.owner, 'GET', uri, nonce, '00000001', { cnonce: 'c1', response }).replace(
      'algorithm=MD5',
      'algorithm=SHA-256',
    );
    expect((await withHeader(header)).status).toBe(200);
  });

  it('ignores extension parameters whatever their name, Object.prototype members included (RFC 7616 auth-param)', async () => {
    // A parameter seen twice is refused; one named like an Object.prototype member (constructor, __proto__) is not
    // a duplicate, and an unknown one is ignored like userhash=false or charset.
    const nonce = await challenge();
    const extras = [', constructor="x"', ', __proto__="y"', ', toString=z', ', userhash=false, charset=UTF-8'];
    const statuses = [];
    for (const [i, extra] of extras.entries()) {
      const nc = (i + 1).toString(16).padStart(8, '0');
      statuses.push((await withHeader(digestHeader(K.owner, 'GET', uri, nonce, nc) + extra)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200]);
    const twice = `${digestHeader(K.owner, 'GET', uri, nonce, '00000009')}, constructor="x", Constructor="x"`;
    expect((await withHeader(twice)).status).toBe(401);
  });

  it('refuses what it does not verify, though the MD5 arithmetic is right: another algorithm, qop=auth-int, no qop', async () => {
    const { createHash } = await import('node:crypto');
    const md5 = (text: string) => createHash('md5').update(text).digest('hex');
    const nonce = await challenge();
    const ha1 = md5(`${K.owner.publicKey}:MMS Public API:${K.owner.privateKey}`);
    const ha2 = md5(`GET:${uri}`);
    const signed = (qop: string) => md5(`${ha1}:${nonce}:00000001:c1:${qop}:${ha2}`);
    const base = digestHeader(K.owner, 'GET', uri, nonce, '00000001', { cnonce: 'c1', response: signed('auth') });
    const intBase = digestHeader(K.owner, 'GET', uri, nonce, '00000001', {
      cnonce: 'c1',
      response: signed('auth-int'),
    });
    const rfc2069 = `Digest username="${K.owner.publicKey}", realm="MMS Public API", nonce="${nonce}", uri="${uri}", algorithm=MD5, response="${md5(`${ha1}:${nonce}:${ha2}`)}"`;
    const refused = [
      base.replace('algorithm=MD5', 'algorithm=SHA-1'),
      intBase.replace('qop=auth', 'qop=auth-int'),
      rfc2069,
    ];
    for (const header of refused) {
      const answer = await withHeader(header);
      expect(answer.status).toBe(401);
      expect(answer.www).toMatch(/stale=false$/);
    }
    // The same nonce and nc with the header it does verify: accepted, so the refusals above were about the directive.
    expect((await withHeader(base)).status).toBe(200);
  });

  it('refuses a replayed nc with a new challenge', async () => {
    const nonce = await challenge();
    const header = digestHeader(K.owner, 'GET', uri, nonce, '00000001');
    expect((await withHeader(header)).status).toBe(200);
    const replay = await withHeader(header);
    expect(replay.status).toBe(401);
    expect(parseChallenge(replay.www).nonce).not.toBe(nonce);
  });

  it('answers a nonce made stale by the admin API with stale=true, and a fresh one works', async () => {
    const nonce = await challenge();
    expect((await h.admin('POST', '/nonces/expire')).status).toBe(200);
    const r = await withHeader(digestHeader(K.owner, 'GET', uri, nonce, '1'));
    expect(r.status).toBe(401);
    const fresh = parseChallenge(r.www);
    expect(fresh.stale).toBe('true');
    expect((await withHeader(digestHeader(K.owner, 'GET', uri, fresh.nonce ?? '', '1'))).status).toBe(200);
  });

  it('expires nonces after nonceTtlMs', async () => {
    const short = await startHarness({ nonceTtlMs: 1 });
    try {
      const res = await fetch(`${short.emu.url}${PATH}`);
      const nonce = parseChallenge(res.headers.get('www-authenticate')).nonce ?? '';
      await new Promise((r) => setTimeout(r, 20));
      const again = await fetch(`${short.emu.url}${PATH}`, {
        headers: { authorization: digestHeader(K.owner, 'GET', uri, nonce, '1') },
      });
      expect(again.status).toBe(401);
      expect(parseChallenge(again.headers.get('www-authenticate')).stale).toBe('true');
    } finally {
      await short.emu.close();
    }
  });

  it('a caching client costs one challenge for many requests', async () => {
    await h.admin('DELETE', '/requests');
    const client = h.as(K.viewer, 'bare');
    for (let i = 0; i < 5; i++) expect((await client.get(PATH)).status).toBe(200);
    const log = (await h.admin('GET', '/requests')).body;
    expect(log.total).toBe(6);
    expect(log.challenges).toBe(1);
  });
});

describe('authorisation', () => {
  it('serves the version manifest without any key', async () => {
    const res = await fetch(`${h.emu.url}/unauth/versionManifest`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { versions: unknown[] }).versions.length).toBeGreaterThan(0);
  });

  it('answers a key without the role with 401 USER_UNAUTHORIZED and no challenge', async () => {
    const res = await h.as(K.member).get(PATH);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.body).toEqual({
      detail: 'Current user is not authorized to perform this action.',
      error: 401,
      errorCode: 'USER_UNAUTHORIZED',
      parameters: [],
      reason: 'Unauthorized',
    });
  });

  it('never lets an unauthenticated request change anything', async () => {
    const before = (await h.owner.get(PATH)).body.totalCount;
    const res = await fetch(`${h.emu.url}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        eventTypeName: 'HOST_DOWN',
        notifications: [{ typeName: 'EMAIL', emailAddress: 'a@b.c' }],
      }),
    });
    expect(res.status).toBe(401);
    expect((await h.owner.get(PATH)).body.totalCount).toBe(before);
  });
});

describe('absolute-form request targets (RFC 9112 section 3.2.2, as proxied clients send them)', () => {
  /** One request whose request line carries the absolute URI, sent with node:http as a proxy client would. */
  function absolute(target: string, authorization?: string): Promise<{ status: number; www: string | undefined }> {
    const { hostname, port } = new URL(h.emu.origin);
    return new Promise((resolve, reject) => {
      const req = request({ host: hostname, port, path: target, headers: authorization ? { authorization } : {} });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, www: res.headers['www-authenticate'] }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('routes and authenticates them, with the uri directive in either form', async () => {
    const target = `${h.emu.origin}${uri}?pageNum=1&itemsPerPage=2`;
    const first = await absolute(target);
    expect(first.status).toBe(401);
    const nonce = parseChallenge(first.www ?? null).nonce ?? '';
    expect((await absolute(target, digestHeader(K.owner, 'GET', target, nonce, '00000001'))).status).toBe(200);
    const origin = `${uri}?pageNum=1&itemsPerPage=2`;
    expect((await absolute(target, digestHeader(K.owner, 'GET', origin, nonce, '00000002'))).status).toBe(200);
    const other = `${uri}?pageNum=2&itemsPerPage=2`;
    expect((await absolute(target, digestHeader(K.owner, 'GET', other, nonce, '00000003'))).status).toBe(401);
    const otherAbsolute = `${h.emu.origin}${other}`;
    expect((await absolute(target, digestHeader(K.owner, 'GET', otherAbsolute, nonce, '00000004'))).status).toBe(401);
  });
});
