// Scenario: one live alert config becomes the YAML entry a person would write (server defaults and server-only fields
// left out, secrets as named references, never a redacted value), and loading that entry gives a body whose normal
// form equals the live config's: the condition adoption needs.
import { describe, expect, it } from 'vitest';
import { toDesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { loadDesiredState } from '../../../lambdas/core/desired/load.ts';
import { exportAlertConfig } from '../../../lambdas/core/export/export-alert.ts';
import { projectDocument, projectYaml, rotationEntry } from '../../../lambdas/core/export/export-project.ts';
import { MemoryDesiredSource } from '../../../lambdas/core/export/memory-source.ts';
import { DEFAULT_SETTINGS } from '../../../lambdas/core/model.ts';
import { desiredText, liveText } from '../../../lambdas/core/normalise.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const P = '5e2211c17a3e5a48f5497de3';

/** A live config as Ops Manager answers it: server-only fields, filled defaults, redacted secrets. */
function live(body: Partial<AlertConfig>): AlertConfig {
  return {
    id: '6c0100000000000000000001',
    groupId: P,
    created: '2026-09-01T08:00:00Z',
    updated: '2026-09-01T08:00:00Z',
    links: [{ href: 'https://opsman.example.com/x', rel: 'self' }],
    enabled: true,
    eventTypeName: 'HOST_DOWN',
    matchers: [],
    notifications: [],
    ...body,
  } as AlertConfig;
}

const CASES: { name: string; config: AlertConfig; entry: Record<string, unknown>; refs?: string[] }[] = [
  {
    name: 'every server default left out',
    config: live({
      typeName: 'HOST',
      notifications: [
        {
          typeName: 'GROUP',
          notifierId: '6d01',
          delayMin: 0,
          intervalMin: 60,
          emailEnabled: true,
          smsEnabled: false,
          roles: ['GROUP_READ_ONLY', 'GROUP_OWNER'],
        },
      ] as AlertConfig['notifications'],
    }),
    entry: {
      key: 'k',
      eventTypeName: 'HOST_DOWN',
      notifications: [{ typeName: 'GROUP', emailEnabled: true, roles: ['GROUP_OWNER', 'GROUP_READ_ONLY'] }],
    },
  },
  {
    name: 'a disabled config with matchers and a metric threshold in non-default units',
    config: live({
      enabled: false,
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      matchers: [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'PRIMARY' }],
      metricThreshold: {
        metricName: 'CACHE_USAGE',
        mode: 'AVERAGE',
        operator: 'GREATER_THAN',
        threshold: '2.5',
        units: 'GIGABYTES',
      },
      notifications: [{ typeName: 'EMAIL', emailAddress: 'a@example.com', delayMin: 5, intervalMin: 60 }],
    } as unknown as Partial<AlertConfig>),
    entry: {
      key: 'k',
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      enabled: false,
      matchers: [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'PRIMARY' }],
      metricThreshold: { metricName: 'CACHE_USAGE', operator: 'GREATER_THAN', threshold: 2.5, units: 'GIGABYTES' },
      notifications: [{ typeName: 'EMAIL', delayMin: 5, emailAddress: 'a@example.com' }],
    },
  },
  {
    name: 'redacted secrets as references, numbered per field, whatever order the list has',
    config: live({
      eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
      threshold: { operator: 'LESS_THAN', threshold: 2, units: 'RAW' },
      notifications: [
        { typeName: 'WEBHOOK', webhookUrl: 'https://hooks.example.com/*****', intervalMin: 45 },
        { typeName: 'PAGER_DUTY', serviceKey: '************1234', delayMin: 0 },
        { typeName: 'WEBHOOK', webhookUrl: 'https://a.example.com/****', webhookSecret: '********', intervalMin: 15 },
      ],
    } as unknown as Partial<AlertConfig>),
    entry: {
      key: 'k',
      eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
      threshold: { operator: 'LESS_THAN', threshold: 2 },
      notifications: [
        {
          typeName: 'WEBHOOK',
          intervalMin: 15,
          webhookUrl: { secretRef: `opsman/${P}#k.webhookUrl` },
          webhookSecret: { secretRef: `opsman/${P}#k.webhookSecret` },
        },
        { typeName: 'WEBHOOK', intervalMin: 45, webhookUrl: { secretRef: `opsman/${P}#k.webhookUrl2` } },
        { typeName: 'PAGER_DUTY', serviceKey: { secretRef: `opsman/${P}#k.serviceKey` } },
      ],
    },
    refs: [
      `opsman/${P}#k.webhookUrl`,
      `opsman/${P}#k.webhookSecret`,
      `opsman/${P}#k.webhookUrl2`,
      `opsman/${P}#k.serviceKey`,
    ],
  },
  {
    name: 'an empty secret is no secret, and fields a type does not echo are dropped',
    config: live({
      notifications: [
        { typeName: 'WEBHOOK', webhookUrl: 'https://h.example.com/****', webhookSecret: '', teamName: 't' },
        { typeName: 'EMAIL', emailAddress: 'x@example.com', channelName: '#ops' },
        { typeName: 'TEAM', teamId: '6a1f00000000000000000001', teamName: 'dba', smsEnabled: true },
      ],
    } as unknown as Partial<AlertConfig>),
    entry: {
      key: 'k',
      eventTypeName: 'HOST_DOWN',
      notifications: [
        { typeName: 'EMAIL', emailAddress: 'x@example.com' },
        { typeName: 'TEAM', smsEnabled: true, teamId: '6a1f00000000000000000001' },
        { typeName: 'WEBHOOK', webhookUrl: { secretRef: `opsman/${P}#k.webhookUrl` } },
      ],
    },
    refs: [`opsman/${P}#k.webhookUrl`],
  },
  {
    // Normalisation marks a redacted secret with the text "(secret)": a plain field that happens to hold that text is
    // still a plain value, not a reference the user would be asked to create.
    name: 'a plain field holding the text of the secret marker stays a value',
    config: live({
      notifications: [{ typeName: 'SLACK', channelName: '(secret)', apiToken: '****abcd' }],
    } as unknown as Partial<AlertConfig>),
    entry: {
      key: 'k',
      eventTypeName: 'HOST_DOWN',
      notifications: [
        { typeName: 'SLACK', apiToken: { secretRef: `opsman/${P}#k.apiToken` }, channelName: '(secret)' },
      ],
    },
    refs: [`opsman/${P}#k.apiToken`],
  },
];

