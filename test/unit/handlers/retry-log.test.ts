// Scenario: the Lambda's retry warning under a throttle that makes every request in flight wait at once: one warning
// per quiet period (15 s by default, the hook as app-context.ts wires it), the next only once the period has passed,
// and never one for a short backoff.
import { describe, expect, it } from 'vitest';
import type { RequestRetryEvent } from '../../../lambdas/core/ports.ts';
import { retryLog } from '../../../lambdas/handlers/retry-log.ts';

const EVENT: RequestRetryEvent = {
  method: 'GET',
  pathTemplate: '/groups/{groupId}/alertConfigs',
  path: '/api/public/v1.0/groups/5e2211c17a3e5a48f5497de3/alertConfigs',
  got: '429 RATE_LIMITED',
  attempt: 1,
  maxAttempts: 4,
  waitMs: 30_000,
  retryAfter: true,
};

describe('retryLog', () => {
  it('logs one warning per quiet period of 15 s, however many requests wait together', () => {
    let now = 1_000_000;
    const warnings: Record<string, unknown>[] = [];
    // The default quiet period, as app-context.ts wires the hook.
    const hook = retryLog({ warn: (_message, ...extra) => warnings.push(...extra) }, undefined, () => now);
    hook({ ...EVENT, waitMs: 999 });
    expect(warnings).toEqual([]);
    hook({ ...EVENT, attempt: 1 });
    hook({ ...EVENT, attempt: 2 });
    now += 14_999;
    hook({ ...EVENT, attempt: 3 });
    expect(warnings.map((w) => w.attempt)).toEqual([1]);
    now += 1;
    hook({ ...EVENT, attempt: 3 });
    expect(warnings.map((w) => w.attempt)).toEqual([1, 3]);
  });
});
