// Scenario: what the desired-state loader accepts is what Ops Manager (the emulator, which implements the spec)
// accepts. Generated alert configs, some of them deliberately off the rules, go through the real loader; every config
// it accepts becomes the exact request the apply sends (toDesiredAlertBody, secrets resolved from a map,
// buildAlertRequest), is POSTed with real Digest auth by the real client, must be answered 2xx, and read back must
// normalise to the desired text (no perpetual diff). Separately, bodies the spec calls valid must load as YAML.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import * as catalog from '../../../emulator/alerts/catalog.ts';
import { type RunningEmulator, startEmulator } from '../../../emulator/index.ts';
import { buildAlertRequest, toDesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import {
  EVENT_TYPE_NAMES,
  GROUP_ROLES,
  MATCHER_FIELDS,
  MATCHER_OPERATORS,
  METRIC_EVENT_TYPE,
  NO_INTERVAL_TYPES,
  NOTIFICATION_FIELDS,
  NOTIFICATION_TYPES,
  ORG_ROLES,
  THRESHOLD_EVENT_TYPES,
  THRESHOLD_OPERATORS,
  TYPE_NAME_VALUES,
  UNITS,
} from '../../../lambdas/core/desired/enums.ts';
import { loadDesiredState } from '../../../lambdas/core/desired/index.ts';
import { desiredText, liveText } from '../../../lambdas/core/normalise.ts';
import type { SecretResolver } from '../../../lambdas/core/ports.ts';
import { resolveBodySecrets } from '../../../lambdas/core/resolve-secrets.ts';
import { createOpsManagerClient, type OpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { SECRET_NOTIFICATION_FIELDS } from '../../../lambdas/opsman/types.ts';
import { K, W } from '../../helpers/emulator-client.ts';
import { MemorySource } from '../../unit/desired/memory-source.ts';

let emu: RunningEmulator;
let client: OpsManagerClient;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, host: '127.0.0.1', onError: () => undefined });
  client = createOpsManagerClient({
    baseUrl: emu.url,
    publicKey: K.owner.publicKey,
    privateKey: K.owner.privateKey,
    retry: { maxAttempts: 1 },
  });
});
afterAll(async () => {
  await emu.close();
});

const PROJECT = W.paymentsProd;
const ORG = W.acme;

/** The secrets the generated configs reference: every secret field has two references, with realistic values. */
const SECRETS: Record<string, string> = {
  'om/slack#token': 'xoxb-000111222333-abcdefSECRET',
  'om/slack#token2': 'xoxb-999888777666-zyxwvu',
  'om/pd#key': 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
  'om/dd#key': '0123456789abcdef0123456789abcdef',
  'om/genie#key': '8c1e2f34-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  'om/vo#api': 'vo-api-key-12345678',
  'om/vo#routing': 'db-team-routing',
  'om/hipchat#token': 'hipchat-token-abcdefgh',
  'om/hook#url': 'https://hooks.example.com/services/T000/B000/XXXX',
  'om/hook#url2': 'http://alerts.internal:8080/ingest?source=om',
  'om/hook#secret': 'hush-hush',
  'om/teams#url': 'https://acme.webhook.office.com/webhookb2/abc-123/IncomingWebhook/def/456',
};
const resolver: SecretResolver = {
  resolve: async (ref) => {
    const value = SECRETS[ref];
    if (value === undefined) throw new Error(`no secret ${ref}`);
    return value;
  },
};
const refOf = (...refs: string[]) => fc.constantFrom(...refs).map((secretRef) => ({ secretRef }));

