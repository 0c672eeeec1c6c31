// Scenario: each plan action renders as one symbol-led header, its reason, and field-level lines (table-driven, golden).
import { describe, expect, it } from 'vitest';
import { changeLines } from '../../../lambdas/core/render/change-lines.ts';
import { PLAIN_STYLE } from '../../../lambdas/core/render/style.ts';
import { ACME, change } from '../../helpers/cli-plans.ts';

const ATTRIBUTION = {
  eventTypeName: 'ALERT_CONFIG_DISABLED_AUDIT',
  created: '2026-11-21T09:58:00Z',
  actor: 'jdoekey1',
  actorType: 'apiKey' as const,
  remoteAddress: '127.0.0.1',
  eventId: 'e1',
};

const CASES = [
  {
    name: 'create lists the desired object, secrets masked, bookkeeping dropped',
    change: change({
      key: 'no-primary',
      action: 'create',
      reason: 'not in Ops Manager yet',
      after: {
        key: 'no-primary',
        eventTypeName: 'NO_PRIMARY',
        enabled: true,
        notifications: [{ typeName: 'WEBHOOK', webhookUrl: { secretRef: 'opsman/notify#payments-webhook-url' } }],
        source: { file: 'projects/payments.yaml', line: 3, column: 7 },
      },
    }),
    lines: [
      '  + alertConfig "no-primary"',
      '      # not in Ops Manager yet',
      '      eventTypeName: "NO_PRIMARY"',
      '      enabled: true',
      '      notifications:',
      // The create's own `+`, never a YAML bullet `-` that a terraform reader takes for "removed".
      '        + {"typeName":"WEBHOOK","webhookUrl":"(secret)"}',
    ],
  },
  {
    name: 'create from a template says so',
    change: change({
      key: 'k',
      action: 'create',
      after: { eventTypeName: 'HOST_DOWN' },
      template: { name: 'baseline', file: 'templates/baseline.yaml', line: 9 },
    }),
    lines: [
      '  + alertConfig "k" from template baseline (templates/baseline.yaml:9)',
      '      eventTypeName: "HOST_DOWN"',
    ],
  },
  {
    name: 'a disable from a template says which, after the verb',
    change: change({
      key: 'k',
      action: 'disable',
      id: '6b0000000000000000000001',
      reason: 'disabled in desired state',
      fields: [{ path: 'enabled', before: true, after: false }],
      template: { name: 'baseline', file: 'templates/baseline.yaml', line: 9 },
    }),
    lines: [
      '  ~ alertConfig "k" (id 6b0000000000000000000001) disable from template baseline (templates/baseline.yaml:9)',
      '      # disabled in desired state',
      '      enabled: true -> false',
    ],
  },
  {
    name: 'update shows before -> after and a changed secret without its value',
    change: change({
      key: 'conn',
      action: 'update',
      id: '6b0000000000000000000001',
      reason: 'desired changed',
      fields: [
        { path: 'metricThreshold.threshold', before: 5000, after: 6000 },
        { path: 'notifications[WEBHOOK].webhookSecret', secret: true, note: 'changed' },
      ],
    }),
    lines: [
      '  ~ alertConfig "conn" (id 6b0000000000000000000001)',
      '      # desired changed',
      '      metricThreshold.threshold: 5000 -> 6000',
      '      notifications[WEBHOOK].webhookSecret: (secret changed)',
    ],
  },
  {
    name: 'enable is an update with its verb',
    change: change({ key: 'k', action: 'enable', id: 'i1', fields: [{ path: 'enabled', before: false, after: true }] }),
    lines: ['  ~ alertConfig "k" (id i1) enable', '      enabled: false -> true'],
  },
  {
    name: 'disable is an update with its verb',
    change: change({
      key: 'k',
      action: 'disable',
      id: 'i1',
      fields: [{ path: 'enabled', before: true, after: false }],
    }),
    lines: ['  ~ alertConfig "k" (id i1) disable', '      enabled: true -> false'],
  },
  {
    name: 'delete lists the live object',
    change: change({
      key: 'old',
      action: 'delete',
      id: 'i2',
      reason: 'left git',
      before: { eventTypeName: 'HOST_DOWN' },
    }),
    lines: ['  - alertConfig "old" (id i2)', '      # left git', '      eventTypeName: "HOST_DOWN"'],
  },
  {
    name: 'delete leads each list element with its own -',
    change: change({
      key: 'old',
      action: 'delete',
      id: 'i2',
      before: { matchers: [{ fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'a' }] },
    }),
    lines: [
      '  - alertConfig "old" (id i2)',
      '      matchers:',
      '        - {"fieldName":"HOSTNAME","operator":"EQUALS","value":"a"}',
    ],
  },
  {
    name: 'adopt uses <=',
    change: change({ key: 'dflt', action: 'adopt', id: 'i3', reason: 'unowned and equal' }),
    lines: ['  <= alertConfig "dflt" (id i3)', '      # unowned and equal'],
  },
  {
    name: 'blocked uses ! and says why',
    change: change({ key: 'team', action: 'blocked', reason: 'team 6a1f00000000000000000009 not found' }),
    lines: ['  ! alertConfig "team"', '      # team 6a1f00000000000000000009 not found'],
  },
  {
    name: 'drift uses ? with the attribution and a secret removed on live',
    change: change({
      key: 'lag',
      action: 'drift',
      id: 'i4',
      fields: [
        { path: 'enabled', before: true, after: false },
        { path: 'notifications[SLACK].apiToken', secret: true, note: 'removed on live' },
      ],
      drift: { detected: true, attribution: [ATTRIBUTION] },
    }),
    lines: [
      '  ? alertConfig "lag" (id i4)',
      '      enabled: true -> false',
      '      notifications[SLACK].apiToken: (secret removed on live)',
      '      changed by jdoekey1 (API key) at 2026-11-21T09:58:00Z from 127.0.0.1 (ALERT_CONFIG_DISABLED_AUDIT)',
    ],
  },
  {
    name: "a drift made with the tool's own key outside its runs says so, naming the key",
    change: change({
      key: 'lag',
      action: 'drift',
      id: 'i4',
      fields: [{ path: 'enabled', before: true, after: false }],
      drift: {
        detected: true,
        attribution: [{ ...ATTRIBUTION, actor: 'gitopsbt', viaOwnKey: true as const }],
      },
    }),
    lines: [
      '  ? alertConfig "lag" (id i4)',
      '      enabled: true -> false',
      "      changed with opsman-gitops's own API key gitopsbt at 2026-11-21T09:58:00Z from 127.0.0.1 (ALERT_CONFIG_DISABLED_AUDIT), after its last complete run: the key used by hand, by another installation, or by a run that did not complete",
    ],
  },
  {
    name: 'a corrective update of drift with no audit event says the author is unknown',
    change: change({
      key: 'lag',
      action: 'update',
      id: 'i4',
      fields: [{ path: 'metricThreshold.threshold', before: 10, after: 5 }],
      drift: { detected: true },
    }),
    lines: [
      '  ~ alertConfig "lag" (id i4)',
      '      metricThreshold.threshold: 10 -> 5',
      '      changed outside opsman-gitops (who and when unknown)',
    ],
  },
  {
    name: 'a user (not a key) is named as a user',
    change: change({
      key: 'k',
      action: 'drift',
      drift: {
        detected: true,
        attribution: [{ ...ATTRIBUTION, actor: 'jdoe@acme.example', actorType: 'user', remoteAddress: undefined }],
      },
    }),
    lines: [
      '  ? alertConfig "k"',
      '      changed by jdoe@acme.example (user) at 2026-11-21T09:58:00Z (ALERT_CONFIG_DISABLED_AUDIT)',
    ],
  },
  {
    name: 'an empty remote address (an audit event without one) is left out, not shown as "from "',
    change: change({
      key: 'k',
      action: 'drift',
      drift: { detected: true, attribution: [{ ...ATTRIBUTION, actor: 'jdoe', actorType: 'user', remoteAddress: '' }] },
    }),
    lines: [
      '  ? alertConfig "k"',
      '      changed by jdoe (user) at 2026-11-21T09:58:00Z (ALERT_CONFIG_DISABLED_AUDIT)',
    ],
  },
  {
    name: 'a blocked create names itself and its reason, not the body it would have sent',
    change: change({ key: 'k', action: 'blocked', after: { eventTypeName: 'HOST_DOWN' }, reason: 'secret missing' }),
    lines: ['  ! alertConfig "k"', '      # secret missing'],
  },
  {
    name: 'a singleton shows its kind once',
    change: change({
      target: ACME,
      kind: 'defaultServerType',
      key: 'defaultServerType',
      action: 'update',
      fields: [{ path: 'name', before: 'DEV_SERVER', after: 'TEST_SERVER' }],
    }),
    lines: ['  ~ defaultServerType', '      name: "DEV_SERVER" -> "TEST_SERVER"'],
  },
  {
    name: 'a field added and a field removed',
    change: change({
      key: 'k',
      action: 'update',
      fields: [
        { path: 'threshold', after: { operator: 'LESS_THAN', threshold: 2 } },
        { path: 'matchers', before: [{ fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'a' }] },
      ],
    }),
    lines: [
      '  ~ alertConfig "k"',
      '      threshold: (none) -> {"operator":"LESS_THAN","threshold":2}',
      '      matchers: [{"fieldName":"HOSTNAME","operator":"EQUALS","value":"a"}] -> (none)',
    ],
  },
];

describe('changeLines', () => {
  it.each(CASES)('$name', ({ change: c, lines }) => {
    expect(changeLines(c, PLAIN_STYLE)).toEqual(lines);
  });
});
