// Scenario: the Digest primitives (challenge text, header parsing, RFC vectors) and the nonce store's replay rules.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { challengeHeader, expectedResponse, parseDigestAuthorization } from '../../../emulator/auth/digest.ts';
import { MAX_NONCES, NonceStore, REPLAY_WINDOW } from '../../../emulator/auth/nonces.ts';

describe('challengeHeader', () => {
  it('is byte-for-byte the real product challenge', () => {
    expect(challengeHeader('abc', false)).toBe(
      'Digest realm="MMS Public API", domain="", nonce="abc", algorithm=MD5, qop="auth", stale=false',
    );
    expect(challengeHeader('xyz', true)).toMatch(/, stale=true$/);
  });
});

describe('parseDigestAuthorization', () => {
  it.each([
    ['quoted values', 'Digest username="a", nonce="n", uri="/x?y=1,2"', { username: 'a', nonce: 'n', uri: '/x?y=1,2' }],
    ['bare values', 'Digest qop=auth, nc=00000001, algorithm=MD5', { qop: 'auth', nc: '00000001', algorithm: 'MD5' }],
    ['escaped quote', 'Digest username="a\\"b"', { username: 'a"b' }],
    ['case-insensitive scheme and names', 'digest USERNAME="u"', { username: 'u' }],
  ])('parses %s', (_name, header, expected) => {
    expect(parseDigestAuthorization(header)).toMatchObject(expected);
  });

  it.each([
    ['basic scheme', 'Basic dXNlcjpwYXNz'],
    ['unterminated quote', 'Digest username="abc'],
    ['duplicate directive', 'Digest nc=1, nc=2'],
    ['missing =', 'Digest username'],
    ['absent', undefined],
  ])('rejects %s', (_name, header) => {
    expect(parseDigestAuthorization(header)).toBeNull();
  });
});

describe('expectedResponse', () => {
  it('matches the RFC 2617 section 3.5 vector (MD5, qop=auth)', () => {
    const c = {
      username: 'Mufasa',
      realm: 'testrealm@host.com',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
      uri: '/dir/index.html',
      qop: 'auth',
      nc: '00000001',
      cnonce: '0a4f113b',
    };
    expect(expectedResponse(c, 'GET', 'Circle Of Life')).toBe('6629fae49393a05397450978507c4ef1');
  });

  it('matches the RFC 7616 section 3.9.1 vectors (MD5 and SHA-256)', () => {
    const base = {
      username: 'Mufasa',
      realm: 'http-auth@example.org',
      nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
      uri: '/dir/index.html',
      qop: 'auth',
      nc: '00000001',
      cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
    };
    expect(expectedResponse({ ...base, algorithm: 'MD5' }, 'GET', 'Circle of Life')).toBe(
      '8ca523f5e9506fed4657c9700eebdbec',
    );
    expect(expectedResponse({ ...base, algorithm: 'SHA-256' }, 'GET', 'Circle of Life')).toBe(
      '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
    );
  });

  it('hashes the -sess algorithms with HA1 over the password hash, nonce and cnonce (RFC 7616 section 3.4.2)', () => {
    const c = { username: 'u', realm: 'r', nonce: 'n', uri: '/x', qop: 'auth', nc: '00000001', cnonce: 'c' };
    for (const [algorithm, hash] of [
      ['MD5-sess', 'md5'],
      ['SHA-256-sess', 'sha256'],
    ] as const) {
      const h = (s: string) => createHash(hash).update(s).digest('hex');
      const ha1 = h(`${h('u:r:p')}:n:c`);
      expect(expectedResponse({ ...c, algorithm }, 'GET', 'p')).toBe(h(`${ha1}:n:00000001:c:auth:${h('GET:/x')}`));
    }
  });

  it('hashes nc exactly as sent (1 and 00000001 differ)', () => {
    const c = { username: 'u', realm: 'r', nonce: 'n', uri: '/', qop: 'auth', cnonce: 'c' };
    expect(expectedResponse({ ...c, nc: '1' }, 'GET', 'p')).not.toBe(
      expectedResponse({ ...c, nc: '00000001' }, 'GET', 'p'),
    );
  });
});

describe('NonceStore', () => {
  it('accepts increasing and out-of-order nc, refuses replays', () => {
    const store = new NonceStore(60_000);
    const n = store.issue();
    expect([store.use(n, 1), store.use(n, 3), store.use(n, 2), store.use(n, 2), store.use(n, 1)]).toEqual([
      'ok',
      'ok',
      'ok',
      'replay',
      'replay',
    ]);
  });

  it('refuses nc far below the highest seen', () => {
    const store = new NonceStore(60_000);
    const n = store.issue();
    expect(store.use(n, REPLAY_WINDOW + 10)).toBe('ok');
    expect(store.use(n, 5)).toBe('replay');
  });

  it('reports expired and unknown nonces as stale', () => {
    let now = 1_000;
    const store = new NonceStore(100, () => now);
    const n = store.issue();
    now += 100;
    expect(store.use(n, 1)).toBe('ok'); // valid for ttlMs, the last millisecond included
    now += 1;
    expect(store.use(n, 2)).toBe('stale');
    expect(store.use('never-issued', 1)).toBe('stale');
    const m = store.issue();
    store.expireAll();
    expect(store.use(m, 1)).toBe('stale');
  });

  it('past MAX_NONCES, each challenge drops the oldest nonce in constant time, not by walking them all', () => {
    // A client sending nothing but unauthenticated requests gets a nonce each: with the store full, every challenge
    // walked all 20,000 entries (about 40 times the cost of a challenge below the cap). Counted in entries visited by
    // the sweep, not in time.
    const store = new NonceStore(60_000);
    const first = store.issue();
    for (let i = 1; i < MAX_NONCES; i++) store.issue();
    const second = store.issue();
    expect(store.use(first, 1)).toBe('stale');
    const challenges = 3 * MAX_NONCES;
    // Each sweep visits the oldest nonce (dropped) and the next one (live, within the cap): two, not 20,000.
    const limit = 2 * (challenges + 1); // and the last issue() below
    let visited = 0;
    class CountingMap<K, V> extends Map<K, V> {
      override *[Symbol.iterator](): MapIterator<[K, V]> {
        for (const entry of super.entries()) {
          // Thrown at once past the bound: a walk over the whole store would take minutes to count out.
          if (++visited > limit) throw new Error(`the sweeps visited more than ${limit} nonces`);
          yield entry;
        }
      }
    }
    const internals = store as unknown as { entries: Map<string, unknown> };
    internals.entries = new CountingMap(internals.entries);
    for (let i = 0; i < challenges; i++) store.issue();
    expect(visited).toBeGreaterThan(0);
    expect(store.use(second, 1)).toBe('stale');
    const latest = store.issue();
    expect(store.use(latest, 1)).toBe('ok');
  });
});
