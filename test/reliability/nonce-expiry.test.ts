// Scenario: every Digest nonce is expired between runs and repeatedly during an apply; the client re-authenticates and a later run converges with nothing lost or duplicated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_KEY } from '../../bench/world.ts';
import { createOpsManagerClient } from '../../lambdas/opsman/client.ts';
import { FAST_RETRY, type Harness, keptClient, pendingChanges, startHarness } from '../helpers/reliability-harness.ts';

describe('nonces expiring mid-run', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ projects: 3, alerts: 6 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a client kept between runs (a warm Lambda) re-authenticates once when its cached nonce expired in between', async () => {
    const api = keptClient(h.url);
    try {
      const first = await h.run({ command: 'plan' }, {}, api);
      expect(first.error).toBeUndefined();
      // The kept client reuses its nonce: a second run with nothing expired costs no challenge at all.
      await h.admin.clearRequests();
      const warm = await h.run({ command: 'plan' }, {}, api);
      expect(warm.error).toBeUndefined();
      const warmLog = await h.admin.requests();
      expect(warmLog.challenges).toBe(0);
      // Expired between runs: the cached nonce is refused (stale=true) and the client re-authenticates transparently:
      // at most one stale challenge per request already sent with the old nonce (the client's 8 in flight), none after
      // the new nonce is learnt, and the run makes the same API calls as the warm one with nothing failed.
      await h.admin.clearRequests();
      await h.admin.expireNonces();
      const second = await h.run({ command: 'plan' }, {}, api);
      expect(second.error).toBeUndefined();
      expect(second.report?.failures).toEqual([]);
      const log = await h.admin.requests();
      expect(log.challenges).toBeGreaterThanOrEqual(1);
      expect(log.challenges).toBeLessThanOrEqual(8);
      expect(log.total - log.challenges).toBe(warmLog.total);
    } finally {
      await api.close();
    }
  });

  it('converges when nonces go stale every 100 ms during the apply', async () => {
    // The alert-config reads answer after 150 ms: the first expiry lands before any write is sent, so the writes
    // meet a nonce that went stale (an apply quicker than one tick would otherwise see none and prove nothing).
    await h.admin.fault({ method: 'GET', path: '/groups/*/alertConfigs', latencyMs: 150, times: 3 });
    await h.admin.clearRequests();
    let expiriesDuringApply = 0;
    let running = true;
    const expirer = (async () => {
      while (running) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await h.admin.expireNonces();
        // Counted only while the apply still runs: the loop's last tick may land after it ended.
        if (running) expiriesDuringApply++;
      }
    })();
    const apply = await h.run({ command: 'apply' });
    running = false;
    await expirer;
    const log = await h.admin.requests();
    await h.admin.clearFaults();
    expect(apply.error).toBeUndefined();
    expect(expiriesDuringApply).toBeGreaterThanOrEqual(1);
    // A fresh client costs one challenge (single flight); each further one answered a nonce gone stale mid-apply.
    expect(log.challenges).toBeGreaterThan(1);
    expect(log.byRoute['POST /groups/{groupId}/alertConfigs']).toBeGreaterThan(0);

    // A later run finishes whatever a stale nonce interrupted, and the one after has nothing left to do.
    await h.admin.expireNonces();
    const again = await h.run({ command: 'apply' });
    expect(again.error).toBeUndefined();
    expect(again.report?.summary.failed).toBe(0);
    const plan = await h.run({ command: 'plan' });
    expect(pendingChanges(plan.report)).toEqual({});
    expect(await h.inventory()).toEqual([]);
  });

  it('a plan completes with no failure while every nonce is expired after each request it completes', async () => {
    // Driven by the requests, not a timer: a timer fast enough to matter also fails any request slower than it (under
    // CPU load every answer met a nonce gone stale four times, past the client's bound, a failure by design). One
    // request at a time and at most one expiry in flight: each request meets at most one stale nonce, however slow.
    let completed = 0;
    let pending: Promise<void> | undefined;
    const expiries: Promise<void>[] = [];
    const api = createOpsManagerClient({
      baseUrl: h.url,
      publicKey: TOOL_KEY.publicKey,
      privateKey: TOOL_KEY.privateKey,
      retry: FAST_RETRY,
      maxConcurrency: 1,
      observer: {
        onRequest() {
          completed++;
          if (pending !== undefined) return;
          pending = h.admin.expireNonces().finally(() => {
            pending = undefined;
          });
          expiries.push(pending);
        },
      },
    });
    try {
      await h.admin.clearRequests();
      const plan = await h.run({ command: 'plan' }, {}, api);
      await Promise.all(expiries);
      expect(plan.error).toBeUndefined();
      expect(plan.report?.failures.map((f) => f.message)).toEqual([]);
      // The nonces did go stale under the plan: beyond the one challenge of a fresh client, later requests met an
      // expired nonce and were answered with a new one.
      expect(completed).toBeGreaterThan(3);
      expect((await h.admin.requests()).challenges).toBeGreaterThan(2);
    } finally {
      await api.close();
    }
  });
});