const text = fc.stringMatching(/^[A-Za-z0-9#@._+ -]{1,20}$/).filter((s) => s.trim() === s && s.length > 0);

/**
 * delayMin and intervalMin, mostly valid, sometimes not (negative, under 5, fractional): the loader must refuse what
 * the emulator would refuse. `interval: false` types get an intervalMin now and then, which both must refuse.
 */
const timing = (interval: boolean) =>
  fc.record(
    {
      delayMin: fc.oneof(
        { weight: 40, arbitrary: fc.integer({ min: 0, max: 120 }) },
        { weight: 1, arbitrary: fc.constantFrom(-1, 1.5) },
      ),
      intervalMin: interval
        ? fc.oneof(
            { weight: 40, arbitrary: fc.integer({ min: 5, max: 1440 }) },
            { weight: 1, arbitrary: fc.constantFrom(0, 4, 7.5) },
          )
        : fc.constantFrom(5, 60),
    },
    { requiredKeys: [] },
  );
const noIntervalTiming = fc.oneof(
  { weight: 6, arbitrary: timing(false).map(({ intervalMin: _, ...t }) => t) },
  timing(false),
);
const toggles = fc.record({ emailEnabled: fc.boolean(), smsEnabled: fc.boolean() }, { requiredKeys: [] });

/** A GROUP or ORG notification: `roles`, a single `role`, or none, with the timing and the toggles. */
function roleBased(typeName: string, roles: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      fc.oneof(
        { weight: 5, arbitrary: fc.subarray([...roles], { minLength: 1 }).map((r) => ({ roles: r })) },
        { weight: 4, arbitrary: fc.constantFrom(...roles).map((role) => ({ role })) },
        { weight: 1, arbitrary: fc.constant({}) },
      ),
      timing(true),
      toggles,
    )
    .map(([r, t, e]) => ({ typeName, ...r, ...t, ...e }));
}

/** One notification of each type, with its own fields (required ones sometimes missing) and the common ones. */
const notificationOf: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  ADMIN: fc.tuple(timing(true), toggles).map(([t, e]) => ({ typeName: 'ADMIN', ...t, ...e })),
  GROUP: roleBased('GROUP', GROUP_ROLES),
  ORG: roleBased('ORG', ORG_ROLES),
  TEAM: fc
    .tuple(fc.constantFrom(W.dbaOncall, W.platformSre), timing(true), toggles)
    .map(([teamId, t, e]) => ({ typeName: 'TEAM', teamId, ...t, ...e })),
  USER: fc
    .tuple(fc.stringMatching(/^[a-z]{1,8}(\.[a-z]{1,8})?@acme\.example$/), timing(true), toggles)
    .map(([username, t, e]) => ({ typeName: 'USER', username, ...t, ...e })),
  EMAIL: fc
    .tuple(fc.stringMatching(/^[a-z]{1,8}@[a-z]{1,8}\.example$/), timing(true))
    .map(([emailAddress, t]) => ({ typeName: 'EMAIL', emailAddress, ...t })),
  SMS: fc
    .tuple(fc.stringMatching(/^\+?[0-9]{6,14}$/), timing(true))
    .map(([mobileNumber, t]) => ({ typeName: 'SMS', mobileNumber, ...t })),
  SLACK: fc
    .tuple(refOf('om/slack#token', 'om/slack#token2'), text, timing(true))
    .map(([apiToken, channelName, t]) => ({ typeName: 'SLACK', apiToken, channelName, ...t })),
  HIPCHAT: fc
    .tuple(refOf('om/hipchat#token'), text, timing(true))
    .map(([notificationToken, roomName, t]) => ({ typeName: 'HIPCHAT', notificationToken, roomName, ...t })),
  DATADOG: fc
    .tuple(refOf('om/dd#key'), timing(true))
    .map(([datadogApiKey, t]) => ({ typeName: 'DATADOG', datadogApiKey, ...t })),
  PAGER_DUTY: fc
    .tuple(refOf('om/pd#key'), noIntervalTiming)
    .map(([serviceKey, t]) => ({ typeName: 'PAGER_DUTY', serviceKey, ...t })),
  OPS_GENIE: fc
    .tuple(refOf('om/genie#key'), fc.constantFrom(undefined, 'US', 'EU'), noIntervalTiming)
    .map(([opsGenieApiKey, region, t]) => ({
      typeName: 'OPS_GENIE',
      opsGenieApiKey,
      ...(region ? { opsGenieRegion: region } : {}),
      ...t,
    })),
  VICTOR_OPS: fc
    .tuple(refOf('om/vo#api'), refOf('om/vo#routing'), noIntervalTiming)
    .map(([victorOpsApiKey, victorOpsRoutingKey, t]) => ({
      typeName: 'VICTOR_OPS',
      victorOpsApiKey,
      victorOpsRoutingKey,
      ...t,
    })),
  WEBHOOK: fc
    .tuple(refOf('om/hook#url', 'om/hook#url2'), fc.option(refOf('om/hook#secret'), { nil: undefined }), timing(true))
    .map(([webhookUrl, webhookSecret, t]) => ({
      typeName: 'WEBHOOK',
      webhookUrl,
      ...(webhookSecret ? { webhookSecret } : {}),
      ...t,
    })),
  MICROSOFT_TEAMS: fc
    .tuple(refOf('om/teams#url'), timing(true))
    .map(([microsoftTeamsWebhookUrl, t]) => ({ typeName: 'MICROSOFT_TEAMS', microsoftTeamsWebhookUrl, ...t })),
};

