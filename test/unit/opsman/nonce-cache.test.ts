// Scenario: the nonce cache hands out increasing nc values per origin, keeps -sess cnonces fixed, publishes a nonce only after its first use, and lets one request prime an origin while the others wait.
import { describe, expect, it } from 'vitest';
import { type DigestChallenge, NonceCache } from '../../../lambdas/opsman/digest/index.ts';

const challenge = (nonce: string, algorithm: DigestChallenge['algorithm'] = 'MD5'): DigestChallenge => ({
  realm: 'r',
  nonce,
  algorithm,
  qop: 'auth',
  stale: false,
  params: new Map(),
});

function counter() {
  let n = 0;
  return () => `c${++n}`;
}

describe('NonceCache', () => {
  it('continues after the first use with nc+1, per origin', () => {
    const cache = new NonceCache(counter());
    expect(cache.next('https://a')).toBeNull();
    const first = cache.firstUse(challenge('n1'));
    expect(first).toMatchObject({ nc: 1, cnonce: 'c1' });
    expect(cache.next('https://a')).toBeNull(); // not published before the answer was accepted
    cache.store('https://a', first);
    expect(
      [cache.next('https://a'), cache.next('https://a')].map((u) => [u?.challenge.nonce, u?.nc, u?.cnonce]),
    ).toEqual([
      ['n1', 2, 'c2'],
      ['n1', 3, 'c3'],
    ]);
    expect(cache.next('https://b')).toBeNull();
  });

  it('moves to a nextnonce with nc=1, same challenge otherwise, only while the named nonce is still cached', () => {
    const cache = new NonceCache(counter());
    const opaque = { ...challenge('n1'), opaque: 'op' };
    cache.store('o', cache.firstUse(opaque));
    cache.next('o');
    cache.renew('o', 'n1', 'n2');
    const use = cache.next('o');
    expect(use).toMatchObject({ nc: 1, challenge: { nonce: 'n2', realm: 'r', algorithm: 'MD5', opaque: 'op' } });
    cache.renew('o', 'n1', 'n3'); // a late answer to a request signed with n1: n2 stays
    expect(cache.next('o')).toMatchObject({ nc: 2, challenge: { nonce: 'n2' } });
    cache.renew('elsewhere', 'n2', 'n4');
    expect(cache.has('elsewhere')).toBe(false);
  });

  it('ignores a nextnonce that is the nonce itself or empty: nc goes on counting, never back to 1', () => {
    const cache = new NonceCache(counter());
    cache.store('o', cache.firstUse(challenge('n1')));
    cache.renew('o', 'n1', 'n1');
    cache.renew('o', 'n1', '');
    expect(cache.next('o')).toMatchObject({ nc: 2, challenge: { nonce: 'n1' } });
  });

  it('uses nc up to ffffffff, then drops the nonce (a fresh challenge follows)', () => {
    const cache = new NonceCache(counter());
    cache.store('o', { ...cache.firstUse(challenge('n1')), nc: 0xfffffffe });
    expect(cache.next('o')?.nc).toBe(0xffffffff);
    expect(cache.next('o')).toBeNull();
    expect(cache.has('o')).toBe(false);
  });

  it('gives a -sess nextnonce a cnonce of its own, fixed for its uses', () => {
    const cache = new NonceCache(counter());
    const first = cache.firstUse(challenge('n1', 'MD5-sess'));
    cache.store('o', first);
    cache.renew('o', 'n1', 'n2');
    const [a, b] = [cache.next('o'), cache.next('o')];
    expect(a?.cnonce).toBe(b?.cnonce);
    expect(a?.cnonce).not.toBe(first.cnonce);
  });

  it('keeps the cnonce of the first use for -sess algorithms', () => {
    const cache = new NonceCache(counter());
    const first = cache.firstUse(challenge('n1', 'SHA-256-sess'));
    cache.store('o', first);
    expect([cache.next('o')?.cnonce, cache.next('o')?.cnonce]).toEqual([first.cnonce, first.cnonce]);
  });

  it('invalidates only the nonce it was told about', () => {
    const cache = new NonceCache(counter());
    cache.store('o', cache.firstUse(challenge('n2')));
    cache.invalidate('o', 'n1');
    expect(cache.has('o')).toBe(true);
    cache.invalidate('o', 'n2');
    expect(cache.has('o')).toBe(false);
  });

  it('single flight: the first caller primes, the others wait until a nonce is stored', async () => {
    const cache = new NonceCache(counter());
    expect(cache.beginPriming('o')).toBe(true);
    const waiting = cache.beginPriming('o');
    expect(waiting).toBeInstanceOf(Promise);
    let woke = false;
    const done = (waiting as Promise<void>).then(() => {
      woke = true;
    });
    await Promise.resolve();
    expect(woke).toBe(false);
    cache.store('o', cache.firstUse(challenge('n1')));
    await done;
    expect(cache.next('o')?.nc).toBe(2);
    expect(cache.beginPriming('o')).toBe(true); // a new priming may start later
    cache.endPriming('o');
  });
});
