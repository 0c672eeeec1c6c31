// Scenario: planning one project's alert configs claims each live config once and says what it saw: a new key never
// takes a config another desired key owns (with or without ignoreFields), a blocked key still names its live config,
// a secret changed in the secrets file or replaced by hand in Ops Manager is an update (the latter drift) listed once,
// an interrupted create recovers its own landed config rather than a renamed key's, and a renamed key whose config
// differs in an ignored member keeps the live value in what the write sends.
import { describe, expect, it } from 'vitest';
import {
  buildAlertRequest,
  type DesiredAlertBody,
  secretUses,
  toDesiredAlertBody,
} from '../../../lambdas/core/alert-body.ts';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../../../lambdas/core/attribution-window.ts';
import { exportKeys } from '../../../lambdas/core/export/export-keys.ts';
import { bodyFingerprint, secretFingerprints } from '../../../lambdas/core/fingerprint.ts';
import type { DesiredAlertConfig } from '../../../lambdas/core/model.ts';
import { desiredText, textDigest } from '../../../lambdas/core/normalise.ts';
import { type AlertPlanOutput, planAlertConfigs } from '../../../lambdas/core/plan-alerts.ts';
import type { ProjectState } from '../../../lambdas/core/ports.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';
import { type AlertPlanOptions, alertPlanInput, TEST_FINGERPRINT_KEY as key } from '../../helpers/alert-plan-input.ts';

const email = (n: number) => ({ typeName: 'EMAIL', emailAddress: `a${n}@x.io`, delayMin: 0 });

function live(id: string, n: number, patch: Partial<AlertConfig> = {}): AlertConfig {
  return {
    id,
    groupId: 'g',
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    created: `2026-01-01T00:00:0${id.length}Z`,
    matchers: [],
    notifications: [email(n)],
    ...patch,
  } as unknown as AlertConfig;
}

function desired(k: string, n: number, extra: Record<string, unknown> = {}) {
  return { key: k, eventTypeName: 'HOST_DOWN', enabled: true, matchers: [], notifications: [email(n)], ...extra };
}

function plan(
  configs: Record<string, unknown>[],
  liveList: AlertConfig[],
  state: ProjectState,
  more: Pick<AlertPlanOptions, 'secrets' | 'teamProblems' | 'refreshRecords'> = {},
): AlertPlanOutput {
  return planAlertConfigs(alertPlanInput(configs, liveList, state, more));
}

const summary = (out: AlertPlanOutput) =>
  out.changes.map((c) => `${c.key}:${c.action}${c.id === undefined ? '' : `:${c.id}`}`);

