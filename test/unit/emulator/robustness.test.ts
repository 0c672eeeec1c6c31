// Scenario: property tests: arbitrary input to the body validators, the Digest parser and the seed builder fails only
// with the emulator's own errors (never a TypeError or a crash).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateAlertConfig } from '../../../emulator/alerts/validate.ts';
import { parseDigestAuthorization } from '../../../emulator/auth/digest.ts';
import { ApiError, SeedError } from '../../../emulator/errors.ts';
import { validateAuditLogRotate, validatePhysicalHost } from '../../../emulator/store/resources.ts';
import { validateS3Config } from '../../../emulator/store/s3-config.ts';
import { buildState } from '../../../emulator/store/seed-build.ts';

const G = '5e2211c17a3e5a48f5497de3';
const notification = fc.record(
  {
    typeName: fc.constantFrom('EMAIL', 'GROUP', 'SLACK', 'WEBHOOK', 'PAGER_DUTY', 'TEAM', 'X'),
    emailAddress: fc.oneof(fc.string(), fc.integer()),
    intervalMin: fc.oneof(fc.integer({ min: -5, max: 100 }), fc.string()),
    roles: fc.anything(),
    apiToken: fc.string(),
    webhookUrl: fc.string(),
    notifierId: fc.string(),
  },
  { requiredKeys: [] },
);
const alertLike = fc.record(
  {
    eventTypeName: fc.constantFrom('HOST_DOWN', 'OUTSIDE_METRIC_THRESHOLD', 'TOO_FEW_HEALTHY_MEMBERS', 'nope'),
    enabled: fc.anything(),
    matchers: fc.anything(),
    metricThreshold: fc.anything(),
    threshold: fc.anything(),
    notifications: fc.oneof(fc.array(notification, { maxLength: 3 }), fc.anything()),
    id: fc.anything(),
  },
  { requiredKeys: [] },
);

function onlyOwnErrors(fn: () => unknown, ...allowed: (new (...args: never[]) => Error)[]): void {
  try {
    fn();
  } catch (err) {
    expect(allowed.some((cls) => err instanceof cls)).toBe(true);
  }
}

describe('robustness', () => {
  it('alert validation', () => {
    fc.assert(
      fc.property(fc.oneof(alertLike, fc.anything()), fc.constantFrom('create', 'replace', 'seed'), (body, mode) => {
        onlyOwnErrors(
          () => validateAlertConfig(body, { groupId: G, mode: mode as 'create', newId: () => 'n' }),
          ApiError,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('other bodies', () => {
    fc.assert(
      fc.property(fc.anything(), (body) => {
        onlyOwnErrors(() => validateAuditLogRotate(body), ApiError);
        onlyOwnErrors(() => validatePhysicalHost(body, 'id', () => true), ApiError);
        onlyOwnErrors(() => validateS3Config(body, undefined), ApiError);
      }),
      { numRuns: 300 },
    );
  });

  it('Digest header parsing', () => {
    // Any text: never throws; what it accepts has only token names and string values.
    fc.assert(
      fc.property(fc.string(), (tail) => {
        const parsed = parseDigestAuthorization(`Digest ${tail}`);
        for (const [name, value] of Object.entries(parsed ?? {})) {
          expect(name).toMatch(/^[a-z0-9_*-]+$/);
          expect(typeof value).toBe('string');
        }
      }),
      { numRuns: 500 },
    );
    // Directives written as quoted strings (quotes and backslashes escaped) come back exactly.
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/), fc.string()), (directives) => {
        const quoted = Object.entries(directives).map(([k, v]) => `${k}="${v.replace(/[\\"]/g, '\\$&')}"`);
        expect(parseDigestAuthorization(`Digest ${quoted.join(', ')}`)).toEqual(directives);
      }),
      { numRuns: 500 },
    );
  });

  it('seed building', () => {
    const section = fc.constantFrom(
      'organizations',
      'projects',
      'apiKeys',
      'alertConfigs',
      'events',
      'hostAssignments',
      'versionManifest',
    );
    fc.assert(
      fc.property(fc.dictionary(section, fc.anything()), (doc) => {
        onlyOwnErrors(() => buildState(doc, 'prop'), SeedError);
      }),
      { numRuns: 300 },
    );
  });
});