/** A field of another type, now and then, on any notification (the loader refuses those Ops Manager would not echo). */
const stray = fc.constantFrom<Record<string, unknown>>(
  { emailEnabled: true },
  { roles: ['GROUP_OWNER'] },
  { emailAddress: 'stray@acme.example' },
  { channelName: 'stray' },
  { teamId: W.dbaOncall },
  { roles: [] },
);
const notification = fc
  .tuple(
    fc
      .constantFrom(...NOTIFICATION_TYPES)
      .chain((type) => notificationOf[type] as fc.Arbitrary<Record<string, unknown>>),
    fc.oneof({ weight: 25, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: stray }),
  )
  .map(([n, extra]) => ({ ...n, ...(extra ?? {}) }));

const matcher = fc.oneof(
  fc.record({
    fieldName: fc.constantFrom(...MATCHER_FIELDS.filter((f) => f !== 'TYPE_NAME')),
    operator: fc.constantFrom(...MATCHER_OPERATORS),
    value: text,
  }),
  fc.record({
    fieldName: fc.constant('TYPE_NAME'),
    operator: fc.constantFrom(...MATCHER_OPERATORS),
    value: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...TYPE_NAME_VALUES) }, { weight: 1, arbitrary: text }),
  }),
);

/** Threshold values: ordinary numbers, and the non-finite ones YAML can spell (.inf, -.inf, .nan) now and then. */
const thresholdValue = fc.oneof(
  { weight: 30, arbitrary: fc.integer({ min: -1000, max: 100000 }) },
  { weight: 3, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN) },
);
const metricThreshold = fc.record(
  {
    metricName: fc.constantFrom('CONNECTIONS', 'ASSERT_REGULAR', 'DISK_PARTITION_SPACE_USED_DATA', 'OPCOUNTER_CMD'),
    mode: fc.constant('AVERAGE'),
    operator: fc.constantFrom('GREATER_THAN', 'LESS_THAN'),
    threshold: thresholdValue,
    units: fc.constantFrom(...UNITS),
  },
  { requiredKeys: ['metricName', 'operator', 'threshold'] },
);
const threshold = fc.record(
  {
    operator: fc.constantFrom('GREATER_THAN', 'LESS_THAN'),
    threshold: thresholdValue,
    units: fc.constantFrom(...UNITS),
  },
  { requiredKeys: ['operator', 'threshold'] },
);

