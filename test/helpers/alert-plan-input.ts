/**
 * The input of planAlertConfigs for one project (`p`, id `g`) in unit tests: the desired configs as plain objects, the
 * live list and the state, with the rest defaulted (no secrets, no team problems, a fixed fingerprint key).
 */
import type { DesiredProject } from '../../lambdas/core/model.ts';
import type { AlertPlanInput } from '../../lambdas/core/plan-alerts.ts';
import type { ProjectState } from '../../lambdas/core/ports.ts';
import type { AlertConfig } from '../../lambdas/opsman/types.ts';

/** What a test may set beyond the configs, the live list and the state. */
export interface AlertPlanOptions extends Partial<Omit<AlertPlanInput, 'project' | 'live' | 'state'>> {
  /** The project's `prune` (default true). */
  prune?: boolean;
}

/** A fingerprint key for tests (its bytes only need to be fixed). */
export const TEST_FINGERPRINT_KEY = new Uint8Array(32).fill(7);

/** The AlertPlanInput of project `p` (id `g`) declaring `configs`, against `live` and `state`. */
export function alertPlanInput(
  configs: readonly Record<string, unknown>[],
  live: AlertConfig[],
  state: ProjectState | undefined,
  options: AlertPlanOptions = {},
): AlertPlanInput {
  const { prune = true, ...rest } = options;
  return {
    target: { type: 'project', id: 'g', name: 'p' },
    project: {
      name: 'p',
      projectId: 'g',
      prune,
      protect: [],
      release: [],
      alertConfigs: configs,
    } as unknown as DesiredProject,
    live,
    state,
    secrets: new Map(),
    teamProblems: new Map(),
    fingerprintKey: TEST_FINGERPRINT_KEY,
    ...rest,
  };
}
