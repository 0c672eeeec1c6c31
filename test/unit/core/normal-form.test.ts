// Scenario: the one-pass normal form (object plus canonical text) always equals canonicalJson of its object, for real and for malformed inputs, and the live view's digest is the sha256 of that text.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { canonicalJson, sha256Hex } from '../../../lambdas/core/canonical.ts';
import {
  desiredForm,
  desiredText,
  liveForm,
  liveText,
  liveView,
  normaliseLive,
} from '../../../lambdas/core/normalise.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const TYPES = ['ADMIN', 'DATADOG', 'EMAIL', 'GROUP', 'OPS_GENIE', 'ORG', 'PAGER_DUTY', 'SLACK', 'SMS', 'TEAM'];
const FIELDS = ['delayMin', 'intervalMin', 'emailEnabled', 'smsEnabled', 'emailAddress', 'mobileNumber', 'username'];
const MORE = ['roles', 'role', 'teamId', 'channelName', 'apiToken', 'serviceKey', 'webhookUrl', 'notifierId', 'z'];

const scalar = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.integer({ min: -3, max: 200 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constantFrom('90', '90.0', ' ', '', 'é"\\\n'),
);
const value = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 3 }),
);
const notification = fc
  .record({
    typeName: fc.oneof(fc.constantFrom(...TYPES, 'UNKNOWN', ''), scalar),
    rest: fc.dictionary(
      fc.constantFrom(...FIELDS, ...MORE),
      fc.oneof(value, fc.array(fc.constantFrom('GROUP_OWNER', 'A', 'b'), { maxLength: 3 })),
      { maxKeys: 6 },
    ),
  })
  .map(({ typeName, rest }) => ({ typeName, ...rest }));
const matcher = fc.record(
  { fieldName: fc.oneof(fc.constantFrom('HOSTNAME', 'TYPE_NAME'), scalar), operator: scalar, value },
  { requiredKeys: [] },
);
const threshold = fc.oneof(
  fc.constant(undefined),
  scalar,
  fc.dictionary(fc.constantFrom('threshold', 'operator', 'units', 'mode', 'metricName', 'x'), value, { maxKeys: 5 }),
);
/** Any JSON-ish alert config, including shapes Ops Manager should never send. */
const rawAlert = fc.record(
  {
    eventTypeName: fc.oneof(fc.constantFrom('HOST_DOWN', 'OUTSIDE_METRIC_THRESHOLD'), scalar),
    enabled: fc.oneof(fc.boolean(), scalar),
    matchers: fc.oneof(fc.constant(undefined), fc.array(matcher, { maxLength: 4 })),
    notifications: fc.oneof(fc.constant(undefined), fc.array(notification, { maxLength: 4 })),
    metricThreshold: threshold,
    threshold,
    id: fc.string({ maxLength: 4 }),
  },
  { requiredKeys: ['eventTypeName'] },
);

/** The outcome of a call: its value, or the error message it threw. */
function outcome<T>(fn: () => T): { value: T } | { error: string } {
  try {
    return { value: fn() };
  } catch (error) {
    return { error: String(error) };
  }
}

