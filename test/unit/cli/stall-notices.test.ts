// Scenario: the CLI's stall notice: when it is due for a deadline, the line it prints (path, wait, deadline, the flag
// to change it), and at most one line per quiet period however many requests stall together.
import { describe, expect, it } from 'vitest';
import { StallNotices, stallNotice, stallNoticeAfterMs } from '../../../lambdas/cli/stall-notices.ts';
import type { RequestStallEvent } from '../../../lambdas/core/ports.ts';

const EVENT: RequestStallEvent = {
  method: 'GET',
  pathTemplate: '/groups/{groupId}/alertConfigs',
  path: '/api/public/v1.0/groups/5e2211c17a3e5a48f5497de3/alertConfigs',
  waitedMs: 15_004,
  deadlineMs: 120_000,
};

describe('stallNoticeAfterMs', () => {
  it.each([
    [120_000, 15_000],
    [30_000, 15_000],
    [20_000, 10_000],
    [2_000, 1_000],
    [1_000, 500],
  ])('a deadline of %i ms: a notice after %i ms', (deadlineMs, expected) => {
    expect(stallNoticeAfterMs(deadlineMs)).toBe(expected);
  });
});

describe('stallNotice', () => {
  it.each([
    [
      EVENT,
      'still waiting for Ops Manager: GET /api/public/v1.0/groups/5e2211c17a3e5a48f5497de3/alertConfigs has not answered for 15 s (deadline 120 s, --request-timeout to change)',
    ],
    [
      { ...EVENT, method: 'PUT', path: '/api/public/v1.0/usage/hosts/h1', waitedMs: 1_250, deadlineMs: 2_500 },
      'still waiting for Ops Manager: PUT /api/public/v1.0/usage/hosts/h1 has not answered for 1.3 s (deadline 2.5 s, --request-timeout to change)',
    ],
  ])('%#', (event, line) => {
    expect(stallNotice(event)).toBe(line);
  });
});

describe('StallNotices', () => {
  it('prints one line per quiet period, on the sink it was given', () => {
    let now = 0;
    const lines: string[] = [];
    const notices = new StallNotices({ write: (text: string) => lines.push(text) }, 15_000, () => now);
    notices.onStall(EVENT);
    notices.onStall({ ...EVENT, path: '/api/public/v1.0/groups/5e2211c17a3e5a48f5497de4/alertConfigs' });
    now = 14_999;
    notices.onStall(EVENT);
    expect(lines).toEqual([`  · ${stallNotice(EVENT)}\n`]);
    now = 15_000;
    notices.onStall({ ...EVENT, waitedMs: 30_000 });
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('has not answered for 30 s');
  });
});
