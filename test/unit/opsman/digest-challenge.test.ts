// Scenario: WWW-Authenticate values from many real servers parse, the strongest Digest challenge wins, and malformed ones fail cleanly.
import { describe, expect, it } from 'vitest';
import {
  DigestError,
  parseAuthenticateHeader,
  parseAuthenticationInfo,
  selectDigestChallenge,
} from '../../../lambdas/opsman/digest/index.ts';

describe('parseAuthenticateHeader', () => {
  const table: { name: string; header: string; expected: { scheme: string; params?: Record<string, string> }[] }[] = [
    {
      name: 'Ops Manager form (quoted, unquoted algorithm and stale, empty domain)',
      header: 'Digest realm="MMS Public API", domain="", nonce="abc/DEF+1=", algorithm=MD5, qop="auth", stale=false',
      expected: [
        {
          scheme: 'Digest',
          params: {
            realm: 'MMS Public API',
            domain: '',
            nonce: 'abc/DEF+1=',
            algorithm: 'MD5',
            qop: 'auth',
            stale: 'false',
          },
        },
      ],
    },
    {
      name: 'Apache mod_auth_digest form',
      header: 'Digest realm="private area", nonce="n0/+=", algorithm=MD5, qop="auth,auth-int", opaque="0p"',
      expected: [
        {
          scheme: 'Digest',
          params: { realm: 'private area', nonce: 'n0/+=', algorithm: 'MD5', qop: 'auth,auth-int', opaque: '0p' },
        },
      ],
    },
    {
      name: 'any order, bare values, no spaces, upper-case names',
      header: 'digest QOP=auth,NONCE=xyz,Realm="r",ALGORITHM=SHA-256',
      expected: [{ scheme: 'digest', params: { qop: 'auth', nonce: 'xyz', realm: 'r', algorithm: 'SHA-256' } }],
    },
    {
      name: 'escaped quotes and commas inside a quoted string',
      header: 'Digest realm="a \\"quoted\\", realm", nonce="n"',
      expected: [{ scheme: 'Digest', params: { realm: 'a "quoted", realm', nonce: 'n' } }],
    },
    {
      name: 'spaces around = and extra commas',
      header: ' , Digest realm = "r" ,, nonce= "n" , ',
      expected: [{ scheme: 'Digest', params: { realm: 'r', nonce: 'n' } }],
    },
    {
      name: 'several challenges in one header, with token68 and bare schemes',
      header: 'Negotiate, Basic realm="b", Digest realm="d", nonce="1", algorithm=MD5, NTLM abc+/==, Bearer',
      expected: [
        { scheme: 'Negotiate', params: {} },
        { scheme: 'Basic', params: { realm: 'b' } },
        { scheme: 'Digest', params: { realm: 'd', nonce: '1', algorithm: 'MD5' } },
        { scheme: 'NTLM', params: {} },
        { scheme: 'Bearer', params: {} },
      ],
    },
    {
      name: 'unknown directives are kept',
      header: 'Digest realm="r", nonce="n", charset=UTF-8, userhash=false, x-vendor="y"',
      expected: [
        { scheme: 'Digest', params: { realm: 'r', nonce: 'n', charset: 'UTF-8', userhash: 'false', 'x-vendor': 'y' } },
      ],
    },
  ];

  it.each(table)('$name', ({ header, expected }) => {
    const parsed = parseAuthenticateHeader(header);
    expect(parsed.map((c) => ({ scheme: c.scheme, params: Object.fromEntries(c.params) }))).toEqual(
      expected.map((e) => ({ scheme: e.scheme, params: e.params ?? {} })),
    );
  });

  it('keeps the token68 of a non-Digest challenge', () => {
    expect(parseAuthenticateHeader('NTLM abc+/==')[0]?.token68).toBe('abc+/==');
  });

  const malformed: { header: string; reason: RegExp }[] = [
    { header: '', reason: /no challenge/ },
    { header: 'Digest realm="unterminated', reason: /unterminated quoted string/ },
    { header: 'Digest realm="r" nonce="n"', reason: /expected ','/ },
    { header: 'Digest realm=, nonce="n"', reason: /expected a space after the scheme/ },
    { header: 'Digest realm="r", nonce=', reason: /expected a token or a quoted string/ },
    { header: 'Digest realm="r", realm="s", nonce="n"', reason: /appears twice/ },
    { header: '"Digest" realm="r"', reason: /expected an authentication scheme/ },
    { header: 'Digest realm="r", nonce="n\\', reason: /dangling escape|unterminated/ },
    { header: 'Digest; realm="r"', reason: /expected a space after the scheme/ },
    { header: 'Digest realm="r", =x', reason: /expected an authentication scheme|parameter name/ },
  ];

  it.each(malformed)('rejects $header', ({ header, reason }) => {
    let caught: unknown;
    try {
      parseAuthenticateHeader(header);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DigestError);
    expect((caught as DigestError).code).toBe('DIGEST_MALFORMED_CHALLENGE');
    expect((caught as DigestError).message).toMatch(reason);
  });
});

