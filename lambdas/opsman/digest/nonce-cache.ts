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
  readonly #cnonce: () => string;

  /** `cnonce` is injectable for tests; the default draws 16 bytes from node:crypto. */
  constructor(cnonce: () => string = generateCnonce) {
    this.#cnonce = cnonce;
  }

  /** Remembers a fresh challenge for `origin`, replacing any older nonce. */
  store(origin: string, challenge: DigestChallenge): void {
    const sessionCnonce = challenge.algorithm.endsWith('-sess') ? this.#cnonce() : null;
    this.#entries.set(origin, { challenge, nc: 0, sessionCnonce });
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

  /** Forgets the nonce of `origin`, but only if it is still `nonce` (a concurrent request may have stored a newer one). */
  invalidate(origin: string, nonce: string): void {
    if (this.#entries.get(origin)?.challenge.nonce === nonce) this.#entries.delete(origin);
  }

  /** Whether a nonce is cached for `origin`. */
  has(origin: string): boolean {
    return this.#entries.has(origin);
  }
}
