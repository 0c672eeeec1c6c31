// Scenario: alert-configuration bodies, table-driven: every bad-input class yields the reference's code; good ones normalise.
import { describe, expect, it } from 'vitest';
import { maskAll, maskKeepLast4, maskUrl, redactField } from '../../../emulator/alerts/redact.ts';
import { validateAlertConfig } from '../../../emulator/alerts/validate.ts';
import { ApiError } from '../../../emulator/errors.ts';
import type { StoredAlertConfig } from '../../../emulator/store/state.ts';

const G = '5e2211c17a3e5a48f5497de3';
let seq = 0;
const ctx = { groupId: G, mode: 'create' as const, newId: () => `id${++seq}` };
const email = { typeName: 'EMAIL', emailAddress: 'a@b.example' };
const base = { eventTypeName: 'HOST_DOWN', notifications: [email] };

function codeOf(body: unknown, c: Parameters<typeof validateAlertConfig>[1] = ctx): string {
  try {
    validateAlertConfig(body, c);
    return 'OK';
  } catch (err) {
    return err instanceof ApiError ? `${err.code} ${JSON.stringify(err.parameters)}` : `THREW ${String(err)}`;
  }
}

describe('validateAlertConfig rejects', () => {
  it.each([
    ['a non-object', [1], 'INVALID_JSON []'],
    ['an unknown field', { ...base, colour: 'red' }, 'INVALID_ATTRIBUTE ["colour"]'],
    ['a wrong type', { ...base, enabled: 'yes' }, 'INVALID_JSON_ATTRIBUTE ["enabled"]'],
    ['a missing eventTypeName', { notifications: [email] }, 'MISSING_ATTRIBUTE ["eventTypeName"]'],
    [
      'an unknown eventTypeName',
      { ...base, eventTypeName: 'HOST_DWON' },
      'INVALID_ENUM_VALUE ["HOST_DWON","eventTypeName"]',
    ],
    ['missing notifications', { eventTypeName: 'HOST_DOWN' }, 'MISSING_NOTIFICATIONS []'],
    ['empty notifications', { ...base, notifications: [] }, 'MISSING_NOTIFICATIONS []'],
    [
      'intervalMin below 5',
      { ...base, notifications: [{ ...email, intervalMin: 4 }] },
      'NOTIFICATION_INTERVAL_OUT_OF_RANGE []',
    ],
    [
      'a fractional delayMin',
      { ...base, notifications: [{ ...email, delayMin: 1.5 }] },
      'INVALID_JSON_ATTRIBUTE ["notifications[0].delayMin"]',
    ],
    [
      'intervalMin on PAGER_DUTY',
      { ...base, notifications: [{ typeName: 'PAGER_DUTY', serviceKey: 'k', intervalMin: 10 }] },
      'INVALID_ATTRIBUTE ["notifications[0].intervalMin"]',
    ],
    [
      'OUTSIDE_METRIC_THRESHOLD without metricThreshold',
      { ...base, eventTypeName: 'OUTSIDE_METRIC_THRESHOLD' },
      'MISSING_METRIC_THRESHOLD ["OUTSIDE_METRIC_THRESHOLD"]',
    ],
    [
      'metricThreshold elsewhere',
      { ...base, metricThreshold: { metricName: 'CONNECTIONS', operator: 'GREATER_THAN', threshold: 1 } },
      'METRIC_THRESHOLD_PRESENT ["HOST_DOWN"]',
    ],
    [
      'mode TOTAL',
      {
        ...base,
        eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
        metricThreshold: { metricName: 'CONNECTIONS', operator: 'GREATER_THAN', threshold: 1, mode: 'TOTAL' },
      },
      'TOTAL_MODE_DEPRECATED []',
    ],
    [
      'a bad units value',
      {
        ...base,
        eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
        metricThreshold: { metricName: 'CONNECTIONS', operator: 'GREATER_THAN', threshold: 1, units: 'LITRES' },
      },
      'INVALID_ENUM_VALUE ["LITRES","metricThreshold.units"]',
    ],
    [
      'TOO_FEW_HEALTHY_MEMBERS without threshold',
      { ...base, eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS' },
      'MISSING_THRESHOLD ["TOO_FEW_HEALTHY_MEMBERS"]',
    ],
    [
      'threshold elsewhere',
      { ...base, threshold: { operator: 'LESS_THAN', threshold: 1 } },
      'THRESHOLD_PRESENT ["HOST_DOWN"]',
    ],
    [
      'an unknown notification type',
      { ...base, notifications: [{ typeName: 'CARRIER_PIGEON' }] },
      'UNSUPPORTED_NOTIFICATION_TYPE ["CARRIER_PIGEON"]',
    ],
    [
      'EMAIL without emailAddress',
      { ...base, notifications: [{ typeName: 'EMAIL' }] },
      'MISSING_ATTRIBUTE ["notifications[0].emailAddress"]',
    ],
    [
      'SLACK without channelName',
      { ...base, notifications: [{ typeName: 'SLACK', apiToken: 't' }] },
      'MISSING_ATTRIBUTE ["notifications[0].channelName"]',
    ],
    [
      'SMS without mobileNumber',
      { ...base, notifications: [{ typeName: 'SMS' }] },
      'MISSING_ATTRIBUTE ["notifications[0].mobileNumber"]',
    ],
    [
      'WEBHOOK with only a secret (the spec: declared only with webhookUrl)',
      { ...base, notifications: [{ typeName: 'WEBHOOK', webhookSecret: 's' }] },
      'INVALID_ATTRIBUTE ["notifications[0].webhookSecret"]',
    ],
    [
      'a webhookSecret without webhookUrl on another type',
      { ...base, notifications: [{ ...email, webhookSecret: 's' }] },
      'INVALID_ATTRIBUTE ["notifications[0].webhookSecret"]',
    ],
    [
      'WEBHOOK without its URL',
      { ...base, notifications: [{ typeName: 'WEBHOOK' }] },
      'MISSING_ATTRIBUTE ["notifications[0].webhookUrl"]',
    ],
    [
      'GROUP with an empty roles list',
      { ...base, notifications: [{ typeName: 'GROUP', roles: [] }] },
      'MISSING_ROLES_FOR_GROUP_NOTIFICATION []',
    ],
    [
      'GROUP with a bad role',
      { ...base, notifications: [{ typeName: 'GROUP', role: 'KING' }] },
      'INVALID_ENUM_VALUE ["KING","notifications[0].roles"]',
    ],
    [
      'ORG with a project role',
      { ...base, notifications: [{ typeName: 'ORG', roles: ['GROUP_OWNER'] }] },
      'INVALID_ENUM_VALUE ["GROUP_OWNER","notifications[0].roles"]',
    ],
    [
      'an unknown notification field',
      { ...base, notifications: [{ ...email, pager: 1 }] },
      'INVALID_ATTRIBUTE ["notifications[0].pager"]',
    ],
    [
      'a bad matcher operator',
      { ...base, matchers: [{ fieldName: 'HOSTNAME', operator: 'LIKE', value: 'x' }] },
      'INVALID_ENUM_VALUE ["LIKE","matchers[0].operator"]',
    ],
    ['an id on create', { ...base, id: 'aaaaaaaaaaaaaaaaaaaaaaaa' }, 'ATTRIBUTE_READ_ONLY ["id"]'],
    ['another groupId', { ...base, groupId: 'bbbbbbbbbbbbbbbbbbbbbbbb' }, 'ATTRIBUTE_READ_ONLY ["groupId"]'],
  ])('%s', (_name, body, expected) => {
    expect(codeOf(body)).toBe(expected);
  });
});

describe('validateAlertConfig normalises', () => {
  it("fills defaults, keeps each type's own fields and echoes the spec's when-set fields of other types", () => {
    const v = validateAlertConfig(
      {
        ...base,
        typeName: 'HOST',
        groupId: G,
        notifications: [
          { ...email, smsEnabled: true, roles: ['GROUP_OWNER'] },
          { typeName: 'GROUP', role: 'GROUP_OWNER', emailAddress: 'ignored@x.example' },
        ],
      },
      ctx,
    );
    expect(v.enabled).toBe(false);
    expect(v.matchers).toEqual([]);
    const [e, g] = v.notifications;
    // smsEnabled is in the spec's "returned when they were set" list; EMAIL has no roles of its own, but "A role is
    // returned as `roles`": kept (so a GET body sent back on PUT keeps it too).
    expect(e).toEqual({
      typeName: 'EMAIL',
      notifierId: e?.notifierId,
      delayMin: 0,
      intervalMin: 60,
      emailAddress: 'a@b.example',
      smsEnabled: true,
      roles: ['GROUP_OWNER'],
    });
    expect(g).toMatchObject({
      typeName: 'GROUP',
      roles: ['GROUP_OWNER'],
      emailEnabled: false,
      smsEnabled: false,
      emailAddress: 'ignored@x.example',
    });
    expect(v.typeName).toBe('HOST');
  });

  it('checks a when-set field of another type like its own type would', () => {
    expect(() => validateAlertConfig({ ...base, notifications: [{ ...email, teamId: 'not-an-id' }] }, ctx)).toThrow(
      expect.objectContaining({ code: 'INVALID_JSON_ATTRIBUTE' }),
    );
    expect(() => validateAlertConfig({ ...base, notifications: [{ ...email, emailEnabled: 'yes' }] }, ctx)).toThrow(
      expect.objectContaining({ code: 'INVALID_JSON_ATTRIBUTE' }),
    );
  });

  it('keeps organization roles on an ORG notification', () => {
    const v = validateAlertConfig(
      { ...base, notifications: [{ typeName: 'ORG', roles: ['ORG_OWNER', 'ORG_READ_ONLY'], emailEnabled: true }] },
      ctx,
    );
    expect(v.notifications[0]).toMatchObject({ typeName: 'ORG', roles: ['ORG_OWNER', 'ORG_READ_ONLY'] });
  });

  it('keeps a stored secret when PUT sends its mask or omits it with the notifierId', () => {
    const previous: StoredAlertConfig = {
      id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      groupId: G,
      created: '2026-01-01T00:00:00Z',
      updated: '2026-01-01T00:00:00Z',
      enabled: true,
      eventTypeName: 'HOST_DOWN',
      matchers: [],
      notifications: [
        {
          typeName: 'SLACK',
          notifierId: 'n1',
          delayMin: 0,
          intervalMin: 60,
          apiToken: 'xoxb-secret-1234',
          channelName: '#a',
        },
        { typeName: 'PAGER_DUTY', notifierId: 'n2', delayMin: 0, serviceKey: 'pd-secret-9876' },
      ],
    };
    const rctx = { groupId: G, mode: 'replace' as const, previous, newId: () => 'new' };
    const v = validateAlertConfig(
      {
        ...base,
        id: previous.id,
        created: previous.created,
        updated: previous.updated,
        notifications: [
          { typeName: 'SLACK', apiToken: maskKeepLast4('xoxb-secret-1234'), channelName: '#a' },
          { typeName: 'PAGER_DUTY', notifierId: 'n2' },
        ],
      },
      rctx,
    );
    expect(v.notifications[0]).toMatchObject({ apiToken: 'xoxb-secret-1234', notifierId: 'new' });
    expect(v.notifications[1]).toMatchObject({ serviceKey: 'pd-secret-9876', notifierId: 'n2' });
    expect(codeOf({ ...base, created: '2020-01-01T00:00:00Z' }, rctx)).toBe('ATTRIBUTE_READ_ONLY ["created"]');
  });
});

describe('redaction', () => {
  it.each([
    ['apiToken', 'xoxb-1234567890', '***********7890'],
    ['serviceKey', 'abc', '***'],
    ['webhookUrl', 'https://hooks.example.com/services/T0/B1', 'https://hooks.example.com/**************'],
    ['webhookUrl', 'http://h.example:8080/', 'http://h.example:8080/'],
    ['webhookSecret', 'topsecret', '*********'],
    ['channelName', '#ops', '#ops'],
  ])('%s %s', (field, value, expected) => {
    expect(redactField(field, value)).toBe(expected);
  });

  it('preserves length', () => {
    for (const v of ['a', 'abcd', 'abcdefgh', 'https://x.example/a?b=c']) {
      expect(maskKeepLast4(v)).toHaveLength(v.length);
      expect(maskAll(v)).toHaveLength(v.length);
      expect(maskUrl(v)).toHaveLength(v.length);
    }
  });
});
