// Scenario: the credential verdict on a clock: a key refused twice with no recent acceptance is not sent for a minute,
// then tried again; an acceptance vouches for a minute and clears any count; a long-lived client (a warm Lambda)
// therefore neither keeps a passed refusal nor trusts a key accepted long ago.
import { describe, expect, it } from 'vitest';
import {
  CredentialVerdict,
  REFUSALS_BEFORE_STOP,
  VERDICT_WINDOW_MS,
} from '../../../lambdas/opsman/credential-verdict.ts';
import { OpsManagerAuthError } from '../../../lambdas/opsman/errors.ts';

const WHAT = { method: 'GET', pathTemplate: '/orgs/{orgId}/teams/{teamId}' };
const refusal = () => new OpsManagerAuthError(401, 'NOT_AUTHORIZED', 'GET /x: refused', WHAT);

function verdictAt(start = 1_000_000) {
  let t = start;
  const verdict = new CredentialVerdict(() => t);
  const sent = () => {
    try {
      verdict.check(WHAT);
      return true;
    } catch (error) {
      expect(error).toBeInstanceOf(OpsManagerAuthError);
      return false;
    }
  };
  return { verdict, sent, advance: (ms: number) => (t += ms) };
}

describe('CredentialVerdict', () => {
  it(`condemns after ${REFUSALS_BEFORE_STOP} refusals, for ${VERDICT_WINDOW_MS} ms, then tries the key again`, () => {
    const { verdict, sent, advance } = verdictAt();
    verdict.refuse(refusal());
    expect(sent()).toBe(true);
    verdict.refuse(refusal());
    expect(sent()).toBe(false);
    advance(VERDICT_WINDOW_MS - 1);
    expect(sent()).toBe(false);
    advance(1);
    expect(sent()).toBe(true);
    // A fresh count: one more refusal is not enough.
    verdict.refuse(refusal());
    expect(sent()).toBe(true);
    verdict.refuse(refusal());
    expect(sent()).toBe(false);
  });

  it('an acceptance vouches for the window: refusals inside it never condemn, later ones do', () => {
    const { verdict, sent, advance } = verdictAt();
    verdict.accept();
    for (let i = 0; i < 5; i++) verdict.refuse(refusal());
    expect(sent()).toBe(true);
    advance(VERDICT_WINDOW_MS);
    verdict.refuse(refusal());
    verdict.refuse(refusal());
    expect(sent()).toBe(false);
  });

  it('an acceptance clears a condemnation at once', () => {
    const { verdict, sent } = verdictAt();
    verdict.refuse(refusal());
    verdict.refuse(refusal());
    expect(sent()).toBe(false);
    verdict.accept();
    expect(sent()).toBe(true);
  });

  it('says how many refusals and quotes the first one', () => {
    const { verdict } = verdictAt();
    verdict.refuse(refusal());
    verdict.refuse(new OpsManagerAuthError(401, 'NOT_AUTHORIZED', 'GET /y: refused again', WHAT));
    expect(() => verdict.check({ method: 'POST', pathTemplate: '/groups/{groupId}/alertConfigs' })).toThrow(
      'POST /groups/{groupId}/alertConfigs: not sent: Ops Manager refused this API key 2 times and has not accepted it (first refusal: GET /x: refused)',
    );
  });

  it('counts the window from the first condemnation, not from refusals of requests already in flight', () => {
    const { verdict, sent, advance } = verdictAt();
    verdict.refuse(refusal());
    verdict.refuse(refusal());
    advance(VERDICT_WINDOW_MS / 2);
    verdict.refuse(refusal()); // a request sent before the condemnation, refused now
    advance(VERDICT_WINDOW_MS / 2);
    expect(sent()).toBe(true);
  });

  it('a condemnation cleared by an acceptance does not shorten a later one', () => {
    const { verdict, sent, advance } = verdictAt();
    verdict.refuse(refusal());
    verdict.refuse(refusal());
    verdict.accept();
    advance(VERDICT_WINDOW_MS + 1);
    verdict.refuse(refusal());
    verdict.refuse(refusal());
    expect(sent()).toBe(false);
    advance(VERDICT_WINDOW_MS - 1);
    expect(sent()).toBe(false);
  });
});
