/**
 * The run lease: an apply holds it for its whole read-plan-write phase. A held lease is waited for up to
 * `leaseWaitMs`, then the run fails fast naming the holder; the store takes over an expired one. While held it is
 * renewed whenever at most half of its time is left, and otherwise checked (where the store can) before a write, at
 * most every LEASE_CHECK_EVERY_MS.
 */
import { LeaseHeldError, LeaseWaitInterruptedError } from './errors.ts';
import { interruptReason } from './interrupt.ts';
import type { Clock, Lease, StateStore } from './ports.ts';

/**
 * Start of the run warning that says the lease could not be released (the rest says why): it stays until it expires,
 * and runs until then are refused (LEASE_HELD). The handlers surface it (summary and log).
 */
export const LEASE_RELEASE_FAILED = 'lease release failed';

/** Lease timing. */
export interface LeaseOptions {
  /** Lifetime of the lease; a little longer than the longest run. Default 15 minutes. */
  ttlMs: number;
  /** Pause between attempts while waiting for a held lease. Default 500 ms. */
  retryEveryMs: number;
}

/** Defaults of LeaseOptions. */
export const DEFAULT_LEASE_OPTIONS: LeaseOptions = { ttlMs: 15 * 60_000, retryEveryMs: 500 };

/**
 * Least time between two checks of a held lease (between renewals). Writes run eight at a time, thousands per apply:
 * a check per write cost a read of lease.json each (20,000 for a first apply at 1,000 x 20). Within this time a run
 * whose lock `unlock` removed still stops before its next write starts, give or take the writes already past their
 * check, and the writes waiting on one check share it.
 */
export const LEASE_CHECK_EVERY_MS = 250;

/** A lease being held, renewed on demand. */
export class HeldLease {
  private current: Lease;
  /** When the last check found the lease ours (clock ms), the check in flight, and the loss a check found. */
  private checkedAt: number | undefined;
  private checking: Promise<void> | undefined;
  private lost: unknown;

  constructor(
    private readonly store: StateStore,
    lease: Lease,
    private readonly clock: Clock,
    private readonly options: LeaseOptions,
  ) {
    this.current = lease;
  }

  /** The lease as last acquired or renewed. */
  get lease(): Lease {
    return this.current;
  }

  /**
   * Called before each write (and after each planned target): renews when at most half the lifetime is left, else
   * checks that the lease is still ours (when the store can: `checkLease`; at most every LEASE_CHECK_EVERY_MS); throws
   * LeaseLostError when it is not.
   * Why check between renewals: `unlock` of a run still alive frees its lease at once, and a run taking it then must
   * not write beside one that would otherwise find out only at its next renewal, up to half a lifetime later.
   */
  async keepAlive(): Promise<void> {
    if (this.lost !== undefined) throw this.lost;
    const now = this.clock.now().getTime();
    const left = Date.parse(this.current.expiresAt) - now;
    if (left > this.options.ttlMs / 2) {
      if (this.checkedAt !== undefined && now - this.checkedAt < LEASE_CHECK_EVERY_MS) return;
      await this.check(now);
      return;
    }
    this.current = await this.store.renewLease(this.current, this.options.ttlMs);
  }

  /** One checkLease for every caller waiting on it; a loss it finds is thrown to every later caller too. */
  private check(now: number): Promise<void> {
    const checkLease = this.store.checkLease?.bind(this.store);
    if (checkLease === undefined) return Promise.resolve();
    this.checking ??= checkLease(this.current).then(
      () => {
        this.checkedAt = now;
        this.checking = undefined;
      },
      (error: unknown) => {
        this.lost = error;
        this.checking = undefined;
        throw error;
      },
    );
    return this.checking;
  }

  /** Releases the lease (the store releases only if it is still ours). */
  async release(): Promise<void> {
    await this.store.releaseLease(this.current);
  }
}

/**
 * Acquires the lease, waiting up to `waitMs` while another run holds it: LeaseHeldError once that time is out, or
 * LeaseWaitInterruptedError (code INTERRUPTED) as soon as `signal` is aborted.
 */
export async function acquireLease(
  store: StateStore,
  clock: Clock,
  request: { owner: string; runId: string; waitMs: number; signal?: AbortSignal },
  options: LeaseOptions = DEFAULT_LEASE_OPTIONS,
): Promise<HeldLease> {
  const started = clock.now().getTime();
  // The time the refusal reports as waited: only once a retry slept (the first attempt's own round trip, 146 ms to
  // S3, say, is no wait: `--lease-wait 0` said "waited 146 ms").
  let slept = false;
  for (;;) {
    try {
      const lease = await store.acquireLease({ owner: request.owner, runId: request.runId, ttlMs: options.ttlMs });
      return new HeldLease(store, lease, clock, options);
    } catch (error) {
      if (!(error instanceof LeaseHeldError)) throw error;
      const waited = clock.now().getTime() - started;
      const held = slept && waited > 0 ? new LeaseHeldError(error.holder, waited) : error;
      // A stopped run waits no longer (checked at each retry, so within retryEveryMs), and says it was stopped: a
      // person who pressed Ctrl-C asked for that, the lock held was only what it was waiting for.
      if (request.signal?.aborted) throw new LeaseWaitInterruptedError(held, interruptReason(request.signal), waited);
      if (waited >= request.waitMs) throw held;
      await clock.sleep(Math.min(options.retryEveryMs, request.waitMs - waited));
      slept = true;
    }
  }
}
