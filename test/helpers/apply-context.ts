/**
 * An ApplyContext for tests that call applyTarget or applyPlan directly: a fixed clock at `now`, a silent reporter,
 * no skipped target, saves and lease renewals that succeed, an empty pinned manifest. `parts` sets the API, secrets,
 * fingerprint key and state, and overrides any default.
 */
import type { ApplyContext } from '../../lambdas/core/apply.ts';

/** The context of one test's apply. */
export function applyContext(
  now: string,
  parts: Pick<ApplyContext, 'api' | 'secrets' | 'fingerprintKey' | 'state'> & Partial<ApplyContext>,
): ApplyContext {
  return {
    clock: { now: () => new Date(now), sleep: async () => {} },
    reporter: { progress() {}, metric() {} },
    runId: 'r1',
    skipReason: () => undefined,
    persist: async () => {},
    keepAlive: async () => {},
    readPin: async () => '',
    ...parts,
  };
}
