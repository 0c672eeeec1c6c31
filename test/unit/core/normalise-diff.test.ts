// Scenario: normalisation makes a desired body and the live config Ops Manager echoes for it equal; diff names what differs.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { diffAlert, onlyEnabledDiffers, withSecretChanges } from '../../../lambdas/core/diff.ts';
import {
  desiredNotificationOrder,
  normaliseDesired,
  normaliseLive,
  SECRET,
  sameNormal,
} from '../../../lambdas/core/normalise.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const base: DesiredAlertBody = {
  eventTypeName: 'NO_PRIMARY',
  enabled: true,
  matchers: [],
  notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true }],
};

function live(overrides: Partial<AlertConfig>): AlertConfig {
  return {
    id: 'a1',
    groupId: 'g',
    created: '2026-01-01T00:00:00Z',
    updated: '2026-01-01T00:00:00Z',
    enabled: true,
    eventTypeName: 'NO_PRIMARY',
    links: [{ rel: 'self', href: 'x' }],
    matchers: [],
    typeName: 'REPLICA_SET',
    notifications: [
      { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true, notifierId: 'n1' },
    ],
    ...overrides,
  };
}

describe('normalise: equal cases', () => {
  const cases: { name: string; desired: DesiredAlertBody; live: AlertConfig }[] = [
    { name: 'server-only fields dropped', desired: base, live: live({}) },
    {
      name: 'numbers compared numerically (90 vs 90.0 vs "90")',
      desired: {
        ...base,
        eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
        metricThreshold: { metricName: 'X', operator: 'GREATER_THAN', threshold: 90, mode: 'AVERAGE', units: 'RAW' },
      },
      live: live({
        eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
        metricThreshold: {
          metricName: 'X',
          operator: 'GREATER_THAN',
          threshold: '90.0' as unknown as number,
          mode: 'AVERAGE',
          units: 'RAW',
        },
      }),
    },
    {
      name: 'matchers, notifications and roles in any order',
      desired: {
        ...base,
        matchers: [
          { fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'b' },
          { fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'a' },
        ],
        notifications: [
          { typeName: 'EMAIL', emailAddress: 'x@example.com', intervalMin: 60, delayMin: 0 },
          {
            typeName: 'GROUP',
            roles: ['GROUP_READ_ONLY', 'GROUP_OWNER'],
            intervalMin: 5,
            delayMin: 0,
            emailEnabled: true,
          },
        ],
      },
      live: live({
        matchers: [
          { fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'a' },
          { fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'b' },
        ],
        notifications: [
          {
            typeName: 'GROUP',
            roles: ['GROUP_OWNER', 'GROUP_READ_ONLY'],
            intervalMin: 5,
            delayMin: 0,
            emailEnabled: true,
          },
          { typeName: 'EMAIL', emailAddress: 'x@example.com', intervalMin: 60, delayMin: 0 },
        ],
      }),
    },
    {
      name: 'server defaults filled (delayMin 0, intervalMin 60, smsEnabled false)',
      desired: { ...base, notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], emailEnabled: true }] },
      live: live({
        notifications: [
          { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 60, delayMin: 0, emailEnabled: true },
        ],
      }),
    },
    {
      name: 'fields a type does not echo are ignored (EMAIL with emailEnabled)',
      desired: {
        ...base,
        notifications: [{ typeName: 'EMAIL', emailAddress: 'a@b.c', emailEnabled: true, smsEnabled: true }],
      },
      live: live({ notifications: [{ typeName: 'EMAIL', emailAddress: 'a@b.c', intervalMin: 60, delayMin: 0 }] }),
    },
    {
      name: 'a redacted secret equals a secret reference',
      desired: {
        ...base,
        notifications: [{ typeName: 'WEBHOOK', webhookUrl: { secretRef: 's#u' }, webhookSecret: { secretRef: 's#s' } }],
      },
      live: live({
        notifications: [
          {
            typeName: 'WEBHOOK',
            webhookUrl: 'https://h/********',
            webhookSecret: '******',
            intervalMin: 60,
            delayMin: 0,
          },
        ],
      }),
    },
    {
      name: 'intervalMin not echoed for PAGER_DUTY',
      desired: { ...base, notifications: [{ typeName: 'PAGER_DUTY', serviceKey: { secretRef: 's#k' } }] },
      live: live({ notifications: [{ typeName: 'PAGER_DUTY', serviceKey: '****abcd', delayMin: 0 }] }),
    },
    {
      name: "a threshold member this version does not model (a newer server's) is left out of the comparison",
      desired: { ...base, metricThreshold: { metricName: 'X', operator: 'GREATER_THAN', threshold: 90 } },
      live: live({
        metricThreshold: {
          metricName: 'X',
          operator: 'GREATER_THAN',
          threshold: 90,
          scale: 'SECONDS',
        } as unknown as AlertConfig['metricThreshold'],
      }),
    },
    {
      name: 'a live interval or delay answered as a numeric string equals the number',
      desired: { ...base, notifications: [{ typeName: 'EMAIL', emailAddress: 'a@b.c', intervalMin: 30, delayMin: 5 }] },
      live: live({
        notifications: [
          {
            typeName: 'EMAIL',
            emailAddress: 'a@b.c',
            intervalMin: '30' as unknown as number,
            delayMin: '5' as unknown as number,
          },
        ],
      }),
    },
    {
      name: 'live enabled false by default and matchers absent',
      desired: { ...base, enabled: false },
      live: { ...live({ enabled: undefined as unknown as boolean }), matchers: undefined as unknown as [] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = normaliseDesired(c.desired);
      const l = normaliseLive(c.live);
      expect(diffAlert(d, l)).toEqual([]);
      expect(sameNormal(d, l)).toBe(true);
    });
  }
});