const alertConfig = (key: string) =>
  fc
    .record(
      {
        eventTypeName: fc.oneof(
          fc.constantFrom(...EVENT_TYPE_NAMES),
          fc.constantFrom('OUTSIDE_METRIC_THRESHOLD', 'TOO_FEW_HEALTHY_MEMBERS', 'TOO_MANY_UNHEALTHY_MEMBERS'),
        ),
        enabled: fc.boolean(),
        matchers: fc.array(matcher, { maxLength: 3 }),
        notifications: fc.array(notification, { minLength: 1, maxLength: 3 }),
        metricThreshold,
        threshold,
        // Now and then the wrong threshold kind (or none) for the event type: both sides must refuse it.
        misfit: fc.oneof(
          { weight: 20, arbitrary: fc.constant('none') },
          { weight: 1, arbitrary: fc.constantFrom('swap', 'drop') },
        ),
      },
      { requiredKeys: ['eventTypeName', 'notifications', 'metricThreshold', 'threshold', 'misfit'] },
    )
    .map(({ metricThreshold: mt, threshold: t, misfit, ...config }) => {
      const wantsMetric = config.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD';
      const wantsThreshold = ['TOO_FEW_HEALTHY_MEMBERS', 'TOO_MANY_UNHEALTHY_MEMBERS'].includes(config.eventTypeName);
      const out: Record<string, unknown> = { key, ...config };
      if (misfit === 'drop') return out;
      if ((wantsMetric && misfit === 'none') || (!wantsMetric && misfit === 'swap')) out.metricThreshold = mt;
      if ((wantsThreshold && misfit === 'none') || (!wantsThreshold && misfit === 'swap' && wantsMetric))
        out.threshold = t;
      return out;
    });

const configs = fc
  .uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), { minLength: 1, maxLength: 3 })
  .chain((keys) => fc.tuple(...keys.map((k) => alertConfig(k))));

function projectYaml(alertConfigs: readonly Record<string, unknown>[]): string {
  return stringify({
    apiVersion: 'opsman-gitops/v1',
    kind: 'Project',
    metadata: { name: 'payments-prod', projectId: PROJECT, orgId: ORG },
    spec: { alertConfigs },
  });
}

describe('loader and Ops Manager agree on alert configs', () => {
  it('every config the loader accepts is created (2xx) and reads back with no difference', async () => {
    const seen = { cases: 0, accepted: 0, created: 0, types: new Set<string>() };
    await fc.assert(
      fc.asyncProperty(configs, async (generated) => {
        seen.cases++;
        const yaml = projectYaml(generated);
        const loaded = await loadDesiredState(new MemorySource({ 'project.yaml': yaml }));
        if (!loaded.ok) {
          if (process.env.AGREE_DEBUG) console.log(loaded.issues.map((i) => i.message).join('\n'));
          return;
        }
        seen.accepted++;
        for (const config of loaded.state.projects[0]?.alertConfigs ?? []) {
          const body = toDesiredAlertBody(config);
          const secrets = await resolveBodySecrets(body, resolver, config.key);
          if (!secrets.ok) throw new Error(secrets.reason);
          const request = buildAlertRequest(body, secrets.values);
          let id: string;
          try {
            const created = await client.createAlertConfig(PROJECT, request);
            id = created?.id as string;
          } catch (error) {
            throw new Error(
              `the loader accepted, Ops Manager refused: ${(error as Error).message}\n${yaml}\nrequest: ${JSON.stringify(request)}`,
            );
          }
          seen.created++;
          for (const n of request.notifications) seen.types.add(n.typeName);
          const live = await client.getAlertConfig(PROJECT, id);
          expect(liveText(live), `perpetual diff for\n${yaml}`).toBe(desiredText(body));
          await client.deleteAlertConfig(PROJECT, id);
        }
      }),
      { numRuns: Number(process.env.AGREE_RUNS ?? 150) },
    );
    // Not vacuous: most cases load, and every notification type reached the server.
    expect(seen.accepted).toBeGreaterThan(seen.cases / 3);
    expect([...seen.types].sort()).toEqual([...NOTIFICATION_TYPES].sort());
  });
});

/**
 * Bodies the spec calls valid: each notification type with the fields the spec gives it ("emailAddress ... required for
 * the email-address target type", "mobileNumber ... required for the SMS target type", "role ... for role-based
 * targets", "webhookSecret ... only in a request that also declares webhookUrl"), thresholds as the resource table
 * describes them, and the shapes of the reference's real fixtures. Each must be accepted by the emulator (so it is a
 * body Ops Manager takes) and its YAML form (secrets as references) by the loader.
 */
