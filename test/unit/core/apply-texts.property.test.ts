// Scenario: the texts apply now takes straight from normalise.ts (desiredText for the digest it stores, liveText for the echo check) equal canonicalJson of the normal objects it used to build, for any alert body.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { canonicalJson } from '../../../lambdas/core/canonical.ts';
import { desiredText, liveText, normaliseDesired, normaliseLive } from '../../../lambdas/core/normalise.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const TYPES = ['EMAIL', 'GROUP', 'ORG', 'PAGER_DUTY', 'SLACK', 'SMS', 'TEAM', 'USER', 'WEBHOOK', 'OPS_GENIE'];
const FIELDS = ['delayMin', 'intervalMin', 'emailEnabled', 'smsEnabled', 'emailAddress', 'roles', 'teamId'];
const SECRET_FIELDS = ['apiToken', 'serviceKey', 'webhookUrl', 'webhookSecret', 'apiKey', 'channelName'];

const scalar = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -3, max: 500 }),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('90', '90.0', '****', 'é"\\\n'),
);
const fieldValue = fc.oneof(
  scalar,
  fc.array(fc.constantFrom('GROUP_OWNER', 'GROUP_READ_ONLY', 'x'), { maxLength: 3 }),
  fc.record({ secretRef: fc.constantFrom('a#b', 'hook#url') }),
);
const notification = fc
  .record({
    typeName: fc.constantFrom(...TYPES),
    rest: fc.dictionary(fc.constantFrom(...FIELDS, ...SECRET_FIELDS), fieldValue, { maxKeys: 6 }),
  })
  .map(({ typeName, rest }) => ({ typeName, ...rest }));
const matcher = fc.record({
  fieldName: fc.constantFrom('HOSTNAME', 'TYPE_NAME', 'REPLICA_SET_NAME'),
  operator: fc.constantFrom('EQUALS', 'CONTAINS', 'REGEX'),
  value: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('PRIMARY', 'SECONDARY')),
});
const threshold = fc.option(
  fc.record(
    {
      metricName: fc.constantFrom('ASSERT_REGULAR', 'CONNECTIONS'),
      operator: fc.constantFrom('GREATER_THAN', 'LESS_THAN'),
      threshold: fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.double({ noNaN: true, noDefaultInfinity: true })),
      units: fc.constantFrom('RAW', 'BYTES'),
      mode: fc.constantFrom('AVERAGE'),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);
const body = fc.record(
  {
    eventTypeName: fc.constantFrom('HOST_DOWN', 'OUTSIDE_METRIC_THRESHOLD', 'NO_PRIMARY'),
    enabled: fc.boolean(),
    matchers: fc.array(matcher, { maxLength: 4 }),
    notifications: fc.array(notification, { maxLength: 4 }),
    metricThreshold: threshold,
    threshold,
    id: fc.string({ maxLength: 4 }),
    created: fc.constant('2026-03-01T10:00:00Z'),
  },
  { requiredKeys: ['eventTypeName', 'enabled', 'matchers', 'notifications'] },
);

function outcome(fn: () => string): string {
  try {
    return `ok ${fn()}`;
  } catch (error) {
    return `threw ${String(error)}`;
  }
}

describe('texts used by apply', () => {
  it('desiredText and liveText equal canonicalJson of the normalised body (property)', () => {
    fc.assert(
      fc.property(body, (raw) => {
        const desired = raw as unknown as DesiredAlertBody;
        const live = raw as unknown as AlertConfig;
        expect(outcome(() => desiredText(desired))).toBe(outcome(() => canonicalJson(normaliseDesired(desired))));
        expect(outcome(() => liveText(live))).toBe(outcome(() => canonicalJson(normaliseLive(live))));
      }),
      { numRuns: 3000 },
    );
  });
});
