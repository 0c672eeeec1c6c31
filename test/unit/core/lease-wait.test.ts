// acquireLease's wait loop (lambdas/core/lease.ts): how long it waits for a held lease, how it paces its attempts,
// and which failures it does not wait out.
import { describe, expect, it } from 'vitest';
import { LeaseHeldError } from '../../../lambdas/core/errors.ts';
import { acquireLease } from '../../../lambdas/core/lease.ts';
import type { Clock, Lease, StateStore } from '../../../lambdas/core/ports.ts';

const holder = { owner: 'other', runId: 'run-b', expiresAt: '2026-11-27T12:15:00.000Z' };

/** A store whose lease another run holds (or that fails with `failure`), on a clock only its sleeps move. */
function world(failure: () => Error = () => new LeaseHeldError(holder)) {
  let nowMs = Date.parse('2026-11-27T12:00:00Z');
  const sleeps: number[] = [];
  let attempts = 0;
  const clock: Clock = {
    now: () => new Date(nowMs),
    sleep: async (ms) => {
      sleeps.push(ms);
      nowMs += ms;
    },
  };
  const store = {
    acquireLease: async (): Promise<Lease> => {
      attempts++;
      // A loop that never gives up would spin here for ever: stop it with an error no test expects.
      if (attempts > 20) throw new Error('too many attempts');
      throw failure();
    },
  } as unknown as StateStore;
  return { store, clock, sleeps, attempts: () => attempts };
}

const request = (waitMs: number) => ({ owner: 'me', runId: 'run-a', waitMs });

describe('acquireLease waiting for a held lease', () => {
  it('with no time to wait, tries once and refuses at once', async () => {
    const w = world();
    await expect(acquireLease(w.store, w.clock, request(0))).rejects.toThrow(LeaseHeldError);
    expect(w.attempts()).toBe(1);
    expect(w.sleeps).toEqual([]);
  });

  it('with no time to wait, says nothing of waiting though the attempt itself took time (a slow store)', async () => {
    const w = world();
    const slow: Clock = { now: () => new Date(w.clock.now().getTime() + w.attempts() * 146), sleep: w.clock.sleep };
    const error = await acquireLease(w.store, slow, request(0)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect((error as Error).message).toContain('another run holds the lease: other (run run-b');
    expect((error as Error).message).not.toContain('waited');
  });

  it('retries every retryEveryMs and refuses once waitMs is spent, without one more attempt', async () => {
    const w = world();
    const error = await acquireLease(w.store, w.clock, request(1_000), { ttlMs: 60_000, retryEveryMs: 500 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect((error as Error).message).toContain('waited 1000 ms');
    expect(w.sleeps).toEqual([500, 500]);
    expect(w.attempts()).toBe(3);
  });

  it('shortens the last pause so that the wait ends at waitMs, not a retry later', async () => {
    const w = world();
    const error = await acquireLease(w.store, w.clock, request(1_200), { ttlMs: 60_000, retryEveryMs: 500 }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toContain('waited 1200 ms');
    expect(w.sleeps).toEqual([500, 500, 200]);
  });

  it('does not wait out a failure other than a held lease: the store error is thrown as it is, at once', async () => {
    const failure = new Error('access denied');
    const w = world(() => failure);
    await expect(acquireLease(w.store, w.clock, request(5_000))).rejects.toBe(failure);
    expect(w.attempts()).toBe(1);
    expect(w.sleeps).toEqual([]);
  });
});
