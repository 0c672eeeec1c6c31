/** Shared bits of the client tests: a clock that records waits instead of sleeping, and an observer that records events. */
import type { RequestObserver } from '../../lambdas/core/ports.ts';

/** A clock whose sleep returns at once and advances `now` by the requested time. */
export function fakeClock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => new Date(now),
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

/** An observer that keeps every event. */
export function recordingObserver() {
  const events: Parameters<RequestObserver['onRequest']>[0][] = [];
  return { events, onRequest: (event: Parameters<RequestObserver['onRequest']>[0]) => void events.push(event) };
}

/** The private key used by unit tests: distinctive, so a leak scan can find it anywhere. */
export const TEST_PRIVATE_KEY = 'SECRET-7f3c2a9e-0000-4e8f-9a6c-LEAKCANARY';
