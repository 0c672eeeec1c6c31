// Scenario: the CLI's retry notice: the line for a wait (what the attempt got, the wait, whose wait it is, the attempt
// to come), nothing for a short backoff, and at most one line per quiet period however many requests wait together.
import { describe, expect, it } from 'vitest';
import { RETRY_NOTICE_QUIET_MS, RetryNotices, retryNotice } from '../../../lambdas/cli/retry-notices.ts';
import type { RequestRetryEvent } from '../../../lambdas/core/ports.ts';

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

describe('retryNotice', () => {
  it.each([
    [
      EVENT,
      'Ops Manager answered 429 RATE_LIMITED to GET /api/public/v1.0/groups/5e2211c17a3e5a48f5497de3/alertConfigs: retrying in 30 s, as its Retry-After asks (attempt 2 of 4)',
    ],
    [
      { ...EVENT, method: 'PUT', got: 'no response (ECONNRESET)', attempt: 3, waitMs: 1_460, retryAfter: false },
      'Ops Manager gave no response (ECONNRESET) to PUT /api/public/v1.0/groups/5e2211c17a3e5a48f5497de3/alertConfigs: retrying in 1.5 s (attempt 4 of 4)',
    ],
  ])('%#', (event, line) => {
    expect(retryNotice(event)).toBe(line);
  });
});

describe('RetryNotices', () => {
  it('prints waits of a second or more, one line per quiet period, on the sink it was given', () => {
    let now = 0;
    const lines: string[] = [];
    const notices = new RetryNotices({ write: (text: string) => lines.push(text) }, RETRY_NOTICE_QUIET_MS, () => now);
    notices.onRetryWait({ ...EVENT, waitMs: 999, retryAfter: false });
    expect(lines).toEqual([]);
    notices.onRetryWait({ ...EVENT, waitMs: 1_000 });
    notices.onRetryWait(EVENT);
    now = RETRY_NOTICE_QUIET_MS - 1;
    notices.onRetryWait(EVENT);
    expect(lines).toEqual([`  · ${retryNotice({ ...EVENT, waitMs: 1_000 })}\n`]);
    now = RETRY_NOTICE_QUIET_MS;
    notices.onRetryWait(EVENT);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('retrying in 30 s');
  });
});
