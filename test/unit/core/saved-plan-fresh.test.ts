// The checks that refuse a stale or truncated saved plan (lambdas/core/saved-plan.ts): a target that cannot be
// re-read is stale, never taken for unchanged; the stale targets are named in a stable order; a plan without its
// failures list is refused.
import { describe, expect, it } from 'vitest';
import { SavedPlanInvalidError, SavedPlanStaleError } from '../../../lambdas/core/errors.ts';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import { orgLiveDigest } from '../../../lambdas/core/read-live.ts';
import { assertPlanFresh, checkSavedPlan } from '../../../lambdas/core/saved-plan.ts';
import type { ServerType } from '../../../lambdas/opsman/types.ts';
import { change, plan } from '../../helpers/cli-plans.ts';

const SMALL = { name: 'SMALL' } as unknown as ServerType;

/** An API whose organizations answer `answers` (an Error is thrown), each after `delayMs[org]` ms. */
function api(answers: Record<string, ServerType | Error>, delayMs: Record<string, number> = {}): OpsManagerApi {
  return {
    getOrgDefaultServerType: async (orgId: string) => {
      await new Promise((r) => setTimeout(r, delayMs[orgId] ?? 0));
      const answer = answers[orgId];
      if (answer instanceof Error) throw answer;
      return answer ?? null;
    },
  } as unknown as OpsManagerApi;
}

async function staleOf(p: ReturnType<typeof plan>, live: OpsManagerApi): Promise<SavedPlanStaleError> {
  const error = await assertPlanFresh(p, live).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SavedPlanStaleError);
  return error as SavedPlanStaleError;
}

describe('assertPlanFresh', () => {
  it('passes when every target reads as planned', async () => {
    const p = plan([], { liveDigests: { 'organization:a': orgLiveDigest(SMALL) } });
    await expect(assertPlanFresh(p, api({ a: SMALL }))).resolves.toBeUndefined();
  });

  it('a target that cannot be re-read is stale, with why, never taken for unchanged', async () => {
    const p = plan([], { liveDigests: { 'organization:a': orgLiveDigest(SMALL) } });
    const error = await staleOf(p, api({ a: new Error('socket hang up') }));
    expect(error.targets).toEqual(['organization:a']);
    expect(error.labels).toEqual(['organization:a (organization:a: could not re-read: socket hang up)']);
  });

  it('names the stale targets in key order, whichever re-read finished first', async () => {
    const p = plan([], { liveDigests: { 'organization:a': 'x', 'organization:b': 'y' } });
    const error = await staleOf(p, api({ a: SMALL, b: SMALL }, { a: 20, b: 0 }));
    expect(error.targets).toEqual(['organization:a', 'organization:b']);
    expect(error.labels).toEqual(['organization:a (organization:a)', 'organization:b (organization:b)']);
  });

  it("pairs each label with its target: labels follow the keys' order, not the names'", async () => {
    // zeta's key sorts first, alpha's name first: sorting the two lists apart would name zeta's key as alpha.
    const zeta = { type: 'organization' as const, id: 'a', name: 'zeta' };
    const alpha = { type: 'organization' as const, id: 'b', name: 'alpha' };
    const p = plan([change({ target: zeta }), change({ target: alpha })], {
      liveDigests: { 'organization:b': 'y', 'organization:a': 'x' },
    });
    const error = await staleOf(p, api({ a: SMALL, b: SMALL }));
    expect(error.targets).toEqual(['organization:a', 'organization:b']);
    expect(error.labels).toEqual(['zeta (organization:a)', 'alpha (organization:b)']);
  });

  it('says what moved, that nothing was written and the way out, in one sentence naming each target', async () => {
    const acme = { type: 'organization' as const, id: 'a', name: 'acme' };
    const p = plan([change({ target: acme })], { liveDigests: { 'organization:a': 'x' } });
    const error = await staleOf(p, api({ a: SMALL }));
    expect(error.code).toBe('SAVED_PLAN_STALE');
    expect(error.message).toBe(
      'the saved plan is stale: Ops Manager changed since the plan was made, in acme (organization:a); nothing was written: make a new plan',
    );
  });
});

describe('checkSavedPlan', () => {
  it('refuses a plan without its failures list', () => {
    const whole = plan([], { stateVersion: null, liveDigests: {} });
    const { failures: _, ...truncated } = whole;
    expect(() => checkSavedPlan(JSON.parse(JSON.stringify(truncated)))).toThrow(
      new SavedPlanInvalidError('the saved plan has no failures list'),
    );
    expect(() => checkSavedPlan(JSON.parse(JSON.stringify(whole)))).not.toThrow();
  });
});