/** Bodies the spec calls valid; `yaml`: the desired form, when it differs from the request. */
const SPEC_VALID: { name: string; request: Record<string, unknown>; yaml?: Record<string, unknown> }[] = [
  {
    name: 'GROUP notification with roles (the reference fixture)',
    request: {
      eventTypeName: 'NO_PRIMARY',
      enabled: true,
      notifications: [
        {
          typeName: 'GROUP',
          roles: ['GROUP_OWNER'],
          delayMin: 0,
          intervalMin: 5,
          emailEnabled: true,
          smsEnabled: false,
        },
      ],
    },
    yaml: {
      eventTypeName: 'NO_PRIMARY',
      notifications: [
        {
          typeName: 'GROUP',
          roles: ['GROUP_OWNER'],
          delayMin: 0,
          intervalMin: 5,
          emailEnabled: true,
          smsEnabled: false,
        },
      ],
    },
  },
  {
    name: 'GROUP notification without a role (the spec requires none; only an empty list is refused)',
    request: {
      eventTypeName: 'NO_PRIMARY',
      enabled: true,
      notifications: [{ typeName: 'GROUP', delayMin: 0, intervalMin: 60, emailEnabled: true, smsEnabled: false }],
    },
    yaml: {
      eventTypeName: 'NO_PRIMARY',
      notifications: [{ typeName: 'GROUP', delayMin: 0, intervalMin: 60, emailEnabled: true, smsEnabled: false }],
    },
  },
  {
    name: 'ORG notification without a role',
    request: { eventTypeName: 'JOINED_ORG', enabled: true, notifications: [{ typeName: 'ORG', emailEnabled: true }] },
    yaml: { eventTypeName: 'JOINED_ORG', notifications: [{ typeName: 'ORG', emailEnabled: true }] },
  },
  {
    name: 'EMAIL and SMS with their required address and number',
    request: {
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      notifications: [
        { typeName: 'EMAIL', emailAddress: 'oncall@acme.example', delayMin: 5, intervalMin: 15 },
        { typeName: 'SMS', mobileNumber: '+15555550100' },
      ],
    },
    yaml: {
      eventTypeName: 'HOST_DOWN',
      notifications: [
        { typeName: 'EMAIL', emailAddress: 'oncall@acme.example', delayMin: 5, intervalMin: 15 },
        { typeName: 'SMS', mobileNumber: '+15555550100' },
      ],
    },
  },
  {
    name: 'WEBHOOK with url and secret, paging tools without intervalMin',
    request: {
      eventTypeName: 'AUTOMATION_AGENT_DOWN',
      enabled: true,
      notifications: [
        { typeName: 'WEBHOOK', webhookUrl: SECRETS['om/hook#url'], webhookSecret: SECRETS['om/hook#secret'] },
        { typeName: 'PAGER_DUTY', serviceKey: SECRETS['om/pd#key'], delayMin: 10 },
        { typeName: 'OPS_GENIE', opsGenieApiKey: SECRETS['om/genie#key'], opsGenieRegion: 'EU' },
        {
          typeName: 'VICTOR_OPS',
          victorOpsApiKey: SECRETS['om/vo#api'],
          victorOpsRoutingKey: SECRETS['om/vo#routing'],
        },
      ],
    },
    yaml: {
      eventTypeName: 'AUTOMATION_AGENT_DOWN',
      notifications: [
        {
          typeName: 'WEBHOOK',
          webhookUrl: { secretRef: 'om/hook#url' },
          webhookSecret: { secretRef: 'om/hook#secret' },
        },
        { typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'om/pd#key' }, delayMin: 10 },
        { typeName: 'OPS_GENIE', opsGenieApiKey: { secretRef: 'om/genie#key' }, opsGenieRegion: 'EU' },
        {
          typeName: 'VICTOR_OPS',
          victorOpsApiKey: { secretRef: 'om/vo#api' },
          victorOpsRoutingKey: { secretRef: 'om/vo#routing' },
        },
      ],
    },
  },
  {
    name: 'metric threshold (the reference fixture) with matchers',
    request: {
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      enabled: false,
      matchers: [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'PRIMARY' }],
      metricThreshold: {
        metricName: 'DISK_PARTITION_SPACE_USED_DATA',
        mode: 'AVERAGE',
        operator: 'GREATER_THAN',
        threshold: 90.5,
        units: 'RAW',
      },
      notifications: [{ typeName: 'GROUP', role: 'GROUP_OWNER' }],
    },
  },
  {
    name: 'non-metric threshold with units',
    request: {
      eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
      enabled: true,
      threshold: { operator: 'LESS_THAN', threshold: 2, units: 'RAW' },
      notifications: [{ typeName: 'TEAM', teamId: W.dbaOncall, smsEnabled: true }],
    },
    yaml: {
      eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
      threshold: { operator: 'LESS_THAN', threshold: 2, units: 'RAW' },
      notifications: [{ typeName: 'TEAM', teamId: W.dbaOncall, smsEnabled: true }],
    },
  },
];

