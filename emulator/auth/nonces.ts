/**
 * Nonces: issued with each challenge, valid for `ttlMs`. A nonce may be reused with any nc not seen before (clients
 * with several requests in flight send them out of order); an nc seen before is a replay. nc values more than
 * `REPLAY_WINDOW` below the highest seen are refused too, so memory per nonce stays bounded.
 */
import { randomBytes } from 'node:crypto';

/** How far below the highest nc a late request may arrive. */
export const REPLAY_WINDOW = 4096;

/** At most this many live nonces are kept; the oldest are dropped first. */
export const MAX_NONCES = 20_000;

interface NonceEntry {
  issuedAt: number;
  maxNc: number;
  seen: Set<number>;
}

/** Result of using a nonce with an nc. */
export type NonceCheck = 'ok' | 'stale' | 'replay';

/** The nonce store of one emulator. */
export class NonceStore {
  private readonly entries = new Map<string, NonceEntry>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Issues a fresh nonce. */
  issue(): string {
    const nonce = randomBytes(18).toString('base64url');
    this.entries.set(nonce, { issuedAt: this.now(), maxNc: 0, seen: new Set() });
    if (this.entries.size > MAX_NONCES) this.sweep();
    return nonce;
  }

  /** Records the use of `nonce` with counter `nc` (already parsed from hex). */
  use(nonce: string, nc: number): NonceCheck {
    const entry = this.entries.get(nonce);
    if (!entry) return 'stale';
    if (this.now() - entry.issuedAt > this.ttlMs) {
      this.entries.delete(nonce);
      return 'stale';
    }
    if (entry.seen.has(nc) || nc <= entry.maxNc - REPLAY_WINDOW) return 'replay';
    entry.seen.add(nc);
    if (nc > entry.maxNc) {
      entry.maxNc = nc;
      if (entry.seen.size > REPLAY_WINDOW * 2) {
        for (const n of entry.seen) if (n <= nc - REPLAY_WINDOW) entry.seen.delete(n);
      }
    }
    return 'ok';
  }

  /** Makes every issued nonce stale (admin API). */
  expireAll(): void {
    this.entries.clear();
  }

  /**
   * Drops expired nonces and, past MAX_NONCES, the oldest. The map is in issue order, so the walk stops at the first
   * nonce that is live and within the cap: with the store full, a challenge costs one deletion, not a walk over all.
   */
  private sweep(): void {
    const now = this.now();
    for (const [nonce, entry] of this.entries) {
      if (now - entry.issuedAt <= this.ttlMs && this.entries.size <= MAX_NONCES) break;
      this.entries.delete(nonce);
    }
  }
}
