// Scenario: an apply's writes each call keepAlive before they start (thousands per run, eight at a time). Between
// renewals the lease is checked against the store at most every LEASE_CHECK_EVERY_MS, the writes waiting on one check
// share it, and a loss it finds stops every later write without asking the store again.
import { describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../../lambdas/core/errors.ts';
import { HeldLease, LEASE_CHECK_EVERY_MS } from '../../../lambdas/core/lease.ts';
import type { Clock, Lease, StateStore } from '../../../lambdas/core/ports.ts';

const TTL = 15 * 60_000;

function world() {
  let nowMs = Date.parse('2026-11-27T12:00:00Z');
  const clock: Clock = { now: () => new Date(nowMs), sleep: async () => undefined };
  const lease: Lease = {
    owner: 'o',
    runId: 'run-a',
    token: 't',
    expiresAt: new Date(nowMs + TTL).toISOString(),
  } as Lease;
  let checks = 0;
  let ours = true;
  const store = {
    checkLease: async () => {
      checks++;
      await new Promise((r) => setTimeout(r, 1));
      if (!ours) throw new LeaseLostError('lease.json was removed (unlock?)');
    },
    renewLease: async () => {
      throw new Error('no renewal is due');
    },
  } as unknown as StateStore;
  const held = new HeldLease(store, lease, clock, { ttlMs: TTL, retryEveryMs: 500 });
  return {
    held,
    checks: () => checks,
    advance: (ms: number) => {
      nowMs += ms;
    },
    lose: () => {
      ours = false;
    },
  };
}

describe('HeldLease.keepAlive between renewals', () => {
  it('eight writes at once share one check; the next check comes LEASE_CHECK_EVERY_MS after it', async () => {
    const w = world();
    await Promise.all(Array.from({ length: 8 }, () => w.held.keepAlive()));
    expect(w.checks()).toBe(1);
    for (let i = 0; i < 100; i++) await w.held.keepAlive();
    expect(w.checks()).toBe(1);
    w.advance(LEASE_CHECK_EVERY_MS - 1);
    await w.held.keepAlive();
    expect(w.checks()).toBe(1);
    w.advance(1);
    await w.held.keepAlive();
    expect(w.checks()).toBe(2);
  });

  it('a lost lease found by one check stops every waiting and later write, without asking the store again', async () => {
    const w = world();
    await w.held.keepAlive();
    w.lose();
    w.advance(LEASE_CHECK_EVERY_MS);
    const waiting = await Promise.allSettled(Array.from({ length: 8 }, () => w.held.keepAlive()));
    expect(waiting.map((r) => r.status)).toEqual(Array(8).fill('rejected'));
    expect(w.checks()).toBe(2);
    await expect(w.held.keepAlive()).rejects.toThrow(LeaseLostError);
    expect(w.checks()).toBe(2);
  });
});

describe('HeldLease.keepAlive at half its lifetime', () => {
  it('checks while more than half of the lifetime is left, and renews once half of it is gone', async () => {
    const w = world();
    w.advance(TTL / 2 - 1);
    await w.held.keepAlive();
    expect(w.checks()).toBe(1);
    w.advance(1);
    // The world's store refuses renewals: reaching renewLease is what this asks.
    await expect(w.held.keepAlive()).rejects.toThrow('no renewal is due');
    expect(w.checks()).toBe(1);
  });
});
