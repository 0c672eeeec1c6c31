// Scenario: any alert config the desired-state validator accepts (odd text, fractions, every notification type) is applied by a real run over HTTP + Digest without a refusal, and the next plan is empty.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  EVENT_TYPE_NAMES,
  GROUP_ROLES,
  MATCHER_FIELDS,
  MATCHER_OPERATORS,
  ORG_ROLES,
  SERVER_TYPES,
  UNITS,
} from '../../lambdas/core/desired/enums.ts';
import { loadDesiredState } from '../../lambdas/core/desired/index.ts';
import { FAST_RETRY, pendingChanges, runOnce } from '../helpers/reliability-harness.ts';
import { BASE, type BaseEmulator, startBaseEmulator } from '../helpers/reliability-random.ts';
import { MemorySource } from '../unit/desired/memory-source.ts';

const PROJECT = BASE.projects[0] as (typeof BASE.projects)[number];
const ORG = BASE.orgs.find((o) => o.id === PROJECT.orgId) as (typeof BASE.orgs)[number];

/** Every secret the generated configs reference, with values of the form Ops Manager takes. */
const SECRETS = {
  'om/n': {
    token: 'xoxb-000111222333-abcdef',
    key: '0123456789abcdef0123456789abcdef',
    url: 'https://hooks.example.com/services/T000/B000',
    secret: 'hush',
  },
};
const ref = (key: keyof (typeof SECRETS)['om/n']) => ({ secretRef: `om/n#${key}` });

/** Text the schema takes (any non-empty string): unicode, odd whitespace, YAML-looking words, long ones. */
const text = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9#@._+-]{1,12}$/) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ' x',
      'x ',
      'a  b',
      'a\u00a0b',
      'é',
      '😀',
      'true',
      '0777',
      '- x',
      '"q"',
      'x'.repeat(400),
    ),
  },
);
const number = fc.oneof(
  fc.integer({ min: -100_000, max: 100_000 }),
  fc.double({ min: -1e9, max: 1e9, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-0, 0.1, 1e21, 5e-324),
);
const timing = fc.record(
  { delayMin: fc.integer({ min: 0, max: 10_000 }), intervalMin: fc.integer({ min: 5, max: 100_000 }) },
  { requiredKeys: [] },
);
const toggles = fc.record({ emailEnabled: fc.boolean(), smsEnabled: fc.boolean() }, { requiredKeys: [] });
const noInterval = fc.record({ delayMin: fc.integer({ min: 0, max: 10_000 }) }, { requiredKeys: [] });

const notification: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.tuple(timing, toggles).map(([t, e]) => ({ typeName: 'ADMIN', ...t, ...e })),
  fc
    .tuple(fc.subarray([...GROUP_ROLES], { minLength: 1, maxLength: 3 }), timing, toggles)
    .map(([roles, t, e]) => ({ typeName: 'GROUP', roles, ...t, ...e })),
  fc.tuple(fc.constantFrom(...ORG_ROLES), timing).map(([role, t]) => ({ typeName: 'ORG', role, ...t })),
  fc.tuple(timing, toggles).map(([t, e]) => ({ typeName: 'TEAM', teamId: ORG.teamId, ...t, ...e })),
  fc.tuple(text, timing).map(([username, t]) => ({ typeName: 'USER', username, ...t })),
  fc
    .tuple(fc.stringMatching(/^[^@\s]{1,10}@[^@\s]{1,10}$/), timing)
    .map(([emailAddress, t]) => ({ typeName: 'EMAIL', emailAddress, ...t })),
  fc.tuple(text, timing).map(([mobileNumber, t]) => ({ typeName: 'SMS', mobileNumber, ...t })),
  fc.tuple(text, timing).map(([channelName, t]) => ({ typeName: 'SLACK', apiToken: ref('token'), channelName, ...t })),
  fc
    .tuple(text, timing)
    .map(([roomName, t]) => ({ typeName: 'HIPCHAT', notificationToken: ref('token'), roomName, ...t })),
  timing.map((t) => ({ typeName: 'DATADOG', datadogApiKey: ref('key'), ...t })),
  noInterval.map((t) => ({ typeName: 'PAGER_DUTY', serviceKey: ref('key'), ...t })),
  fc.tuple(fc.constantFrom(undefined, 'US', 'EU'), noInterval).map(([region, t]) => ({
    typeName: 'OPS_GENIE',
    opsGenieApiKey: ref('key'),
    ...(region ? { opsGenieRegion: region } : {}),
    ...t,
  })),
  noInterval.map((t) => ({
    typeName: 'VICTOR_OPS',
    victorOpsApiKey: ref('key'),
    victorOpsRoutingKey: ref('token'),
    ...t,
  })),
  fc.tuple(fc.boolean(), timing).map(([secret, t]) => ({
    typeName: 'WEBHOOK',
    webhookUrl: ref('url'),
    ...(secret ? { webhookSecret: ref('secret') } : {}),
    ...t,
  })),
  timing.map((t) => ({ typeName: 'MICROSOFT_TEAMS', microsoftTeamsWebhookUrl: ref('url'), ...t })),
);

