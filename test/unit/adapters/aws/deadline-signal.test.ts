// Scenario: the time-limit stop of a Lambda run over the values a context can give: a normal limit, one already
// reached (0 or below: stop at once, never "no limit"), one past setTimeout's range (not a stop after 1 ms), none.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadlineSignal } from '../../../../lambdas/handlers/run-once.ts';

describe('deadlineSignal', () => {
  it.each([
    ['already reached', 0],
    ['past', -5],
  ])('a limit %s stops the run at once, and its requests must have ended already', (_name, remaining) => {
    vi.useFakeTimers();
    try {
      const now = Date.now();
      const deadline = deadlineSignal({ getRemainingTimeInMillis: () => remaining });
      expect(deadline.signal?.aborted).toBe(true);
      expect(String(deadline.signal?.reason)).toBe("the Lambda's time limit is 0 ms away");
      expect(deadline.requestsEnd).toEqual({ at: new Date(now), reason: "the Lambda's time limit is 0 ms away" });
      deadline.clear();
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    // setTimeout's longest wait, 2^31-1 ms, is reached exactly: still a stop (the margin is taken off first).
    ['at most', 2 ** 31 - 1 + 60_000, true],
    ['one past', 2 ** 31 + 60_000, false],
  ])("a limit whose stop is %s setTimeout's longest wait away: a stop %s", async (_name, remaining, stops) => {
    const deadline = deadlineSignal({ getRemainingTimeInMillis: () => remaining });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deadline.signal !== undefined).toBe(stops);
    expect(deadline.signal?.aborted ?? false).toBe(false);
    deadline.clear();
  });

  it('its timer does not keep the process alive (a run that forgot clear() still lets Node exit)', () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const deadline = deadlineSignal({ getRemainingTimeInMillis: () => 900_000 });
    expect(deadline.signal?.aborted).toBe(false);
    expect(timers()).toBe(before);
    deadline.clear();
  });

  it('a limit beyond what setTimeout can wait (24.8 days) does not fire at once', async () => {
    const deadline = deadlineSignal({ getRemainingTimeInMillis: () => 3e9 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deadline.signal?.aborted ?? false).toBe(false);
    deadline.clear();
  });

  it.each([
    ['no getRemainingTimeInMillis', {}],
    ['NaN', { getRemainingTimeInMillis: () => Number.NaN }],
    ['Infinity', { getRemainingTimeInMillis: () => Number.POSITIVE_INFINITY }],
  ])('%s: no stop', (_name, context) => {
    expect(deadlineSignal(context).signal).toBeUndefined();
  });

  describe('a normal limit', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('stops a quarter of it before', () => {
      const deadline = deadlineSignal({ getRemainingTimeInMillis: () => 40 });
      expect(deadline.signal?.aborted).toBe(false);
      vi.advanceTimersByTime(29);
      expect(deadline.signal?.aborted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(deadline.signal?.aborted).toBe(true);
      expect(String(deadline.signal?.reason)).toBe("the Lambda's time limit is 10 ms away");
    });

    it('a limit of 1 ms is not one already reached: the stop comes when its quarter is left', () => {
      const deadline = deadlineSignal({ getRemainingTimeInMillis: () => 1 });
      expect(deadline.signal?.aborted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(deadline.signal?.aborted).toBe(true);
    });

    it.each([
      [40, "the Lambda's time limit is 10 ms away"],
      [4_000, "the Lambda's time limit is 1 s away"],
      [7_000, "the Lambda's time limit is 2 s away"],
    ])('a limit of %i ms: the reason says %s (seconds from 1 s on, rounded)', (remaining, reason) => {
      const deadline = deadlineSignal({ getRemainingTimeInMillis: () => remaining });
      vi.advanceTimersByTime(remaining);
      expect(String(deadline.signal?.reason)).toBe(reason);
    });

    it("ends the run's Ops Manager requests 40 s before a 15-minute limit: the writes in flight keep 20 s", () => {
      const now = Date.now();
      const deadline = deadlineSignal({ getRemainingTimeInMillis: () => 900_000 });
      expect(deadline.requestsEnd?.at.getTime()).toBe(now + 900_000 - 40_000);
      expect(deadline.requestsEnd?.reason).toBe(
        "the run must save its state before the Lambda's time limit, 40 s away",
      );
      deadline.clear();
    });

    it('ends them a third of a short margin before a short limit (tests)', () => {
      const now = Date.now();
      const deadline = deadlineSignal({ getRemainingTimeInMillis: () => 8_000 });
      expect(deadline.requestsEnd?.at.getTime()).toBeCloseTo(now + 8_000 - 2_000 / 3, 0);
      expect(deadline.requestsEnd?.reason).toBe(
        "the run must save its state before the Lambda's time limit, 667 ms away",
      );
      deadline.clear();
    });

    it('stops at most 60 s before (a 15-minute limit: at 14 minutes, not at 11¼)', () => {
      const deadline = deadlineSignal({ getRemainingTimeInMillis: () => 900_000 });
      vi.advanceTimersByTime(839_999);
      expect(deadline.signal?.aborted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(deadline.signal?.aborted).toBe(true);
      expect(String(deadline.signal?.reason)).toBe("the Lambda's time limit is 60 s away");
    });

    it('stops nothing once cleared', () => {
      const deadline = deadlineSignal({ getRemainingTimeInMillis: () => 40 });
      deadline.clear();
      vi.advanceTimersByTime(1_000);
      expect(deadline.signal?.aborted).toBe(false);
    });
  });
});