describe('planAlertConfigs claims each live config once', () => {
  it('a new key equal to a config a later desired key owns creates its own, and never takes that one', () => {
    const out = plan([desired('alpha', 1), desired('zeta', 1)], [live('o1', 1)], {
      alertConfigs: { zeta: { id: 'o1' } },
    });
    expect(summary(out)).toEqual(['alpha:create', 'zeta:noop:o1']);
  });

  it('the same with ignoreFields: an owned config is no candidate for adoption when members are ignored', () => {
    const out = plan([desired('alpha', 1, { ignoreFields: ['enabled'] }), desired('zeta', 1)], [live('o1', 1)], {
      alertConfigs: { zeta: { id: 'o1' } },
    });
    // Keys with ignoreFields claim after the others, so the changes come in that order (the plan sorts them later).
    expect(summary(out).sort()).toEqual(['alpha:create', 'zeta:noop:o1']);
  });

  it('a key blocked by its team reference still names the live config it owns', () => {
    const out = plan(
      [desired('k', 2)],
      [live('o1', 1)],
      { alertConfigs: { k: { id: 'o1' } } },
      {
        teamProblems: new Map([['k', 'team "ops" is not in the organization']]),
      },
    );
    expect(summary(out)).toEqual(['k:blocked:o1']);
    expect(out.changes[0]?.reason).toBe('team "ops" is not in the organization');
  });

  it('an interrupted create adopts the config it landed, not the equal config of a key that left git', () => {
    const state = {
      alertConfigs: {
        old: { id: 'o1' },
        new: { pendingCreate: { runId: 'r1', startedAt: '2026-01-01T00:00:00Z' } },
      },
    } as ProjectState;
    const out = plan([desired('new', 1)], [live('o1', 1), live('landed', 1)], state);
    expect(summary(out)).toEqual(['new:adopt:landed', 'old:delete:o1']);
    expect(out.changes[0]?.movedFrom).toBeUndefined();
  });

  it("a renamed key's config that differs only in an ignored member keeps its live value in what is sent", () => {
    const out = plan([desired('new', 1, { ignoreFields: ['enabled'] })], [live('o1', 1, { enabled: false })], {
      alertConfigs: { old: { id: 'o1' } },
    });
    expect(summary(out)).toEqual(['new:adopt:o1']);
    expect(out.changes[0]?.movedFrom).toBe('old');
    expect((out.changes[0]?.after as DesiredAlertBody | undefined)?.enabled).toBe(false);
  });

  it('a key ignoring enabled leaves the disabled config to the key that wants it disabled, and takes the other', () => {
    // An exported project with one config disabled by hand and an equal one enabled; the on-call team is then given
    // `enabled` on the enabled one. The older (disabled) config must not go to the key that ignores `enabled`: the
    // key that declares it disabled would then find nothing and create a duplicate.
    const liveList = [
      live('o1', 1, { enabled: false, created: '2026-01-01T00:00:01Z' } as Partial<AlertConfig>),
      live('o2', 1, { created: '2026-01-01T00:00:02Z' } as Partial<AlertConfig>),
    ];
    const out = plan(
      [desired('a-oncall', 1, { ignoreFields: ['enabled'] }), desired('b-off', 1, { enabled: false })],
      liveList,
      { alertConfigs: {} },
    );
    expect(summary(out).sort()).toEqual(['a-oncall:adopt:o2', 'b-off:adopt:o1']);
  });

  it("a replacement adopted for an owned config deleted outside is drift, and names the deleted config's id", () => {
    const out = plan([desired('k', 1)], [live('n1', 1)], { alertConfigs: { k: { id: 'gone' } } });
    expect(summary(out)).toEqual(['k:adopt:n1']);
    expect(out.changes[0]?.drift).toEqual({ detected: true });
    expect(out.formerIds).toEqual(new Map([['k', 'gone']]));
    // With no equal config to adopt, it is created again: the delete outside is drift all the same.
    const recreated = plan([desired('k', 1)], [], { alertConfigs: { k: { id: 'gone' } } });
    expect(summary(recreated)).toEqual(['k:create']);
    expect(recreated.changes[0]?.drift).toEqual({ detected: true });
    expect(recreated.formerIds).toEqual(new Map([['k', 'gone']]));
  });

  it('a config made exactly the clock-skew allowance before the interrupted run started may be its late landing', () => {
    const sent = toDesiredAlertBody(desired('k', 1) as unknown as DesiredAlertConfig);
    const started = Date.parse('2026-01-01T00:10:00Z');
    const state = {
      alertConfigs: {
        k: {
          pendingCreate: {
            runId: 'r1',
            startedAt: new Date(started).toISOString(),
            desiredDigest: textDigest(desiredText(sent)),
          },
        },
      },
    } as ProjectState;
    const created = new Date(started - CLOCK_SKEW_ALLOWANCE_MS).toISOString();
    // The key's body changed since that create: its landing equals what was sent, not what is desired now.
    const out = plan([desired('k', 2)], [live('L', 1, { created })], state);
    expect(summary(out)).toEqual(['k:blocked']);
    expect(out.changes[0]?.reason).toContain('unmanaged alert config L equals what it sent');
    const earlier = new Date(started - CLOCK_SKEW_ALLOWANCE_MS - 1).toISOString();
    expect(summary(plan([desired('k', 2)], [live('L', 1, { created: earlier })], state))).toEqual(['k:create']);
  });

  it('a blocked create names only the landed configs no later key adopted (a key whose body is what the create sent)', () => {
    const sent = toDesiredAlertBody(desired('k', 1) as unknown as DesiredAlertConfig);
    const state = {
      alertConfigs: {
        k: {
          pendingCreate: {
            runId: 'r1',
            startedAt: '2026-01-01T00:00:00Z',
            desiredDigest: textDigest(desiredText(sent)),
          },
        },
      },
    } as ProjectState;
    const landed = [
      live('L1', 1, { created: '2026-01-01T00:01:00Z' }),
      live('L2', 1, { created: '2026-01-01T00:02:00Z' }),
    ];
    const out = plan([desired('k', 2), desired('z', 1)], landed, state);
    expect(summary(out)).toEqual(['k:blocked', 'z:adopt:L1']);
    expect(out.changes[0]?.reason).toContain('unmanaged alert config L2 equals what it sent');
    expect(out.changes[0]?.reason).toContain('or delete that config in Ops Manager');
  });

  it('only an apply carries the desired body on an in-sync config whose record fell behind (a plan saves no state)', () => {
    const state = { alertConfigs: { k: { id: 'o1' } } };
    const planned = plan([desired('k', 1)], [live('o1', 1)], state);
    expect(summary(planned)).toEqual(['k:noop:o1']);
    expect(planned.changes[0]?.after).toBeUndefined();
    const applying = plan([desired('k', 1)], [live('o1', 1)], state, { refreshRecords: true });
    expect(applying.changes[0]?.after).toBeDefined();
  });

  it('equal unowned configs go to the keys export gave them: -2 before -10, each the n-th created of its text', () => {
    // export numbers the configs of one event type in creation order (host-down, host-down-2, ..., host-down-11);
    // adoption hands equal ones out oldest first, so it must take the keys in that same order, digits as numbers,
    // or each key's secret references (named after the key) would go to another config.
    const ids = Array.from({ length: 11 }, (_, i) => `L${String(i + 1).padStart(2, '0')}`);
    const liveList = ids.map((id, i) =>
      live(id, 1, { created: `2026-01-01T00:00:${String(59 - i).padStart(2, '0')}Z` } as Partial<AlertConfig>),
    );
    // Created in reverse id order: L11 first. The n-th created is ids[11 - n].
    const keys = ids.map((_, i) => (i === 0 ? 'host-down' : `host-down-${i + 1}`));
    const out = plan(
      keys.map((k) => desired(k, 1)),
      liveList,
      { alertConfigs: {} },
    );
    const adopted = new Map(out.changes.map((c) => [c.key, c.id]));
    expect(keys.map((k) => adopted.get(k))).toEqual([...ids].reverse());
  });

  it('equal configs of one second are told apart by instant, as export numbers them, not by the text of created', () => {
    // Java's Instant writes a whole second without a fraction: `…44Z` comes before `…44.500Z`, which sorts first as
    // text. export (exportKeys) numbers by instant, so adoption must too, or host-down would take the second config.
    const liveList = [
      live('A', 1, { created: '2026-01-01T00:00:44.500Z' } as Partial<AlertConfig>),
      live('B', 1, { created: '2026-01-01T00:00:44Z' } as Partial<AlertConfig>),
      live('C', 1, { created: '2026-01-01T01:00:43+01:00' } as Partial<AlertConfig>),
    ];
    const exported = exportKeys(liveList);
    expect([exported.get('C'), exported.get('B'), exported.get('A')]).toEqual([
      'host-down',
      'host-down-2',
      'host-down-3',
    ]);
    const out = plan(
      ['host-down', 'host-down-2', 'host-down-3'].map((k) => desired(k, 1)),
      liveList,
      { alertConfigs: {} },
    );
    expect(new Map(out.changes.map((c) => [c.id, c.key]))).toEqual(exported);
  });

  it("reads a created without a zone as UTC, as the spec says, whatever this machine's time zone", () => {
    // A lost create's marker; its key's body changed since. A config equal to what it sent, created 2 minutes after
    // that run started (written without a zone), is its late landing: blocked, never created a second time. One
    // created 10 minutes before it (less than the skew allowance would excuse) is someone else's: the key is created.
    const sent = toDesiredAlertBody(desired('k', 1) as unknown as DesiredAlertConfig);
    const state = {
      alertConfigs: {
        k: {
          pendingCreate: {
            runId: 'r1',
            startedAt: '2026-01-01T12:00:00Z',
            desiredDigest: textDigest(desiredText(sent)),
          },
        },
      },
    } as ProjectState;
    const saved = process.env.TZ;
    try {
      for (const zone of ['Asia/Tokyo', 'America/New_York', 'Etc/UTC']) {
        process.env.TZ = zone;
        const after = plan([desired('k', 2)], [live('L', 1, { created: '2026-01-01T12:02:00' })], state);
        expect(summary(after), zone).toEqual(['k:blocked']);
        const before = plan([desired('k', 2)], [live('L', 1, { created: '2026-01-01T11:50:00' })], state);
        expect(summary(before), zone).toEqual(['k:create']);
      }
      // A created that is not a time cannot place the config before the run: it may be the landing.
      expect(summary(plan([desired('k', 2)], [live('L', 1, { created: 'yesterday' })], state))).toEqual(['k:blocked']);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});

describe('planAlertConfigs and secrets of an owned config', () => {
  const hook = { typeName: 'WEBHOOK', webhookUrl: { secretRef: 'h#url' }, webhookSecret: { secretRef: 'h#sec' } };
  const pager = { typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'pd#key' } };
  const values = (notifications: Record<string, unknown>[], refs: Record<string, string>) =>
    new Map(
      secretUses({
        eventTypeName: 'HOST_DOWN',
        enabled: true,
        matchers: [],
        notifications,
      } as unknown as DesiredAlertBody).map((u) => [u.path, refs[u.ref] as string]),
    );
  const config = (notifications: Record<string, unknown>[]) => ({
    key: 'k',
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    matchers: [],
    notifications,
  });
  const liveWith = (notifications: Record<string, unknown>[]) =>
    live('o1', 0, { notifications: notifications as unknown as AlertConfig['notifications'] });

  it("a config's one secret changed in the secrets file is an update naming it", () => {
    const applied = values([pager], { 'pd#key': 'key-one-1234' });
    const now = values([pager], { 'pd#key': 'key-two-5678' });
    const out = plan(
      [config([pager])],
      // PAGER_DUTY echoes no intervalMin (the reference: it must not be set for that type).
      [liveWith([{ typeName: 'PAGER_DUTY', delayMin: 0, serviceKey: '****' }])],
      { alertConfigs: { k: { id: 'o1', secretFingerprints: secretFingerprints(key, applied) } } },
      { secrets: new Map([['k', { ok: true, values: now }]]) },
    );
    expect(summary(out)).toEqual(['k:update:o1']);
    expect(out.changes[0]?.fields.map((f) => `${f.path} ${f.note}`)).toEqual([
      'notifications[PAGER_DUTY].serviceKey changed',
    ]);
  });

  const refs = { 'h#url': 'https://hooks.example.invalid/a', 'h#sec': 'secret-1' };
  const replacedByHand = [
    {
      typeName: 'WEBHOOK',
      delayMin: 0,
      intervalMin: 60,
      webhookUrl: 'https://elsewhere.example.invalid/****',
      webhookSecret: '****',
    },
  ];

  it('a webhook URL replaced by hand in Ops Manager is an update marked as drift', () => {
    const v = values([hook], refs);
    const out = plan(
      [config([hook])],
      [liveWith(replacedByHand)],
      { alertConfigs: { k: { id: 'o1', secretFingerprints: secretFingerprints(key, v) } } },
      { secrets: new Map([['k', { ok: true, values: v }]]) },
    );
    expect(summary(out)).toEqual(['k:update:o1']);
    expect(out.changes[0]?.fields.map((f) => `${f.path} ${f.note}`)).toEqual([
      'notifications[WEBHOOK].webhookUrl changed on live',
    ]);
    expect(out.changes[0]?.drift).toEqual({ detected: true });
  });

  it('a webhook URL changed in the secrets file and replaced by hand is listed once, as the change it is', () => {
    const applied = values([hook], refs);
    const now = values([hook], { ...refs, 'h#url': 'https://hooks.example.invalid/b' });
    const out = plan(
      [config([hook])],
      [liveWith(replacedByHand)],
      { alertConfigs: { k: { id: 'o1', secretFingerprints: secretFingerprints(key, applied) } } },
      { secrets: new Map([['k', { ok: true, values: now }]]) },
    );
    expect(out.changes[0]?.fields.map((f) => `${f.path} ${f.note}`)).toEqual([
      'notifications[WEBHOOK].webhookUrl changed',
    ]);
  });

  it('two keys renamed at once, their configs equal but for a secret, each moves to the config its old key sent', () => {
    // Two PagerDuty alerts equal but for their secrets; both keys renamed in one commit (old-first -> zz-first,
    // old-second -> aa-second). aa-second claims first: it must take the config whose old record proves its request
    // (its secret) was sent there, not the first equal one of the keys that left git (old-first's), which would
    // re-send both secrets, swapped, and say each adoption replaces a working secret.
    const pd = (ref: string) => ({ typeName: 'PAGER_DUTY', serviceKey: { secretRef: ref } });
    const liveList = [
      live('o1', 0, {
        created: '2026-01-01T00:00:01Z',
        notifications: [{ typeName: 'PAGER_DUTY', delayMin: 0, serviceKey: '********0002' }],
      } as unknown as Partial<AlertConfig>),
      live('o2', 0, {
        created: '2026-01-01T00:00:02Z',
        notifications: [{ typeName: 'PAGER_DUTY', delayMin: 0, serviceKey: '********0001' }],
      } as unknown as Partial<AlertConfig>),
    ];
    const first = values([pd('pd#1')], { 'pd#1': 'service-0001' });
    const second = values([pd('pd#2')], { 'pd#2': 'service-0002' });
    const sent = (k: string, ref: string, v: Map<string, string>) =>
      bodyFingerprint(key, buildAlertRequest(toDesiredAlertBody({ ...config([pd(ref)]), key: k } as never), v));
    const out = plan(
      [
        { ...config([pd('pd#2')]), key: 'aa-second' },
        { ...config([pd('pd#1')]), key: 'zz-first' },
      ],
      liveList,
      {
        alertConfigs: {
          'old-first': { id: 'o2', fingerprint: sent('old-first', 'pd#1', first) },
          'old-second': { id: 'o1', fingerprint: sent('old-second', 'pd#2', second) },
        },
      },
      {
        secrets: new Map([
          ['aa-second', { ok: true, values: second }],
          ['zz-first', { ok: true, values: first }],
        ]),
      },
    );
    expect(summary(out)).toEqual(['aa-second:adopt:o1', 'zz-first:adopt:o2']);
    expect(out.changes.map((c) => c.movedFrom)).toEqual(['old-second', 'old-first']);
    // Each request is proven sent to its config: apply writes nothing (apply-alerts.ts), and the plan says so
    // instead of listing every secret as "will be sent on adoption".
    for (const change of out.changes) {
      expect(change.fields).toEqual([]);
      expect(change.reason).toContain('was the last one sent to it: nothing is written');
    }
  });

  // One PagerDuty alert renamed from `old` to `new`: its config o1, with `patch` on live, and the record of `old`
  // holding the fingerprint of the request `sentBody` (default: the desired one) sent with `sentValue`.
  const pdRef = { typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'pd#k' } };
  const fingerprintOf = (body: Record<string, unknown>, v: Map<string, string>) =>
    bodyFingerprint(key, buildAlertRequest(toDesiredAlertBody({ ...body, key: 'x' } as never), v));
  function renamedPd(
    patch: Record<string, unknown>,
    options: { mask?: string; desiredExtra?: Record<string, unknown>; sentBody?: Record<string, unknown> } = {},
  ) {
    const v = values([pdRef], { 'pd#k': 'service-0001' });
    const desiredBody = { ...config([pdRef]), ...options.desiredExtra };
    const liveConfig = live('o1', 0, {
      notifications: [{ typeName: 'PAGER_DUTY', delayMin: 0, serviceKey: options.mask ?? '********0001' }],
      ...patch,
    } as unknown as Partial<AlertConfig>);
    return plan(
      [{ ...desiredBody, key: 'new' }],
      [liveConfig],
      { alertConfigs: { old: { id: 'o1', fingerprint: fingerprintOf(options.sentBody ?? desiredBody, v) } } },
      { secrets: new Map([['new', { ok: true, values: v }]]) },
    );
  }

  it('a proven rename whose redacted secret shows an edit made in Ops Manager says it re-sends it', () => {
    const out = renamedPd({}, { mask: '********9999' });
    expect(summary(out)).toEqual(['new:adopt:o1']);
    expect(out.changes[0]?.fields.map((f) => `${f.path} ${f.note}`)).toEqual([
      'notifications[PAGER_DUTY].serviceKey changed',
    ]);
    expect(out.changes[0]?.reason).not.toContain('nothing is written');
  });

  it('a proven rename writes nothing, so it lists no member a newer Ops Manager holds as unsent', () => {
    const out = renamedPd({ severityOverride: 'WARNING' });
    expect(out.changes[0]?.fields).toEqual([]);
    expect(out.changes[0]?.reason).toContain('nothing is written');
    expect(out.changes[0]?.reason).not.toContain('severityOverride');
  });

  it('a proven rename of a key ignoring enabled compares what it sent with the live enabled, not the desired one', () => {
    // Sent disabled (the on-call team's value, kept by ignoreFields); the YAML says enabled.
    const out = renamedPd(
      { enabled: false },
      { desiredExtra: { ignoreFields: ['enabled'] }, sentBody: { ...config([pdRef]), enabled: false } },
    );
    expect(out.changes[0]?.reason).toContain('nothing is written');
  });

  it('keys ignoring enabled renamed at once each find the config their old record sent, whatever its enabled', () => {
    // o1 was sent disabled (the value the on-call team holds) by old-second; o2 enabled by old-first.
    const pd = (ref: string) => ({ typeName: 'PAGER_DUTY', serviceKey: { secretRef: ref } });
    const first = values([pd('pd#1')], { 'pd#1': 'service-0001' });
    const second = values([pd('pd#2')], { 'pd#2': 'service-0002' });
    const ignoring = (ref: string, k: string) => ({ ...config([pd(ref)]), key: k, ignoreFields: ['enabled'] });
    const out = plan(
      [ignoring('pd#2', 'aa-second'), ignoring('pd#1', 'zz-first')],
      [
        live('o1', 0, {
          enabled: false,
          notifications: [{ typeName: 'PAGER_DUTY', delayMin: 0, serviceKey: '********0002' }],
        } as unknown as Partial<AlertConfig>),
        live('o2', 0, {
          notifications: [{ typeName: 'PAGER_DUTY', delayMin: 0, serviceKey: '********0001' }],
        } as unknown as Partial<AlertConfig>),
      ],
      {
        alertConfigs: {
          'old-first': { id: 'o2', fingerprint: fingerprintOf(config([pd('pd#1')]), first) },
          'old-second': { id: 'o1', fingerprint: fingerprintOf({ ...config([pd('pd#2')]), enabled: false }, second) },
        },
      },
      {
        secrets: new Map([
          ['aa-second', { ok: true, values: second }],
          ['zz-first', { ok: true, values: first }],
        ]),
      },
    );
    expect(summary(out)).toEqual(['aa-second:adopt:o1', 'zz-first:adopt:o2']);
  });

  it('a rename without secrets never claims to have proven any', () => {
    const out = plan([desired('new', 1)], [live('o1', 1)], {
      alertConfigs: { old: { id: 'o1', fingerprint: fingerprintOf(desired('x', 1), new Map()) } },
    });
    expect(summary(out)).toEqual(['new:adopt:o1']);
    expect(out.changes[0]?.reason).not.toContain('secrets included');
  });

  it('adopting an unowned config whose one redacted secret shows other characters says it replaces that secret', () => {
    const v = values([hook], refs);
    const out = plan(
      [config([hook])],
      [liveWith(replacedByHand)],
      { alertConfigs: {} },
      {
        secrets: new Map([['k', { ok: true, values: v }]]),
      },
    );
    expect(summary(out)).toEqual(['k:adopt:o1']);
    expect(out.changes[0]?.reason).toContain(
      '1 of its secrets cannot be the one Ops Manager holds (the characters its redaction shows differ): adopting it replaces that secret',
    );
  });
});
