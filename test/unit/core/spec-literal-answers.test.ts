// Scenario: alert configs as a server written from the spec alone may answer them (not our emulator) normalise equal to
// the desired body they came from: no perpetual diff from what the spec leaves open.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { diffAlert } from '../../../lambdas/core/diff.ts';
import { desiredText, liveText, normaliseDesired, normaliseLive } from '../../../lambdas/core/normalise.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const noPrimary: DesiredAlertBody = {
  eventTypeName: 'NO_PRIMARY',
  enabled: true,
  matchers: [],
  notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, emailEnabled: true }],
};

/** The reference's real fixture (shared/reference/ops-manager-api.md) plus the members a test adds. */
function fixture(extra: Record<string, unknown>): AlertConfig {
  return {
    id: '57b76ddc96e8215c017ceafb',
    created: '2016-08-19T20:36:44Z',
    enabled: true,
    eventTypeName: 'NO_PRIMARY',
    groupId: '535683b3794d371327b',
    matchers: [],
    notifications: [
      { delayMin: 0, emailEnabled: true, intervalMin: 5, smsEnabled: false, typeName: 'GROUP', roles: ['GROUP_OWNER'] },
    ],
    updated: '2016-08-19T20:36:44Z',
    ...extra,
  } as unknown as AlertConfig;
}

function expectInSync(desired: DesiredAlertBody, live: AlertConfig): void {
  expect(diffAlert(normaliseDesired(desired), normaliseLive(live))).toEqual([]);
  expect(liveText(live)).toBe(desiredText(desired));
}

describe('a threshold member without a condition is no threshold', () => {
  // The spec: `threshold` is "Returned for non-metric alerts; has operator, threshold, units". A server taking that
  // literally answers a NO_PRIMARY config (which has no threshold) with an empty or null-valued threshold object.
  it.each([
    ['threshold {}', { threshold: {} }],
    ['threshold with null members', { threshold: { operator: null, threshold: null, units: null } }],
    ['threshold with units only', { threshold: { units: 'RAW' } }],
    ['metricThreshold {}', { metricThreshold: {} }],
    ['metricThreshold with null members', { metricThreshold: { metricName: null, operator: null, threshold: null } }],
    ['metricThreshold with defaults only', { metricThreshold: { mode: 'AVERAGE', units: 'RAW' } }],
  ])('%s', (_name, extra) => {
    expectInSync(noPrimary, fixture(extra));
  });

  it('a real threshold missing on live still differs', () => {
    const desired: DesiredAlertBody = {
      ...noPrimary,
      eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
      threshold: { operator: 'LESS_THAN', threshold: 2 },
    };
    const fields = diffAlert(
      normaliseDesired(desired),
      normaliseLive(fixture({ eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS', threshold: { units: 'RAW' } })),
    );
    expect(fields.map((f) => f.path)).toEqual(['threshold']);
  });
});
