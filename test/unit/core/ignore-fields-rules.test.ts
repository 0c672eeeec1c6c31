// The members ignoreFields hands over to Ops Manager (lambdas/core/ignore-fields.ts), rule by rule.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { adoptionText, ignoredText, inIgnored, withLiveIgnored } from '../../../lambdas/core/ignore-fields.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const base = {
  eventTypeName: 'NO_PRIMARY',
  enabled: true,
  matchers: [{ fieldName: 'REPLICA_SET_NAME', operator: 'EQUALS', value: 'rs0' }],
  notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true }],
} as unknown as DesiredAlertBody;
const metric = (threshold: number) =>
  ({
    ...base,
    metricThreshold: { metricName: 'X', operator: 'GREATER_THAN', threshold, units: 'RAW', mode: 'AVERAGE' },
  }) as unknown as DesiredAlertBody;

describe('ignoreFields rules', () => {
  it('a path under an ignored member is ignored, by its first segment', () => {
    expect(inIgnored('matchers.0.value', ['matchers'])).toBe(true);
    expect(inIgnored('metricThreshold.threshold', ['metricThreshold'])).toBe(true);
    expect(inIgnored('threshold.threshold', ['metricThreshold'])).toBe(false);
  });

  it('takes the live members it ignores: an absent enabled is false, a null threshold none', () => {
    const body = { ...metric(90), ignoreFields: ['enabled', 'metricThreshold'] } as DesiredAlertBody;
    const out = withLiveIgnored(body, { id: 'a1', metricThreshold: null } as unknown as AlertConfig);
    expect(out.enabled).toBe(false);
    expect('metricThreshold' in out).toBe(false);
  });

  it('ignored matchers leave the compared text alike whatever the matchers', () => {
    expect(ignoredText(base, ['matchers'])).toBe(ignoredText({ ...base, matchers: [] }, ['matchers']));
    expect(ignoredText(base, [])).not.toBe(ignoredText({ ...base, matchers: [] }, []));
  });

  it('matches for adoption on the metric name alone only when metricThreshold is ignored', () => {
    expect(adoptionText(metric(90), ['metricThreshold'])).toBe(adoptionText(metric(80), ['metricThreshold']));
    expect(adoptionText(metric(90), [])).not.toBe(adoptionText(metric(80), []));
  });
});