describe('bodies the spec calls valid load from YAML', () => {
  for (const { name, request, yaml = request } of SPEC_VALID) {
    it(name, async () => {
      const created = await client.createAlertConfig(PROJECT, request as never);
      expect(created?.id).toMatch(/^[0-9a-f]{24}$/);
      await client.deleteAlertConfig(PROJECT, created?.id as string);
      const loaded = await loadDesiredState(new MemorySource({ 'p.yaml': projectYaml([{ key: 'k', ...yaml }]) }));
      expect(loaded.ok ? [] : loaded.issues.map((i) => i.message)).toEqual([]);
    });
  }
});

describe('the enumerations of the loader and of the emulator agree', () => {
  it('event types, matcher fields and operators, units, and the roles of GROUP and ORG', () => {
    const sorted = (values: Iterable<string>) => [...values].sort();
    expect(sorted(catalog.EVENT_TYPE_NAMES)).toEqual(sorted(EVENT_TYPE_NAMES));
    expect(sorted(catalog.MATCHER_FIELDS)).toEqual(sorted(MATCHER_FIELDS));
    expect(sorted(catalog.MATCHER_OPERATORS)).toEqual(sorted(MATCHER_OPERATORS));
    expect(sorted(catalog.UNITS)).toEqual(sorted(UNITS));
    expect(sorted(catalog.GROUP_NOTIFICATION_ROLES)).toEqual(sorted(GROUP_ROLES));
    // Regression: the emulator took ORG_BILLING_ADMIN (an Atlas role) on ORG notifications; the loader refused it.
    expect(sorted(catalog.ORG_NOTIFICATION_ROLES)).toEqual(sorted(ORG_ROLES));
    expect(sorted(Object.keys(catalog.NOTIFICATION_TYPES))).toEqual(sorted(NOTIFICATION_TYPES));
  });

  it('thresholds, the field table of every notification type, and the secret fields', () => {
    const sorted = (values: Iterable<string>) => [...values].sort();
    expect(catalog.METRIC_EVENT_TYPE).toBe(METRIC_EVENT_TYPE);
    expect(sorted(catalog.THRESHOLD_EVENT_TYPES)).toEqual(sorted(THRESHOLD_EVENT_TYPES));
    expect(sorted(catalog.THRESHOLD_OPERATORS)).toEqual(sorted(THRESHOLD_OPERATORS));
    const emulatorTable = Object.entries(catalog.NOTIFICATION_TYPES).map(([type, spec]) => ({
      type,
      fields: sorted(spec.own),
      required: sorted(spec.required),
      interval: spec.interval,
    }));
    const loaderTable = Object.entries(NOTIFICATION_FIELDS).map(([type, rules]) => ({
      type,
      fields: sorted([...rules.required, ...rules.optional]),
      required: sorted(rules.required),
      interval: !NO_INTERVAL_TYPES.includes(type),
    }));
    const byType = (a: { type: string }, b: { type: string }) => a.type.localeCompare(b.type);
    expect(emulatorTable.sort(byType)).toEqual(loaderTable.sort(byType));
    expect(sorted(catalog.SECRET_FIELDS)).toEqual(sorted(SECRET_NOTIFICATION_FIELDS));
  });
});