describe('selectDigestChallenge', () => {
  const table: { name: string; header: string | string[]; algorithm: string; nonce: string; qop: string | null }[] = [
    {
      name: 'defaults to MD5 without algorithm',
      header: 'Digest realm="r", nonce="n1", qop="auth"',
      algorithm: 'MD5',
      nonce: 'n1',
      qop: 'auth',
    },
    {
      name: 'SHA-256 beats MD5 regardless of order (RFC 7616 section 3.9.1 double challenge)',
      header:
        'Digest realm="r", nonce="md5", algorithm=MD5, qop="auth", Digest realm="r", nonce="sha", algorithm=SHA-256, qop="auth"',
      algorithm: 'SHA-256',
      nonce: 'sha',
      qop: 'auth',
    },
    {
      name: 'challenges split over several header lines',
      header: [
        'Basic realm="x"',
        'Digest realm="r", nonce="a", algorithm=MD5',
        'Digest realm="r", nonce="b", algorithm=SHA-256-sess, qop="auth"',
      ],
      algorithm: 'SHA-256-sess',
      nonce: 'b',
      qop: 'auth',
    },
    {
      name: 'the first of equal strength wins (-sess listed first)',
      header:
        'Digest realm="r", nonce="s", algorithm=MD5-sess, qop="auth", Digest realm="r", nonce="p", algorithm=MD5, qop="auth"',
      algorithm: 'MD5-sess',
      nonce: 's',
      qop: 'auth',
    },
    {
      name: 'a -sess challenge without qop is skipped: its HA1 needs a cnonce that only a qop answer may send',
      header: 'Digest realm="r", nonce="s", algorithm=SHA-256-sess, Digest realm="r", nonce="m", algorithm=MD5',
      algorithm: 'MD5',
      nonce: 'm',
      qop: null,
    },
    {
      name: 'unsupported algorithms are skipped',
      header: 'Digest realm="r", nonce="x", algorithm=SHA-1024, Digest realm="r", nonce="y", algorithm=md5',
      algorithm: 'MD5',
      nonce: 'y',
      qop: null,
    },
    {
      name: 'auth chosen from auth,auth-int',
      header: 'Digest realm="private area", nonce="z", algorithm=MD5, qop="auth,auth-int", opaque="o"',
      algorithm: 'MD5',
      nonce: 'z',
      qop: 'auth',
    },
    {
      name: 'SHA-512-256 beats SHA-256-sess listed first',
      header: 'Digest realm="r", nonce="s", algorithm=SHA-256-sess, Digest realm="r", nonce="t", algorithm=SHA-512-256',
      algorithm: 'SHA-512-256',
      nonce: 't',
      qop: null,
    },
    {
      name: 'auth found in a qop list with spaces',
      header: 'Digest realm="r", nonce="q", qop="auth-int, auth"',
      algorithm: 'MD5',
      nonce: 'q',
      qop: 'auth',
    },
    {
      name: 'the spec\'s op="auth" (no qop) is read as qop=auth',
      header: 'Digest realm="MMS Public API", domain="", nonce="o", algorithm=MD5, op="auth", stale=false',
      algorithm: 'MD5',
      nonce: 'o',
      qop: 'auth',
    },
    {
      name: 'op compares in any case, like qop',
      header: 'Digest realm="r", nonce="o1", op=AUTH',
      algorithm: 'MD5',
      nonce: 'o1',
      qop: 'auth',
    },
    {
      name: 'op other than auth, without qop, stays RFC 2069',
      header: 'Digest realm="r", nonce="o2", op="auth-int"',
      algorithm: 'MD5',
      nonce: 'o2',
      qop: null,
    },
    {
      name: 'qop wins over op',
      header: 'Digest realm="r", nonce="o3", qop="auth-int", op="auth", Digest realm="r", nonce="o4"',
      algorithm: 'MD5',
      nonce: 'o4',
      qop: null,
    },
    {
      name: 'a malformed line is skipped when another line is usable',
      header: ['Digest realm="oops', 'Digest realm="r", nonce="ok"'],
      algorithm: 'MD5',
      nonce: 'ok',
      qop: null,
    },
  ];

  it.each(table)('$name', ({ header, algorithm, nonce, qop }) => {
    const challenge = selectDigestChallenge(header);
    expect({ algorithm: challenge.algorithm, nonce: challenge.nonce, qop: challenge.qop }).toEqual({
      algorithm,
      nonce,
      qop,
    });
  });

  it('reads stale and opaque', () => {
    const challenge = selectDigestChallenge('Digest realm="r", nonce="n", stale=TRUE, opaque="op"');
    expect(challenge.stale).toBe(true);
    expect(challenge.opaque).toBe('op');
    expect(challenge.params.get('realm')).toBe('r');
  });

  it('takes only stale=true (any case) as stale: another value is not', () => {
    expect(selectDigestChallenge('Digest realm="r", nonce="n", stale=yes').stale).toBe(false);
    expect(selectDigestChallenge('Digest realm="r", nonce="n"').stale).toBe(false);
  });

  it('a Digest bare token says so, and of two malformed lines the first one is reported', () => {
    expect(() => selectDigestChallenge('Digest abcdef==')).toThrow(/found a bare token/);
    expect(() => selectDigestChallenge(['Digest realm="first', 'Digest realm="r"'])).toThrow(
      /unterminated quoted string/,
    );
  });

  const failures: { header: string | string[] | undefined; code: string }[] = [
    { header: undefined, code: 'DIGEST_NO_CHALLENGE' },
    { header: 'Basic realm="x"', code: 'DIGEST_NO_CHALLENGE' },
    { header: 'Digest realm="r"', code: 'DIGEST_MALFORMED_CHALLENGE' },
    { header: 'Digest nonce="n"', code: 'DIGEST_MALFORMED_CHALLENGE' },
    { header: 'Digest realm="r", nonce=""', code: 'DIGEST_MALFORMED_CHALLENGE' },
    { header: 'Digest abcdef==', code: 'DIGEST_MALFORMED_CHALLENGE' },
    { header: 'Digest realm="r", nonce="n", algorithm=SHA-1', code: 'DIGEST_UNSUPPORTED_CHALLENGE' },
    { header: 'Digest realm="r", nonce="n", qop="auth-int"', code: 'DIGEST_UNSUPPORTED_CHALLENGE' },
    { header: 'Digest realm="r", nonce="n", algorithm=SHA-256-sess', code: 'DIGEST_UNSUPPORTED_CHALLENGE' },
    { header: ['Digest realm="x', 'Basic realm="y"'], code: 'DIGEST_MALFORMED_CHALLENGE' },
  ];

  it.each([
    [undefined, 'carries no WWW-Authenticate challenge at all'],
    ['Basic realm="corp-sso"', 'offers only Basic (realm "corp-sso"), no Digest challenge'],
    [
      ['Bearer realm="api", error="invalid_token"', 'Negotiate'],
      'offers only Bearer (realm "api"), Negotiate, no Digest',
    ],
  ])('a 401 without Digest (%j) says what it offered and what that means', (header, offered) => {
    expect(() => selectDigestChallenge(header)).toThrow(offered);
    expect(() => selectDigestChallenge(header)).toThrow(/probably comes from a proxy or login gateway in front of it/);
  });

  it('names a refused offer briefly and escaped: a long or control-laden server value is cut to 40 characters', () => {
    const algorithm = `X${'y'.repeat(200)}`;
    const message = (() => {
      try {
        selectDigestChallenge([
          `Digest realm="r", nonce="n", algorithm="${algorithm}"`,
          'Digest realm="r", nonce="m", qop="a\tb"',
        ]);
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(message).toContain(`algorithm "X${'y'.repeat(36)}...", qop "a\\tb"`);
    expect(message).not.toContain('y'.repeat(37));
    expect(message).not.toContain('\t');
  });

  it.each(failures)('fails on $header with $code', ({ header, code }) => {
    expect(() => selectDigestChallenge(header)).toThrow(expect.objectContaining({ name: 'DigestError', code }));
  });
});

describe('parseAuthenticationInfo', () => {
  it('reads the parameters of Apache and RFC 7616 forms, names lower-cased, escapes undone', () => {
    const info = parseAuthenticationInfo(
      'rspauth="5f89", NextNonce="CFuR/s9g+BgA=b3", cnonce="3\\"a", nc=00000001, qop=auth',
    );
    expect(info && Object.fromEntries(info)).toEqual({
      rspauth: '5f89',
      nextnonce: 'CFuR/s9g+BgA=b3',
      cnonce: '3"a',
      nc: '00000001',
      qop: 'auth',
    });
    expect(parseAuthenticationInfo('')?.size).toBe(0);
  });

  it.each([
    ['nextnonce="unterminated'],
    ['nextnonce'],
    ['a=1, a=2'],
    ['Digest nextnonce="x"'],
    ['nextnonce="x", trailing'],
  ])('answers undefined for the malformed %j instead of throwing', (value) => {
    expect(parseAuthenticationInfo(value)).toBeUndefined();
  });
});
