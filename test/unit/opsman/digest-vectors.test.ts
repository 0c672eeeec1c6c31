// Scenario: the Digest response matches the published RFC 2617 §3.5 and RFC 7616 §3.9.1 vectors, and the header is well formed.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildDigestAuthorization,
  computeDigestResponse,
  type DigestResponseInput,
  formatNonceCount,
  parseAuthenticateHeader,
} from '../../../lambdas/opsman/digest/index.ts';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

const rfc7616 = {
  username: 'Mufasa',
  password: 'Circle of Life',
  method: 'GET',
  uri: '/dir/index.html',
  nc: 1,
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
};
const rfc7616Challenge = {
  realm: 'http-auth@example.org',
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
  qop: 'auth' as const,
  opaque: 'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS',
};

const vectors: { name: string; input: DigestResponseInput; expected: string }[] = [
  {
    name: 'RFC 2617 section 3.5 (MD5, qop=auth)',
    input: {
      username: 'Mufasa',
      password: 'Circle Of Life',
      method: 'GET',
      uri: '/dir/index.html',
      nc: 1,
      cnonce: '0a4f113b',
      challenge: {
        realm: 'testrealm@host.com',
        nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
        algorithm: 'MD5',
        qop: 'auth',
        opaque: '5ccc069c403ebaf9f0171e9517f40e41',
      },
    },
    expected: '6629fae49393a05397450978507c4ef1',
  },
  {
    name: 'RFC 7616 section 3.9.1 (MD5)',
    input: { ...rfc7616, challenge: { ...rfc7616Challenge, algorithm: 'MD5' } },
    expected: '8ca523f5e9506fed4657c9700eebdbec',
  },
  {
    name: 'RFC 7616 section 3.9.1 (SHA-256)',
    input: { ...rfc7616, challenge: { ...rfc7616Challenge, algorithm: 'SHA-256' } },
    expected: '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
  },
];

describe('Digest response vectors', () => {
  it.each(vectors)('$name', ({ input, expected }) => {
    expect(computeDigestResponse(input)).toBe(expected);
  });

  it('RFC 2069 mode (no qop) hashes HA1:nonce:HA2', () => {
    // HA1 and HA2 of the RFC 2617 section 3.5 example (MD5("Mufasa:testrealm@host.com:Circle Of Life") and
    // MD5("GET:/dir/index.html")); RFC 2069 section 2.1.2: response = H(HA1:nonce:HA2), nc and cnonce take no part.
    const ha1 = '939e7578ed9e3c518a452acee763bce9';
    const ha2 = '39aff3a2bab6126f332b942af96d3366';
    expect(md5('Mufasa:testrealm@host.com:Circle Of Life')).toBe(ha1);
    expect(md5('GET:/dir/index.html')).toBe(ha2);
    const base = vectors[0]?.input as DigestResponseInput;
    const a = computeDigestResponse({ ...base, challenge: { ...base.challenge, qop: null } });
    const b = computeDigestResponse({ ...base, nc: 7, cnonce: 'other', challenge: { ...base.challenge, qop: null } });
    expect(a).toBe(md5(`${ha1}:dcd98b7102dd2f0e8b11d0f600bfb0c093:${ha2}`));
    expect(b).toBe(a);
  });

  it('-sess variants mix the nonce and cnonce into HA1', () => {
    // RFC 7616 section 3.4.2: for -sess, HA1 = H(H(username:realm:password):nonce:cnonce); the response is then
    // H(HA1:nonce:nc:cnonce:qop:HA2) as for qop=auth (section 3.4.1), over the RFC 7616 section 3.9.1 example.
    const base = vectors[2]?.input as DigestResponseInput;
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    const expected = (nonce: string, cnonce: string) => {
      const ha1 = sha(`${sha('Mufasa:http-auth@example.org:Circle of Life')}:${nonce}:${cnonce}`);
      return sha(`${ha1}:${nonce}:00000001:${cnonce}:auth:${sha('GET:/dir/index.html')}`);
    };
    const sessOf = (nonce: string, cnonce: string) =>
      computeDigestResponse({ ...base, cnonce, challenge: { ...base.challenge, nonce, algorithm: 'SHA-256-sess' } });
    const sess = sessOf(rfc7616Challenge.nonce, rfc7616.cnonce);
    expect(sess).toBe(expected(rfc7616Challenge.nonce, rfc7616.cnonce));
    expect(sess).not.toBe(vectors[2]?.expected);
    expect(sessOf(rfc7616Challenge.nonce, 'x')).toBe(expected(rfc7616Challenge.nonce, 'x'));
    expect(sessOf('other-nonce', rfc7616.cnonce)).toBe(expected('other-nonce', rfc7616.cnonce));
    const md5Sess = computeDigestResponse({ ...base, challenge: { ...base.challenge, algorithm: 'MD5-sess' } });
    const md5Ha1 = md5(
      `${md5('Mufasa:http-auth@example.org:Circle of Life')}:${rfc7616Challenge.nonce}:${rfc7616.cnonce}`,
    );
    expect(md5Sess).toBe(
      md5(`${md5Ha1}:${rfc7616Challenge.nonce}:00000001:${rfc7616.cnonce}:auth:${md5('GET:/dir/index.html')}`),
    );
  });

  it('builds the Authorization header with the RFC 7616 example fields', () => {
    const header = buildDigestAuthorization(vectors[2]?.input as DigestResponseInput);
    const [parsed] = parseAuthenticateHeader(header);
    expect(parsed?.scheme).toBe('Digest');
    expect(Object.fromEntries(parsed?.params ?? [])).toEqual({
      username: 'Mufasa',
      realm: 'http-auth@example.org',
      nonce: rfc7616Challenge.nonce,
      uri: '/dir/index.html',
      algorithm: 'SHA-256',
      response: '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
      qop: 'auth',
      nc: '00000001',
      cnonce: rfc7616.cnonce,
      opaque: rfc7616Challenge.opaque,
    });
    expect(header).toContain('nc=00000001');
    expect(header).toContain('qop=auth,');
  });

  it('escapes backslashes and quotes in quoted fields, so the server reads back what was hashed', () => {
    const input = {
      ...(vectors[2]?.input as DigestResponseInput),
      username: 'CORP\\ops "bot"',
      challenge: { realm: 'r', nonce: 'n', algorithm: 'MD5', qop: 'auth' },
    } as DigestResponseInput;
    const [parsed] = parseAuthenticateHeader(buildDigestAuthorization(input));
    expect(parsed?.params.get('username')).toBe('CORP\\ops "bot"');
  });

  it('an RFC 2069 answer (no qop) carries no qop, nc or cnonce', () => {
    const input = {
      ...(vectors[2]?.input as DigestResponseInput),
      challenge: { realm: 'r', nonce: 'n', algorithm: 'MD5', qop: null },
    } as DigestResponseInput;
    const [parsed] = parseAuthenticateHeader(buildDigestAuthorization(input));
    expect([...(parsed?.params.keys() ?? [])]).toEqual(['username', 'realm', 'nonce', 'uri', 'algorithm', 'response']);
  });

  it.each([
    [1, '00000001'],
    [255, '000000ff'],
    [0xffffffff, 'ffffffff'],
  ])('formats nc %i as %s', (nc, text) => {
    expect(formatNonceCount(nc)).toBe(text);
  });

  it.each([0, -1, 1.5, 0x100000000])('rejects nc %s', (nc) => {
    expect(() => formatNonceCount(nc)).toThrow(RangeError);
  });
});
