/**
 * Per-origin nonce cache: one challenge answered per nonce lifetime, then the nonce is reused with an increasing nc
 * (RFC 7616 section 3.4), so a run costs one extra round trip per nonce, not one per request.
 */
import type { DigestChallenge } from './challenge.ts';
import { generateCnonce } from './response.ts';

/** What one request needs to sign itself with a cached nonce. */
export interface NonceUse {
  challenge: DigestChallenge;
  nc: number;
  cnonce: string;
}

interface Entry {
  challenge: DigestChallenge;
  nc: number;
  /** For -sess algorithms the cnonce stays fixed per nonce, so servers that derive the session key once agree. */
  sessionCnonce: string | null;
}

const MAX_NC = 0xffffffff;

/** Cached nonces keyed by origin (`https://host:port`). */
export class NonceCache {
  readonly #entries = new Map<string, Entry>();
  readonly #priming = new Map<string, { done: Promise<void>; resolve: () => void }>();
  readonly #cnonce: () => string;

  /** `cnonce` is injectable for tests; the default draws 16 bytes from node:crypto. */
  constructor(cnonce: () => string = generateCnonce) {
    this.#cnonce = cnonce;
  }

  /**
   * The first use (nc=1) of a fresh challenge, kept private to the request that answers it: the nonce is published
   * with {@link store} only once that answer was accepted, so servers that insist on nc arriving in order (Apache
   * with AuthDigestNcCheck) always see nc=1 first.
   */
  firstUse(challenge: DigestChallenge): NonceUse {
    return { challenge, nc: 1, cnonce: this.#cnonce() };
  }

  /**
   * Publishes a nonce for `origin` (replacing any older one) after `used` was accepted, and wakes requests waiting
   * for one. Later requests continue with nc = used.nc + 1.
   */
  store(origin: string, used: NonceUse): void {
    const sessionCnonce = used.challenge.algorithm.endsWith('-sess') ? used.cnonce : null;
    this.#entries.set(origin, { challenge: used.challenge, nc: used.nc, sessionCnonce });
    this.endPriming(origin);
  }

  /**
   * Single flight for the first challenge of an origin: the first caller without a nonce gets true and fetches it;
   * later callers get the promise of that fetch, so a cold start with N parallel requests costs one challenge, not N.
   */
  beginPriming(origin: string): true | Promise<void> {
    const pending = this.#priming.get(origin);
    if (pending !== undefined) return pending.done;
    let resolve: () => void = () => undefined;
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    this.#priming.set(origin, { done, resolve });
    return true;
  }

  /** Ends the priming of `origin` (a nonce was stored, or the priming request failed); waiters then retry. */
  endPriming(origin: string): void {
    const pending = this.#priming.get(origin);
    if (pending === undefined) return;
    this.#priming.delete(origin);
    pending.resolve();
  }

  /** The next use of the cached nonce (nc incremented), or null when none is cached or its nc space is spent. */
  next(origin: string): NonceUse | null {
    const entry = this.#entries.get(origin);
    if (entry === undefined) return null;
    if (entry.nc >= MAX_NC) {
      this.#entries.delete(origin);
      return null;
    }
    entry.nc += 1;
    return { challenge: entry.challenge, nc: entry.nc, cnonce: entry.sessionCnonce ?? this.#cnonce() };
  }

  /**
   * Moves `origin` to the `nextnonce` a server named in `Authentication-Info` (RFC 7616 section 3.5), same realm,
   * algorithm, qop and opaque, its next use nc=1; only while `current` is still the cached nonce (a concurrent
   * request may have stored a newer one). Servers such as Apache's mod_auth_digest hand one out near a nonce's end
   * and refuse the old nonce's next nc: following it saves a 401 round trip per request.
   */
  renew(origin: string, current: string, nextnonce: string): void {
    const entry = this.#entries.get(origin);
    if (entry === undefined || entry.challenge.nonce !== current || nextnonce === current || nextnonce === '') return;
    const challenge: DigestChallenge = { ...entry.challenge, nonce: nextnonce, stale: false };
    const sessionCnonce = challenge.algorithm.endsWith('-sess') ? this.#cnonce() : null;
    this.#entries.set(origin, { challenge, nc: 0, sessionCnonce });
  }

  /** Forgets the nonce of `origin`, but only if it is still `nonce` (a concurrent request may have stored a newer one). */
  invalidate(origin: string, nonce: string): void {
    if (this.#entries.get(origin)?.challenge.nonce === nonce) this.#entries.delete(origin);
  }

  /** Whether a nonce is cached for `origin`. */
  has(origin: string): boolean {
    return this.#entries.has(origin);
  }
}