describe('exportAlertConfig', () => {
  it.each(CASES)('$name', ({ config, entry, refs = [] }) => {
    const exported = exportAlertConfig(config, 'k', P);
    expect(exported.entry).toEqual(entry);
    expect(exported.secretRefs).toEqual(refs);
    expect(JSON.stringify(exported.entry)).not.toMatch(/\*{4,}/);
  });

  it.each(CASES)('$name: the loaded entry normalises to the live config (adoption matches)', async ({ config }) => {
    const { entry } = exportAlertConfig(config, 'k', P);
    const text = projectYaml(projectDocument(P, '5e2211c17a3e5a48f5497de0', {}, [entry]), P);
    const result = await loadDesiredState(new MemoryDesiredSource({ 'p.yaml': text }));
    if (!result.ok) throw new Error(result.issues.map((i) => i.message).join('\n'));
    const loaded = result.state.projects[0]?.alertConfigs[0];
    expect(loaded).toBeDefined();
    expect(desiredText(toDesiredAlertBody(loaded as NonNullable<typeof loaded>))).toBe(liveText(config));
  });
});

describe('projectYaml: the header', () => {
  it('says that apply writes nothing at the default mode, and where to switch it (a first apply is otherwise all skips)', async () => {
    const text = projectYaml(projectDocument(P, undefined, {}, []), P);
    const header = text.split('\n').filter((line) => line.startsWith('#'));
    expect(DEFAULT_SETTINGS.mode).toBe('plan');
    expect(header.find((line) => line.includes('spec.mode'))).toMatch(
      /Settings\.mode \(the default is plan, which writes nothing\)/,
    );
    const result = await loadDesiredState(new MemoryDesiredSource({ 'p.yaml': text }));
    if (!result.ok) throw new Error(result.issues.map((i) => i.message).join('\n'));
    expect(result.state.settings.mode).toBe('plan');
  });
});

describe('projectYaml: an exported audit-log rotation', () => {
  it('says it is an expectation until enforce: true is added, and only when there is one', async () => {
    const rotation = { sizeThresholdMB: 500, timeThresholdHrs: 12 };
    const text = projectYaml(projectDocument(P, undefined, { auditLogRotation: rotation }, []), P);
    const line = text.split('\n').find((l) => l.startsWith('#') && l.includes('auditLogRotation'));
    expect(line).toBe(
      '# auditLogRotation is exported as an expectation (drift reported, never written): add enforce: true to keep it.',
    );
    const result = await loadDesiredState(new MemoryDesiredSource({ 'p.yaml': text }));
    if (!result.ok) throw new Error(result.issues.map((i) => i.message).join('\n'));
    expect(result.state.projects[0]?.auditLogRotation?.enforce ?? false).toBe(false);
    expect(projectYaml(projectDocument(P, undefined, {}, []), P)).not.toContain('auditLogRotation');
  });
});

describe('rotationEntry', () => {
  it.each([
    [{}, {}],
    [
      { sizeThresholdMB: 1000, timeThresholdHrs: 24, numUncompressed: 5, percentOfDiskspace: 0.02, numTotal: 0 },
      { entry: { sizeThresholdMB: 1000, timeThresholdHrs: 24 } },
    ],
    [
      { sizeThresholdMB: 500, timeThresholdHrs: 12, numTotal: 10 },
      { entry: { sizeThresholdMB: 500, timeThresholdHrs: 12, numTotal: 10 } },
    ],
    [
      { numTotal: 3 },
      {
        problem:
          "Ops Manager's rotation config has no sizeThresholdMB or timeThresholdHrs, which the desired state requires",
      },
    ],
  ])('%j -> %j', (config, expected) => {
    expect(rotationEntry(config)).toEqual(expected);
  });
});

describe('projectYaml: characters that act instead of showing', () => {
  it('writes bidi, zero-width, C1 and separator characters as \\u escapes that load back as the same string', async () => {
    const channelName = '#ops\u202e\u2066evil\u2069\u200b\u009b31m\u0085\u2028\u00ad\u{e0041}\u007f';
    const config = live({
      notifications: [{ typeName: 'SLACK', apiToken: '****abcd', channelName }] as AlertConfig['notifications'],
    });
    const { entry } = exportAlertConfig(config, 'k', P);
    const text = projectYaml(projectDocument(P, undefined, {}, [entry]), P);
    expect(text).not.toMatch(/[\u007f-\u009f\p{Cf}\p{Cs}\u2028\u2029]/u);
    expect(text).toContain('\\u202e\\u2066evil\\u2069\\u200b\\u009b31m\\u0085\\u2028\\u00ad\\udb40\\udc41\\u007f"');
    const result = await loadDesiredState(new MemoryDesiredSource({ 'p.yaml': text }));
    if (!result.ok) throw new Error(result.issues.map((i) => i.message).join('\n'));
    const loaded = result.state.projects[0]?.alertConfigs[0];
    expect(loaded?.notifications[0]?.channelName).toBe(channelName);
  });
});
