// Scenario: singleton writes on their own. The rotation PUT carries the live fields this version models (a field
// the desired state leaves out is not reset to its default), the desired ones over them, and nothing that is not a
// number; the state records the digest of the value written, never of the one it replaced.
import { describe, expect, it } from 'vitest';
import { recordSingleton, rotationBody } from '../../../lambdas/core/apply-singletons.ts';
import type { Change, TargetRef } from '../../../lambdas/core/model.ts';
import { singletonDigest } from '../../../lambdas/core/plan-singletons.ts';
import { emptyState } from '../../../lambdas/core/state.ts';

const TARGET: TargetRef = { type: 'project', id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };

function rotation(before: unknown, after: Record<string, number>): Change {
  return {
    target: TARGET,
    kind: 'auditLogRotation',
    key: 'auditLogRotation',
    action: 'update',
    before,
    after,
    fields: [],
    reason: '',
  };
}

describe('rotationBody', () => {
  it('keeps the live fields the desired state leaves out, and sends the desired ones over the live ones', () => {
    const change = rotation({ sizeThresholdMB: 1000, numTotal: 15, timeThresholdHrs: 24 }, { sizeThresholdMB: 2000 });
    expect(rotationBody(change)).toEqual({ sizeThresholdMB: 2000, numTotal: 15, timeThresholdHrs: 24 });
  });

  it('reads numeric texts as numbers and carries nothing else: no blank text, no NaN, no member it does not model', () => {
    const live = {
      numTotal: '15',
      numUncompressed: '  ',
      percentOfDiskspace: 'lots',
      timeThresholdHrs: true,
      sizeThresholdMB: null,
      futureField: 3,
    };
    expect(rotationBody(rotation(live, { sizeThresholdMB: 2000 }))).toEqual({ numTotal: 15, sizeThresholdMB: 2000 });
  });

  it('sends the desired fields alone when the plan had no live config to carry', () => {
    expect(rotationBody(rotation(undefined, { numTotal: 3 }))).toEqual({ numTotal: 3 });
  });
});

describe('recordSingleton', () => {
  it('records the digest of the server type written, not of the one it replaced', () => {
    const state = emptyState('2026-03-01T10:00:00.000Z');
    const change: Change = {
      target: TARGET,
      kind: 'defaultServerType',
      key: 'defaultServerType',
      action: 'update',
      before: 'DEV_SERVER',
      after: 'PRODUCTION_SERVER',
      fields: [],
      reason: '',
    };
    recordSingleton(state, change);
    expect(state.projects[TARGET.id]?.singletons).toEqual({ defaultServerType: singletonDigest('PRODUCTION_SERVER') });
  });
});
