// Scenario: for generated valid Project/AlertTemplate documents, load accepts them, and load -> render -> load is identity.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  EVENT_TYPE_NAMES,
  GROUP_ROLES,
  MATCHER_FIELDS,
  MATCHER_OPERATORS,
  ORG_ROLES,
  SERVER_TYPES,
} from '../../../lambdas/core/desired/enums.ts';
import { loadDesiredState, renderDesiredState } from '../../../lambdas/core/desired/index.ts';
import type { DesiredState } from '../../../lambdas/core/model.ts';
import { MemorySource } from './memory-source.ts';

const hex24 = fc.stringMatching(/^[0-9a-f]{24}$/);
const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const ref = fc
  .tuple(fc.stringMatching(/^[a-z]{1,6}(\/[a-z]{1,6})?$/), fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/))
  .map(([id, key]) => ({ secretRef: `${id}#${key}` }));
const timing = fc.record(
  { intervalMin: fc.integer({ min: 5, max: 1440 }), delayMin: fc.integer({ min: 0, max: 60 }) },
  { requiredKeys: [] },
);
const toggles = fc.record({ emailEnabled: fc.boolean(), smsEnabled: fc.boolean() }, { requiredKeys: [] });
const noInterval = fc.record({ delayMin: fc.integer({ min: 0, max: 60 }) }, { requiredKeys: [] });
const text = fc.stringMatching(/^[A-Za-z0-9#@._+ -]{1,20}$/).filter((s) => s.trim() === s && s.length > 0);

const notification = fc.oneof(
  fc
    .tuple(fc.subarray([...GROUP_ROLES], { minLength: 1 }), timing, toggles)
    .map(([roles, t, e]) => ({ typeName: 'GROUP', roles, ...t, ...e })),
  fc.tuple(fc.constantFrom(...ORG_ROLES), timing).map(([role, t]) => ({ typeName: 'ORG', role, ...t })),
  fc
    .tuple(fc.stringMatching(/^[a-z]{1,8}@[a-z]{1,8}\.example$/), timing)
    .map(([emailAddress, t]) => ({ typeName: 'EMAIL', emailAddress, ...t })),
  fc.tuple(hex24, timing, toggles).map(([teamId, t, e]) => ({ typeName: 'TEAM', teamId, ...t, ...e })),
  fc.tuple(ref, fc.option(ref, { nil: undefined }), timing).map(([webhookUrl, secret, t]) => ({
    typeName: 'WEBHOOK',
    webhookUrl,
    ...(secret ? { webhookSecret: secret } : {}),
    ...t,
  })),
  fc.tuple(ref, text, timing).map(([apiToken, channelName, t]) => ({ typeName: 'SLACK', apiToken, channelName, ...t })),
  fc.tuple(ref, noInterval).map(([serviceKey, t]) => ({ typeName: 'PAGER_DUTY', serviceKey, ...t })),
  fc
    .tuple(ref, fc.constantFrom('US', 'EU'), noInterval)
    .map(([opsGenieApiKey, opsGenieRegion, t]) => ({ typeName: 'OPS_GENIE', opsGenieApiKey, opsGenieRegion, ...t })),
  fc.tuple(ref, ref, noInterval).map(([victorOpsApiKey, victorOpsRoutingKey, t]) => ({
    typeName: 'VICTOR_OPS',
    victorOpsApiKey,
    victorOpsRoutingKey,
    ...t,
  })),
  fc
    .tuple(ref, timing)
    .map(([microsoftTeamsWebhookUrl, t]) => ({ typeName: 'MICROSOFT_TEAMS', microsoftTeamsWebhookUrl, ...t })),
);

const matcher = fc.record({
  fieldName: fc.constantFrom(...MATCHER_FIELDS.filter((f) => f !== 'TYPE_NAME')),
  operator: fc.constantFrom(...MATCHER_OPERATORS),
  value: text,
});

function alertConfig(key: string) {
  return fc
    .record(
      {
        eventTypeName: fc.constantFrom(...EVENT_TYPE_NAMES),
        enabled: fc.boolean(),
        matchers: fc.array(matcher, { maxLength: 2 }),
        notifications: fc.array(notification, { minLength: 1, maxLength: 3 }),
        threshold: fc.integer({ min: 1, max: 100 }),
      },
      { requiredKeys: ['eventTypeName', 'notifications', 'threshold'] },
    )
    .map(({ threshold, ...config }) => ({
      key,
      ...config,
      ...(config.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD'
        ? {
            metricThreshold: {
              metricName: 'CONNECTIONS',
              mode: 'AVERAGE',
              operator: 'GREATER_THAN',
              threshold,
              units: 'RAW',
            },
          }
        : {}),
      ...(['TOO_FEW_HEALTHY_MEMBERS', 'TOO_MANY_UNHEALTHY_MEMBERS'].includes(config.eventTypeName)
        ? { threshold: { operator: 'LESS_THAN', threshold } }
        : {}),
    }));
}

const alertConfigs = (prefix: string, minLength: number) =>
  fc
    .uniqueArray(name, { minLength, maxLength: 3 })
    .chain((keys) => fc.tuple(...keys.map((k) => alertConfig(`${prefix}${k}`))));

const world = fc
  .uniqueArray(name, { maxLength: 2 })
  .chain((templateNames) =>
    fc.record({
      templates: fc.tuple(
        ...templateNames.map((t) => alertConfigs(`${t}-`, 1).map((configs) => ({ name: t, configs }))),
      ),
      projects: fc.uniqueArray(fc.tuple(name, hex24), {
        minLength: 1,
        maxLength: 3,
        selector: ([n, id]) => `${n}|${id}`,
      }),
    }),
  )
  .chain(({ templates, projects }) =>
    fc.record({
      templates: fc.constant(templates),
      projects: fc.tuple(
        ...projects
          .filter(([n, id], i) => projects.findIndex(([m, jd]) => m === n || jd === id) === i)
          .map(([projectName, projectId]) =>
            fc.record({
              name: fc.constant(projectName),
              projectId: fc.constant(projectId),
              orgId: hex24,
              templates: fc.subarray(templates.map((t) => t.name)),
              own: alertConfigs('', 0),
              prune: fc.boolean(),
              mode: fc.constantFrom(undefined, 'observe', 'plan', 'apply'),
              serverType: fc.constantFrom(undefined, ...SERVER_TYPES),
              rotation: fc.option(
                fc.record({
                  enforce: fc.boolean(),
                  sizeThresholdMB: fc.integer({ min: 1, max: 5000 }),
                  timeThresholdHrs: fc.integer({ min: 1, max: 48 }),
                  numTotal: fc.integer({ min: 0, max: 50 }),
                }),
                { nil: undefined },
              ),
            }),
          ),
      ),
    }),
  );

function documentsOf(w: typeof world extends fc.Arbitrary<infer T> ? T : never): string {
  const docs: unknown[] = [];
  for (const t of w.templates)
    docs.push({
      apiVersion: 'opsman-gitops/v1',
      kind: 'AlertTemplate',
      metadata: { name: t.name },
      spec: { alertConfigs: t.configs },
    });
  for (const p of w.projects) {
    const keys = [
      ...p.own.map((c) => c.key),
      ...w.templates.filter((t) => p.templates.includes(t.name)).flatMap((t) => t.configs.map((c) => c.key)),
    ];
    docs.push({
      apiVersion: 'opsman-gitops/v1',
      kind: 'Project',
      metadata: { name: p.name, projectId: p.projectId, orgId: p.orgId },
      spec: {
        ...(p.mode ? { mode: p.mode } : {}),
        ...(p.serverType ? { defaultServerType: p.serverType } : {}),
        ...(p.rotation ? { auditLogRotation: p.rotation } : {}),
        alertTemplates: p.templates,
        alertConfigs: p.own,
        prune: p.prune,
        protect: keys.slice(0, 1),
      },
    });
  }
  return docs.map((d) => stringify(d)).join('---\n');
}

const strip = (state: DesiredState) =>
  JSON.parse(
    JSON.stringify({ projects: state.projects, settings: state.settings }, (k, v) =>
      k === 'source' || k === 'secretSources' || k === 'template' ? undefined : v,
    ),
  );

describe('round trip', () => {
  it('load -> render -> load is identity for valid documents', async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const first = await loadDesiredState(new MemorySource({ 'docs.yaml': documentsOf(w) }));
        if (!first.ok) throw new Error(first.issues.map((i) => `${i.line}:${i.column}: ${i.message}`).join('\n'));
        expect(first.state.projects.map((p) => p.name)).toEqual(w.projects.map((p) => p.name));
        const rendered = renderDesiredState(first.state);
        const second = await loadDesiredState(new MemorySource({ 'rendered.yaml': rendered }));
        if (!second.ok) throw new Error(second.issues.map((i) => `${i.line}:${i.column}: ${i.message}`).join('\n'));
        expect(strip(second.state)).toEqual(strip(first.state));
      }),
      { numRuns: 100 },
    );
  });
});
