// Scenario: for live alert configs holding awkward but server-valid values (YAML look-alikes such as `yes`, `null`,
// `0x10`, `.inf`, `: `, ` #`, quotes, trailing spaces, unicode, long strings; thresholds such as 1e-7, 2^53,
// negatives), every config is exported and the exported YAML, read back by the real loader, normalises to exactly the
// live config: what `plan` needs to adopt it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toDesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { loadDesiredState } from '../../../lambdas/core/desired/load.ts';
import { exportProject } from '../../../lambdas/core/export/export-run.ts';
import { MemoryDesiredSource } from '../../../lambdas/core/export/memory-source.ts';
import { desiredText, liveText } from '../../../lambdas/core/normalise.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const P = '5e2211c17a3e5a48f5497de3';

/** Strings YAML (1.1 or 1.2) or a hand-written parser may read as something else. */
const AWKWARD = [
  'yes',
  'no',
  'No',
  'on',
  'off',
  'y',
  'n',
  'null',
  'Null',
  '~',
  'true',
  'False',
  '0x10',
  '0o17',
  '017',
  '007',
  '1e3',
  '1_000',
  '12:30',
  '1:2:3',
  '.inf',
  '-.inf',
  '.nan',
  '+15555550100',
  '-1',
  '0',
  '0.0',
  '1.',
  '.5',
  '2026-01-01',
  'a: b',
  'a #b',
  '#ops',
  '*star',
  '&anchor',
  '!tag',
  '%pct',
  '@at',
  '`tick`',
  "'single'",
  '"double"',
  'trailing ',
  ' leading',
  'two  spaces',
  'tab\there',
  'line\nbreak',
  'ünïcødé',
  '日本語',
  '🚨 alert',
  '- dash',
  '? q',
  '| pipe',
  '> gt',
  '[x]',
  '{y}',
  'a,b',
  '\\back',
  '=',
  '<<',
  '---',
  '...',
  'x'.repeat(300),
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text itself is the case (an interpolation look-alike)
  '${HOME}',
  '$(x)',
  'a\u00a0b',
];

const awkward = fc.oneof(
  fc.constantFrom(...AWKWARD),
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
);
/** An address the schema's pattern accepts (no `@` or white space in either part), built of awkward parts. */
const email = fc
  .tuple(awkward, awkward)
  .map(([a, b]) => `${a.replace(/[@\s]/g, '') || 'x'}@${b.replace(/[@\s]/g, '') || 'y'}`);
const metricName = fc.oneof(
  fc.constantFrom('CONNECTIONS', 'NULL', 'TRUE', 'Y', 'NO', 'E1', 'X_1E3'),
  fc.stringMatching(/^[A-Z][A-Z0-9_]{0,30}$/),
);
const number = fc.oneof(
  fc.constantFrom(0.1, 1e-7, 2 ** 53, -(2 ** 53), -5, 0, 1e21, 1.5e300, 5e-324, 123456789.123, -0.000001),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

const notification = fc.oneof(
  fc.record({
    typeName: fc.constant('EMAIL'),
    emailAddress: email,
    delayMin: fc.oneof(fc.nat(10000), fc.constantFrom('5', '0', '007')),
    intervalMin: fc.integer({ min: 5, max: 100000 }),
  }),
  awkward.map((mobileNumber) => ({ typeName: 'SMS', mobileNumber })),
  awkward.map((username) => ({ typeName: 'USER', username })),
  awkward.map((channelName) => ({ typeName: 'SLACK', channelName, apiToken: '****************1234' })),
  awkward.map((roomName) => ({ typeName: 'HIPCHAT', roomName, notificationToken: '****' })),
);

const matcher = fc.record({
  fieldName: fc.constantFrom('HOSTNAME', 'REPLICA_SET_NAME', 'CLUSTER_NAME', 'SHARD_NAME', 'HOSTNAME_AND_PORT'),
  operator: fc.constantFrom('EQUALS', 'CONTAINS', 'STARTS_WITH', 'REGEX'),
  value: awkward,
});

const config = fc.oneof(
  fc.record({
    eventTypeName: fc.constant('OUTSIDE_METRIC_THRESHOLD'),
    metricThreshold: fc.record({
      metricName,
      operator: fc.constantFrom('GREATER_THAN', 'LESS_THAN'),
      threshold: number,
      units: fc.constantFrom('RAW', 'GIGABYTES'),
      mode: fc.constant('AVERAGE'),
    }),
    matchers: fc.array(matcher, { maxLength: 3 }),
    notifications: fc.array(notification, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    eventTypeName: fc.constant('TOO_FEW_HEALTHY_MEMBERS'),
    threshold: fc.record({ operator: fc.constantFrom('GREATER_THAN', 'LESS_THAN'), threshold: number }),
    matchers: fc.array(matcher, { maxLength: 3 }),
    notifications: fc.array(notification, { minLength: 1, maxLength: 3 }),
  }),
);

function live(bodies: Record<string, unknown>[]): AlertConfig[] {
  return bodies.map(
    (body, i) =>
      ({
        id: `6c01${String(i).padStart(20, '0')}`,
        groupId: P,
        created: `2026-09-01T08:00:${String(i % 60).padStart(2, '0')}Z`,
        enabled: true,
        ...body,
      }) as unknown as AlertConfig,
  );
}

describe('export round trip (property)', () => {
  it('exports every server-valid config, and each loads back to the live normal form', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(config, { minLength: 1, maxLength: 4 }), async (bodies) => {
        const configs = live(bodies);
        const result = await exportProject({ projectId: P, alertConfigs: configs, singletons: {} });
        expect(result.skipped).toEqual([]);
        const loaded = await loadDesiredState(new MemoryDesiredSource({ 'p.yaml': result.text }));
        if (!loaded.ok) throw new Error(loaded.issues.map((i) => i.message).join('\n'));
        const entries = loaded.state.projects[0]?.alertConfigs ?? [];
        const desired = entries.map((c) => desiredText(toDesiredAlertBody(c))).sort();
        expect(desired).toEqual(configs.map(liveText).sort());
        expect(result.text).not.toMatch(/\*{4,}/);
      }),
      { numRuns: 1000 },
    );
  });
});