const alertConfig = (key: string) =>
  fc
    .record({
      eventTypeName: fc.oneof(
        fc.constantFrom(...EVENT_TYPE_NAMES),
        fc.constantFrom('OUTSIDE_METRIC_THRESHOLD', 'TOO_FEW_HEALTHY_MEMBERS', 'TOO_MANY_UNHEALTHY_MEMBERS'),
      ),
      enabled: fc.option(fc.boolean(), { nil: undefined }),
      matchers: fc.array(
        fc.record({
          fieldName: fc.constantFrom(...MATCHER_FIELDS.filter((f) => f !== 'TYPE_NAME')),
          operator: fc.constantFrom(...MATCHER_OPERATORS),
          value: text,
        }),
        { maxLength: 2 },
      ),
      notifications: fc.array(notification, { minLength: 1, maxLength: 3 }),
      metricName: fc.stringMatching(/^[A-Z][A-Z0-9_]{0,30}$/),
      threshold: number,
      units: fc.option(fc.constantFrom(...UNITS), { nil: undefined }),
      operator: fc.constantFrom('GREATER_THAN', 'LESS_THAN'),
    })
    .map(({ metricName, threshold, units, operator, enabled, ...config }) => {
      const limit = { operator, threshold, ...(units ? { units } : {}) };
      return {
        key,
        ...config,
        ...(enabled === undefined ? {} : { enabled }),
        ...(config.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD' ? { metricThreshold: { metricName, ...limit } } : {}),
        ...(['TOO_FEW_HEALTHY_MEMBERS', 'TOO_MANY_UNHEALTHY_MEMBERS'].includes(config.eventTypeName)
          ? { threshold: limit }
          : {}),
      };
    });

const configs = fc
  .uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), { minLength: 1, maxLength: 3 })
  .chain((keys) => fc.tuple(...keys.map((k) => alertConfig(k))));

/** An enforced audit-log rotation (written when it differs) over the whole range the schema takes, or none. */
const rotation = fc.option(
  fc.record(
    {
      enforce: fc.constant(true),
      sizeThresholdMB: fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom(0.5, 5e-324, 1e12)),
      timeThresholdHrs: fc.integer({ min: 1, max: 10_000 }),
      numUncompressed: fc.integer({ min: 0, max: 100 }),
      percentOfDiskspace: fc.constantFrom(0, 0.02, 0.5, 1),
      numTotal: fc.integer({ min: 0, max: 100 }),
    },
    { requiredKeys: ['enforce', 'sizeThresholdMB', 'timeThresholdHrs'] },
  ),
  { nil: undefined },
);

/** Default server types of the project and of its organization (an Organization document), each maybe unset. */
const serverTypes = fc.record({
  project: fc.option(fc.constantFrom(...SERVER_TYPES), { nil: undefined }),
  org: fc.option(fc.constantFrom(...SERVER_TYPES), { nil: undefined }),
});

function desiredYaml(
  alertConfigs: readonly Record<string, unknown>[],
  auditLogRotation: unknown,
  types: { project?: string; org?: string },
): string {
  const project = stringify({
    apiVersion: 'opsman-gitops/v1',
    kind: 'Project',
    metadata: { name: PROJECT.name, projectId: PROJECT.id, orgId: PROJECT.orgId },
    spec: {
      mode: 'apply',
      ...(types.project ? { defaultServerType: types.project } : {}),
      ...(auditLogRotation ? { auditLogRotation } : {}),
      alertConfigs,
    },
  });
  const org = stringify({
    apiVersion: 'opsman-gitops/v1',
    kind: 'Organization',
    metadata: { name: ORG.name, orgId: ORG.id },
    spec: { mode: 'apply', ...(types.org ? { defaultServerType: types.org } : {}) },
  });
  return `${project}---\n${org}`;
}

describe('property: a validated desired state applies without a refusal and then plans empty', () => {
  let emulator: BaseEmulator;
  let dir: string;
  beforeAll(async () => {
    emulator = await startBaseEmulator();
    dir = await mkdtemp(join(tmpdir(), 'opsman-validated-apply-'));
  });
  afterAll(async () => {
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('holds for generated alert configs', async () => {
    const seen = { cases: 0, applied: 0 };
    await fc.assert(
      fc.asyncProperty(configs, rotation, serverTypes, async (generated, rotate, types) => {
        seen.cases++;
        const yaml = desiredYaml(generated, rotate, types);
        // Only what the validator accepts is this property's business (its refusals are tested elsewhere).
        const loaded = await loadDesiredState(new MemorySource({ 'p.yaml': yaml }));
        if (!loaded.ok) return;
        seen.applied++;
        await emulator.admin.reset();
        const paths = {
          desiredDir: join(dir, `case-${seen.cases}`, 'desired'),
          secretsFile: join(dir, `case-${seen.cases}`, 'secrets.json'),
          stateDir: join(dir, `case-${seen.cases}`, 'state'),
          archiveDir: join(dir, `case-${seen.cases}`, 'archive'),
        };
        for (const d of [paths.desiredDir, paths.stateDir, paths.archiveDir]) await mkdir(d, { recursive: true });
        await writeFile(join(paths.desiredDir, 'project.yaml'), yaml);
        await writeFile(paths.secretsFile, JSON.stringify(SECRETS), { mode: 0o600 });
        const apply = await runOnce(emulator.url, paths, { command: 'apply' }, { retry: FAST_RETRY });
        expect(apply.error, yaml).toBeUndefined();
        expect(apply.report?.failures, yaml).toEqual([]);
        expect(apply.report?.summary.planned.create, yaml).toBe(generated.length);
        const plan = await runOnce(emulator.url, paths, { command: 'plan' }, { retry: FAST_RETRY });
        expect(pendingChanges(plan.report), yaml).toEqual({});
      }),
      { numRuns: Number(process.env.VALIDATED_APPLY_RUNS ?? 25) },
    );
    // Not vacuous: most generated configs pass the validator and were applied.
    expect(seen.applied).toBeGreaterThan(seen.cases / 2);
  }, 120_000);
});
