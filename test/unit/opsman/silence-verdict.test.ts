// Scenario: the silence verdict on a clock: a request that timed out with no answer since it last heard from Ops
// Manager condemns the origin from the earliest such moment, for one window; any answer, or the window's end, lifts it.
import { describe, expect, it } from 'vitest';
import { OpsManagerTransportError } from '../../../lambdas/opsman/errors.ts';
import { SilenceVerdict } from '../../../lambdas/opsman/silence-verdict.ts';

const START = Date.parse('2026-01-01T00:00:00Z');
const WHAT = { method: 'GET', pathTemplate: '/orgs' };

function silence(windowMs = 120_000) {
  let t = START;
  const verdict = new SilenceVerdict(() => t, windowMs, '120 s, retry.deadlineMs to change');
  const refusal = (attempted = 0): string | undefined => {
    try {
      verdict.check(WHAT, attempted);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(OpsManagerTransportError);
      return (error as Error).message;
    }
  };
  return { verdict, refusal, advance: (ms: number) => (t += ms) };
}

describe('SilenceVerdict', () => {
  it('says since when Ops Manager is silent: the earliest mark of the requests that timed out', () => {
    const { verdict, refusal, advance } = silence();
    const early = verdict.mark();
    advance(10_000);
    const late = verdict.mark();
    advance(120_000);
    verdict.timedOut(early, 'GET /orgs got no answer within its deadline');
    verdict.timedOut(late, 'GET /groups got no answer within its deadline');
    expect(refusal(1)).toBe(
      'GET /orgs: not sent again after 1 attempt(s): Ops Manager has answered no request since 2026-01-01T00:00:00Z (GET /groups got no answer within its deadline; deadline 120 s, retry.deadlineMs to change); requests fail at once until it answers again or until 2026-01-01T00:04:10Z',
    );
  });

  it('gives no verdict when anything was answered since the mark, and lifts one on an answer', () => {
    const { verdict, refusal } = silence();
    const mark = verdict.mark();
    verdict.answered();
    verdict.timedOut(mark, 'GET /orgs got no answer within its deadline');
    expect(refusal()).toBeUndefined();
    verdict.timedOut(verdict.mark(), 'GET /orgs got no answer within its deadline');
    expect(refusal()).toMatch(/^GET \/orgs: not sent: Ops Manager has answered no request since /);
    verdict.answered();
    expect(refusal()).toBeUndefined();
  });
});