describe('diff: field changes', () => {
  const cases: { name: string; desired: DesiredAlertBody; live: AlertConfig; paths: string[] }[] = [
    { name: 'disabled live', desired: base, live: live({ enabled: false }), paths: ['enabled'] },
    {
      name: 'threshold changed',
      desired: { ...base, metricThreshold: { metricName: 'X', operator: 'GREATER_THAN', threshold: 90 } },
      live: live({ metricThreshold: { metricName: 'X', operator: 'GREATER_THAN', threshold: 80 } }),
      paths: ['metricThreshold.threshold'],
    },
    {
      name: 'notification removed on live',
      desired: { ...base, notifications: [...base.notifications, { typeName: 'EMAIL', emailAddress: 'a@b.c' }] },
      live: live({}),
      paths: ['notifications[EMAIL:a@b.c]'],
    },
    {
      name: 'interval changed, matched by identity not index',
      desired: {
        ...base,
        notifications: [{ typeName: 'EMAIL', emailAddress: 'a@b.c', intervalMin: 30 }, ...base.notifications],
      },
      live: live({
        notifications: [
          { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true },
          { typeName: 'EMAIL', emailAddress: 'a@b.c', intervalMin: 60 },
        ],
      }),
      paths: ['notifications[EMAIL:a@b.c].intervalMin'],
    },
    {
      name: 'secret removed on live is drift',
      desired: {
        ...base,
        notifications: [{ typeName: 'WEBHOOK', webhookUrl: { secretRef: 's#u' }, webhookSecret: { secretRef: 's#s' } }],
      },
      live: live({
        notifications: [{ typeName: 'WEBHOOK', webhookUrl: 'https://h/***', intervalMin: 60, delayMin: 0 }],
      }),
      paths: ['notifications[WEBHOOK].webhookSecret'],
    },
    {
      name: 'a secret emptied on live is no secret: removed on live, so the update sends it again',
      desired: {
        ...base,
        notifications: [{ typeName: 'WEBHOOK', webhookUrl: { secretRef: 's#u' }, webhookSecret: { secretRef: 's#s' } }],
      },
      live: live({
        notifications: [
          { typeName: 'WEBHOOK', webhookUrl: 'https://h/***', webhookSecret: '', intervalMin: 60, delayMin: 0 },
        ],
      }),
      paths: ['notifications[WEBHOOK].webhookSecret'],
    },
    {
      name: 'a threshold emptied or blank on live is no 0',
      desired: { ...base, metricThreshold: { metricName: 'X', operator: 'GREATER_THAN', threshold: 0 } },
      live: live({
        metricThreshold: { metricName: 'X', operator: 'GREATER_THAN', threshold: ' ' as unknown as number },
      }),
      paths: ['metricThreshold.threshold'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const fields = diffAlert(normaliseDesired(c.desired), normaliseLive(c.live));
      expect(fields.map((f) => f.path)).toEqual(c.paths);
    });
  }

  it('two notifications of one identity pair by content: changing one never reads as fields swapped between them', () => {
    const owner = { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true };
    const reader = { typeName: 'GROUP', roles: ['GROUP_READ_ONLY'], intervalMin: 30, delayMin: 10, emailEnabled: true };
    // delayMin 10 -> 0 makes the reader sort before the owner ("intervalMin":30 < "intervalMin":5 as text).
    const fields = diffAlert(
      normaliseDesired({ ...base, notifications: [owner, { ...reader, delayMin: 0 }] }),
      normaliseLive(live({ notifications: [owner, reader] })),
    );
    expect(fields).toEqual([{ path: 'notifications[GROUP].delayMin', before: 10, after: 0 }]);
    // One more of that identity, and one fewer: the extra is added or removed alone, the others unchanged.
    const third = { ...reader, roles: ['GROUP_DATA_ACCESS_ADMIN'], intervalMin: 60 };
    const added = diffAlert(
      normaliseDesired({ ...base, notifications: [owner, reader, third] }),
      normaliseLive(live({ notifications: [reader, owner] })),
    );
    expect(added.map((f) => [f.path, f.before === undefined ? 'added' : 'changed'])).toEqual([
      ['notifications[GROUP#3]', 'added'],
    ]);
    expect((added[0]?.after as { roles?: string[] } | undefined)?.roles).toEqual(['GROUP_DATA_ACCESS_ADMIN']);
    const removed = diffAlert(
      normaliseDesired({ ...base, notifications: [reader] }),
      normaliseLive(live({ notifications: [owner, reader] })),
    );
    expect(removed.map((f) => f.path)).toEqual(['notifications[GROUP#2]']);
    expect((removed[0]?.before as { roles?: string[] } | undefined)?.roles).toEqual(['GROUP_OWNER']);
  });

  it('given the YAML order, each field of one of several notifications of one identity says its place in the list', () => {
    const owner = { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true };
    const reader = { typeName: 'GROUP', roles: ['GROUP_READ_ONLY'], intervalMin: 30, delayMin: 10, emailEnabled: true };
    const email = { typeName: 'EMAIL', emailAddress: 'a@b.example', intervalMin: 60 };
    const body = { ...base, notifications: [email, { ...reader, delayMin: 0 }, owner] };
    const fields = diffAlert(
      normaliseDesired(body),
      normaliseLive(live({ notifications: [owner, reader, { ...owner, roles: ['GROUP_CLUSTER_MANAGER'] }, email] })),
      () => desiredNotificationOrder(body),
    );
    expect(fields.map((f) => [f.path, f.item])).toEqual([
      ['notifications[GROUP].delayMin', 2],
      ['notifications[GROUP#3]', 0],
    ]);
    // A unique identity (the EMAIL) gets no item; without the order, no field does.
    expect(
      diffAlert(normaliseDesired(body), normaliseLive(live({ notifications: [owner, reader] }))).some(
        (f) => f.item !== undefined,
      ),
    ).toBe(false);
  });

  it('a field only one side has carries only that side, and fields come in path order', () => {
    // Built by hand: normalisation fills defaults, but a member it does not know of reaches the diff on one side only.
    const normal = (metricThreshold: Record<string, unknown>) =>
      ({ ...normaliseDesired(base), metricThreshold }) as ReturnType<typeof normaliseDesired>;
    const fields = diffAlert(
      normal({ metricName: 'X', threshold: 90, operator: 'GREATER_THAN', window: 5 }),
      normal({ metricName: 'Y', extra: 1, operator: 'LESS_THAN', threshold: 80 }),
    );
    expect(fields.map((f) => f.path)).toEqual([
      'metricThreshold.extra',
      'metricThreshold.metricName',
      'metricThreshold.operator',
      'metricThreshold.threshold',
      'metricThreshold.window',
    ]);
    // No `before` key for a member only desired has, no `after` for one only live has: list-lines prints them as + / -.
    expect(fields[0]).toStrictEqual({ path: 'metricThreshold.extra', before: 1 });
    expect(fields[4]).toStrictEqual({ path: 'metricThreshold.window', after: 5 });
  });

  it('a notification equal to a live one keeps it, even when another of its identity is closer to that one', () => {
    // `near` sorts first and differs from `reader` in 3 fields, from `far` in 5: paired by cost alone it would take
    // `reader` and leave the unchanged reader to be diffed against `far`.
    const near = { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 1, emailEnabled: true };
    const reader = { typeName: 'GROUP', roles: ['GROUP_READ_ONLY'], intervalMin: 30, delayMin: 10, emailEnabled: true };
    const far = {
      typeName: 'GROUP',
      roles: ['GROUP_CLUSTER_MANAGER'],
      intervalMin: 60,
      delayMin: 20,
      emailEnabled: false,
      smsEnabled: true,
    };
    const fields = diffAlert(
      normaliseDesired({ ...base, notifications: [near, reader] }),
      normaliseLive(live({ notifications: [reader, far] })),
    );
    expect(fields.some((f) => JSON.stringify(f.before) === JSON.stringify(['GROUP_READ_ONLY']))).toBe(false);
    expect(fields.find((f) => f.path.endsWith('.roles'))).toMatchObject({
      before: ['GROUP_CLUSTER_MANAGER'],
      after: ['GROUP_OWNER'],
    });
  });

  it('numbers the fields of an identity that only live has several of, given the YAML order', () => {
    const owner = { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true };
    const body = { ...base, notifications: [owner] };
    const fields = diffAlert(
      normaliseDesired(body),
      normaliseLive(live({ notifications: [owner, { ...owner, roles: ['GROUP_CLUSTER_MANAGER'] }] })),
      () => desiredNotificationOrder(body),
    );
    expect(fields.map((f) => [f.path, f.item])).toEqual([['notifications[GROUP#2]', 0]]);
  });

  it('equal notifications in the YAML take their places in turn', () => {
    const reader = { typeName: 'GROUP', roles: ['GROUP_READ_ONLY'], intervalMin: 30, delayMin: 10, emailEnabled: true };
    const body = { ...base, notifications: [reader, reader] };
    const fields = diffAlert(
      normaliseDesired(body),
      normaliseLive(
        live({
          notifications: [
            { ...reader, delayMin: 1 },
            { ...reader, delayMin: 2 },
          ],
        }),
      ),
      () => desiredNotificationOrder(body),
    );
    expect(fields.map((f) => f.item).sort()).toEqual([1, 2]);
  });

  it('a secret whose fingerprint differs is "changed" when state knew it, "set" when there is no state', () => {
    const path = 'notifications[SLACK:#c].apiToken';
    expect(withSecretChanges([], [path], { [path]: 'fp' })).toEqual([{ path, secret: true, note: 'changed' }]);
    expect(withSecretChanges([], [path], undefined)).toEqual([{ path, secret: true, note: 'set' }]);
  });

  it("a secret removed on live absorbs only its own path's change, never another secret's", () => {
    const removed = { path: 'notifications[WEBHOOK].webhookSecret', secret: true, note: 'removed on live' } as const;
    const url = 'notifications[WEBHOOK].webhookUrl';
    expect(withSecretChanges([removed], [url], { [url]: 'fp', [removed.path]: 'fp' })).toEqual([
      removed,
      { path: url, secret: true, note: 'changed' },
    ]);
  });

  it('a removed secret carries no value, only a note', () => {
    const fields = diffAlert(
      normaliseDesired({
        ...base,
        notifications: [{ typeName: 'WEBHOOK', webhookUrl: { secretRef: 's#u' }, webhookSecret: { secretRef: 's#s' } }],
      }),
      normaliseLive(live({ notifications: [{ typeName: 'WEBHOOK', webhookUrl: 'https://h/***' }] })),
    );
    expect(fields).toEqual([{ path: 'notifications[WEBHOOK].webhookSecret', secret: true, note: 'removed on live' }]);
  });

  it('only enabled differing is a toggle', () => {
    expect(onlyEnabledDiffers(diffAlert(normaliseDesired(base), normaliseLive(live({ enabled: false }))))).toBe(true);
    expect(
      normaliseDesired({
        ...base,
        notifications: [{ typeName: 'SLACK', apiToken: { secretRef: 'a#b' }, channelName: '#c' }],
      }).notifications[0]?.apiToken,
    ).toBe(SECRET);
  });
});