describe('normal form: text equals canonicalJson of the object', () => {
  it('holds for any live or desired input (property)', () => {
    fc.assert(
      fc.property(rawAlert, (raw) => {
        for (const form of [liveForm, desiredForm] as ((x: never) => { normal: unknown; text: string })[]) {
          const result = outcome(() => form(raw as never));
          if ('value' in result) expect(result.value.text).toBe(canonicalJson(result.value.normal));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("the text-only forms equal the forms' text, and throw where the forms throw (property)", () => {
    fc.assert(
      fc.property(rawAlert, (raw) => {
        const textOf = (r: { value: { text: string } } | { error: string }) =>
          'value' in r ? { value: r.value.text } : r;
        expect(outcome(() => liveText(raw as never))).toEqual(textOf(outcome(() => liveForm(raw as never))));
        expect(outcome(() => desiredText(raw as never))).toEqual(textOf(outcome(() => desiredForm(raw as never))));
      }),
      { numRuns: 3000 },
    );
  });

  it('a live view builds each part on demand, equal to the form, once; it throws on first use as the form does (property)', () => {
    fc.assert(
      fc.property(rawAlert, (raw) => {
        const form = outcome(() => liveForm(raw as never));
        // Making a view computes nothing, so it never throws; its parts throw what the form throws.
        const view = liveView(raw as never);
        const text = outcome(() => view.text);
        const digest = outcome(() => view.digest);
        const normal = outcome(() => view.normal);
        if (!('value' in form)) {
          expect(text).toEqual(form);
          expect(digest).toEqual(form);
          expect(normal).toEqual(form);
          return;
        }
        expect(text).toEqual({ value: form.value.text });
        expect(digest).toEqual({ value: sha256Hex(form.value.text) });
        expect(view.normal).toEqual(form.value.normal);
        expect(JSON.stringify(view.normal)).toBe(JSON.stringify(form.value.normal));
        expect(view.normal).toBe(view.normal);
      }),
      { numRuns: 1000 },
    );
  });

  const cases: { name: string; body: DesiredAlertBody; text: string }[] = [
    {
      name: 'members sorted, defaults filled, roles sorted, secret marked',
      body: {
        eventTypeName: 'HOST_DOWN',
        enabled: true,
        matchers: [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'PRIMARY' }],
        notifications: [
          { typeName: 'WEBHOOK', webhookUrl: { secretRef: 's#u' } },
          { typeName: 'GROUP', roles: ['GROUP_READ_ONLY', 'GROUP_OWNER'], intervalMin: 5 },
        ],
      },
      text:
        '{"enabled":true,"eventTypeName":"HOST_DOWN","matchers":[{"fieldName":"TYPE_NAME","operator":"EQUALS","value":"PRIMARY"}],' +
        '"notifications":[{"delayMin":0,"emailEnabled":false,"intervalMin":5,"roles":["GROUP_OWNER","GROUP_READ_ONLY"],"smsEnabled":false,"typeName":"GROUP"},' +
        '{"delayMin":0,"intervalMin":60,"typeName":"WEBHOOK","webhookUrl":"(secret)"}]}',
    },
    {
      name: 'thresholds with server defaults, numeric threshold',
      body: {
        eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
        enabled: false,
        matchers: [],
        metricThreshold: { metricName: 'X', operator: 'GREATER_THAN', threshold: '90.0' as unknown as number },
        threshold: { operator: 'LESS_THAN', threshold: 3 },
        notifications: [],
      },
      text:
        '{"enabled":false,"eventTypeName":"OUTSIDE_METRIC_THRESHOLD","matchers":[],' +
        '"metricThreshold":{"metricName":"X","mode":"AVERAGE","operator":"GREATER_THAN","threshold":90,"units":"RAW"},' +
        '"notifications":[],"threshold":{"operator":"LESS_THAN","threshold":3,"units":"RAW"}}',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const form = desiredForm(c.body);
      expect(form.text).toBe(c.text);
      expect(form.text).toBe(canonicalJson(form.normal));
    });
  }

  it('keeps the member order of the normal object (plans print it)', () => {
    const normal = desiredForm({
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      enabled: true,
      matchers: [],
      metricThreshold: { metricName: 'X', operator: 'GREATER_THAN', threshold: 1, units: 'RAW', mode: 'AVERAGE' },
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
    }).normal;
    expect(Object.keys(normal)).toEqual(['eventTypeName', 'enabled', 'matchers', 'notifications', 'metricThreshold']);
    expect(Object.keys(normal.metricThreshold ?? {})).toEqual(['mode', 'units', 'metricName', 'operator', 'threshold']);
    expect(Object.keys(normal.notifications[0] ?? {})).toEqual([
      'typeName',
      'delayMin',
      'intervalMin',
      'emailEnabled',
      'smsEnabled',
      'roles',
    ]);
  });
});

describe('live view and digests', () => {
  it('the live view digest is the sha256 of the canonical text', () => {
    const config = {
      id: 'a1',
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      notifications: [{ typeName: 'EMAIL', emailAddress: 'x@example.com' }],
    } as unknown as AlertConfig;
    const view = liveView(config);
    expect(view.text).toBe(canonicalJson(normaliseLive(config)));
    expect(view.digest).toBe(createHash('sha256').update(view.text).digest('hex'));
  });

  it('sha256Hex equals a streamed sha256 for any text or bytes (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array()), (data) => {
        expect(sha256Hex(data)).toBe(createHash('sha256').update(data).digest('hex'));
      }),
      { numRuns: 200 },
    );
  });
});
