// Scenario: an alert config whose ignoreFields name members a person changed in Ops Manager plans noop (or an update
// of the other fields only, sending the live values), never enable/disable, adopts a config equal except in those,
// reports no drift for them, keeps the non-convergence guard, and verification does not flag them.
import { describe, expect, it } from 'vitest';
import { type DesiredAlertBody, toDesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import type { IgnorableField } from '../../../lambdas/core/desired/enums.ts';
import { fightWayOut } from '../../../lambdas/core/fight-notice.ts';
import { appliedDigestOf, withLiveIgnored } from '../../../lambdas/core/ignore-fields.ts';
import type { Change, ChangeResult, DesiredAlertConfig, DesiredProject } from '../../../lambdas/core/model.ts';
import { desiredText } from '../../../lambdas/core/normalise.ts';
import { type AlertPlanOutput, desiredIdentity, planAlertConfigs } from '../../../lambdas/core/plan-alerts.ts';
import type { OwnedAlertConfig } from '../../../lambdas/core/ports.ts';
import { confirmEcho } from '../../../lambdas/core/verify.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const fingerprintKey = new Uint8Array(32).fill(3);
const target = { type: 'project' as const, id: 'g1', name: 'p' };

/** The desired entry the cases start from: a metric alert, on, threshold 10, one e-mail. */
function entry(patch: Partial<DesiredAlertConfig> = {}): DesiredAlertConfig {
  return {
    key: 'cpu',
    eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
    enabled: true,
    matchers: [{ fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'db1' }],
    metricThreshold: { metricName: 'ASSERT_REGULAR', operator: 'GREATER_THAN', threshold: 10, units: 'RAW' },
    notifications: [{ typeName: 'EMAIL', emailAddress: 'ops@example.com', intervalMin: 5, delayMin: 0 }],
    source: { file: 'p.yaml', line: 1, column: 1 },
    ...patch,
  } as DesiredAlertConfig;
}

/** A live config as Ops Manager returns `body` (id `id`), then changed by `patch` (a person's edit). */
function liveOf(body: DesiredAlertBody, id: string, patch: Partial<AlertConfig> = {}): AlertConfig {
  return {
    id,
    groupId: 'g1',
    created: `2026-01-0${id}T00:00:00Z`,
    updated: '2026-01-01T00:00:00Z',
    links: [],
    eventTypeName: body.eventTypeName,
    enabled: body.enabled,
    matchers: structuredClone(body.matchers),
    ...(body.metricThreshold === undefined ? {} : { metricThreshold: { ...body.metricThreshold, mode: 'AVERAGE' } }),
    notifications: structuredClone(body.notifications) as unknown as AlertConfig['notifications'],
    ...patch,
  } as AlertConfig;
}

/** The state record of a write of `body` (its appliedDigest as apply computes it). */
function recordOf(body: DesiredAlertBody, id: string): OwnedAlertConfig {
  const record: OwnedAlertConfig = { id, appliedDigest: appliedDigestOf(body, desiredText(body)) };
  if (body.ignoreFields !== undefined) record.ignoredFields = [...body.ignoreFields].sort();
  return record;
}

function plan(
  configs: DesiredAlertConfig[],
  live: AlertConfig[],
  owned: Record<string, OwnedAlertConfig>,
): AlertPlanOutput {
  const project = { name: 'p', projectId: 'g1', prune: false, protect: [], release: [], alertConfigs: configs };
  return planAlertConfigs({
    target,
    project: project as unknown as DesiredProject,
    live,
    state: { alertConfigs: owned },
    secrets: new Map(),
    teamProblems: new Map(),
    fingerprintKey,
  });
}

const disabled: Partial<AlertConfig> = { enabled: false };
const raised: Partial<AlertConfig> = {
  metricThreshold: {
    metricName: 'ASSERT_REGULAR',
    operator: 'GREATER_THAN',
    threshold: 50,
    units: 'RAW',
    mode: 'AVERAGE',
  },
};
const otherHost: Partial<AlertConfig> = { matchers: [{ fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'db9' }] };

interface Case {
  name: string;
  /** ignoreFields of the desired entry (the state was written with them too). */
  ignore?: IgnorableField[];
  /** The desired entry's change since the last apply. */
  desired?: Partial<DesiredAlertConfig>;
  /** A person's edit of the live config since the last apply. */
  human: Partial<AlertConfig>;
  action: string;
  fields: string[];
  /** Members of the plan's `after` (what a full PUT sends), when it has one. */
  after?: Partial<DesiredAlertBody>;
  drift?: boolean;
}

const cases: Case[] = [
  {
    name: 'control: disabled by hand, not ignored',
    human: disabled,
    action: 'enable',
    fields: ['enabled'],
    drift: true,
  },
  { name: 'disabled by hand, enabled ignored', ignore: ['enabled'], human: disabled, action: 'noop', fields: [] },
  {
    name: 'desired off, live on, enabled ignored: never disabled',
    ignore: ['enabled'],
    desired: { enabled: false },
    human: {},
    action: 'noop',
    fields: [],
  },
  {
    name: 'control: threshold tuned by hand, not ignored',
    human: raised,
    action: 'update',
    fields: ['metricThreshold.threshold'],
    drift: true,
  },
  {
    name: 'threshold tuned, metricThreshold ignored',
    ignore: ['metricThreshold'],
    human: raised,
    action: 'noop',
    fields: [],
  },
  { name: 'matchers changed, matchers ignored', ignore: ['matchers'], human: otherHost, action: 'noop', fields: [] },
  {
    name: 'disabled by hand and threshold changed in git: update keeps enabled off, no drift',
    ignore: ['enabled'],
    desired: {
      metricThreshold: { metricName: 'ASSERT_REGULAR', operator: 'GREATER_THAN', threshold: 20, units: 'RAW' },
    },
    human: disabled,
    action: 'update',
    fields: ['metricThreshold.threshold'],
    after: { enabled: false },
  },
  {
    name: 'threshold tuned by hand and e-mail interval changed in git: update sends the live threshold',
    ignore: ['metricThreshold', 'enabled'],
    desired: { notifications: [{ typeName: 'EMAIL', emailAddress: 'ops@example.com', intervalMin: 10, delayMin: 0 }] },
    human: { ...raised, ...disabled },
    action: 'update',
    fields: ['notifications[EMAIL:ops@example.com].intervalMin'],
    after: { enabled: false, metricThreshold: raised.metricThreshold as DesiredAlertBody['metricThreshold'] },
  },
  {
    name: 'an edit of a member not ignored is still drift',
    ignore: ['enabled'],
    human: { ...disabled, ...otherHost },
    action: 'update',
    fields: ['matchers'],
    after: { enabled: false },
    drift: true,
  },
];

describe('planning with ignoreFields', () => {
  for (const c of cases) {
    it(c.name, () => {
      const applied = toDesiredAlertBody(entry(c.ignore === undefined ? {} : { ignoreFields: c.ignore }));
      const live = liveOf(applied, '1', c.human);
      const config = entry({ ...c.desired, ...(c.ignore === undefined ? {} : { ignoreFields: c.ignore }) });
      const out = plan([config], [live], { cpu: recordOf(applied, '1') });
      const change = out.changes[0];
      expect(out.changes).toHaveLength(1);
      expect(change?.action).toBe(c.action);
      expect(change?.fields.map((f) => f.path)).toEqual(c.fields);
      expect(change?.drift?.detected === true).toBe(c.drift === true);
      if (c.action === 'noop') expect(change?.after).toBeUndefined();
      if (c.after !== undefined) expect(change?.after).toMatchObject(c.after);
    });
  }

  it('the first plan after ignoreFields is added to a config written without it leaves the ignored edit alone', () => {
    const applied = toDesiredAlertBody(entry());
    const out = plan([entry({ ignoreFields: ['enabled'] })], [liveOf(applied, '1', disabled)], {
      cpu: recordOf(applied, '1'),
    });
    expect(out.changes.map((c) => c.action)).toEqual(['noop']);
  });

  // The record written before ignoreFields was added has no ignoredFields: its appliedDigest holds enabled as then
  // written. A person's edit of the now ignored member is still no drift when git changes another field.
  const written = toDesiredAlertBody(entry());
  const later = entry({
    ignoreFields: ['enabled'],
    notifications: [{ typeName: 'EMAIL', emailAddress: 'ops@example.com', intervalMin: 10, delayMin: 0 }],
  });
  it('ignoreFields added since the last write: an edit of the ignored member is no drift on the next update', () => {
    const out = plan([later], [liveOf(written, '1', disabled)], { cpu: recordOf(written, '1') });
    expect(out.changes.map((c) => c.action)).toEqual(['update']);
    expect(out.changes[0]?.fields.map((f) => f.path)).toEqual(['notifications[EMAIL:ops@example.com].intervalMin']);
    expect(out.changes[0]?.after).toMatchObject({ enabled: false });
    expect(out.changes[0]?.drift).toBeUndefined();
  });

  it('ignoreFields added since the last write: an edit of a member still managed stays drift', () => {
    const out = plan([later], [liveOf(written, '1', { ...disabled, ...otherHost })], { cpu: recordOf(written, '1') });
    expect(out.changes[0]?.action).toBe('update');
    expect(out.changes[0]?.fields.map((f) => f.path)).toEqual([
      'matchers',
      'notifications[EMAIL:ops@example.com].intervalMin',
    ]);
    expect(out.changes[0]?.drift?.detected).toBe(true);
  });
});

describe('adoption with ignoreFields', () => {
  const ignoring = entry({ ignoreFields: ['enabled', 'metricThreshold'] });
  const body = toDesiredAlertBody(entry());

  it('adopts an unowned config equal except in ignored members, keeping its values', () => {
    const out = plan([ignoring], [liveOf(body, '1', { ...disabled, ...raised })], {});
    const change = out.changes[0];
    expect(change?.action).toBe('adopt');
    expect(change?.id).toBe('1');
    expect(change?.after).toMatchObject({ enabled: false, metricThreshold: { threshold: 50 } });
    expect(change?.reason).toBe(
      'unowned live config 1 equals the desired one in every non-secret field except the ignored enabled, metricThreshold',
    );
    expect(out.unmanaged).toEqual([]);
  });

  it('control: without ignoreFields it creates a second config', () => {
    const out = plan([entry()], [liveOf(body, '1', disabled)], {});
    expect(out.changes.map((c) => c.action)).toEqual(['create']);
    expect(out.unmanaged.map((u) => u.id)).toEqual(['1']);
  });

  // What an OUTSIDE_METRIC_THRESHOLD alert measures is its identity: a tuned threshold is the same alert, another
  // metric is another alert, even with metricThreshold ignored.
  const otherMetric: Partial<AlertConfig> = {
    metricThreshold: {
      metricName: 'CONNECTIONS',
      operator: 'GREATER_THAN',
      threshold: 10,
      units: 'RAW',
      mode: 'AVERAGE',
    },
  };
  it('does not adopt, move a renamed key onto, or recover a create as a config of another metric', () => {
    expect(plan([ignoring], [liveOf(body, '1', otherMetric)], {}).changes.map((c) => c.action)).toEqual(['create']);
    const renamed = plan([{ ...ignoring, key: 'cpu-renamed' }], [liveOf(body, '1', otherMetric)], {
      cpu: recordOf(body, '1'),
    });
    expect(renamed.changes.map((c) => `${c.key}:${c.action}`)).toEqual(['cpu-renamed:create', 'cpu:delete']);
    const pending = plan([ignoring], [liveOf(body, '1', otherMetric)], {
      cpu: { pendingCreate: { runId: 'r1', startedAt: '2026-01-01T00:00:00Z' } },
    });
    expect(pending.changes.map((c) => c.action)).toEqual(['create']);
  });

  it('does not adopt one that differs in a member not ignored', () => {
    const out = plan([ignoring], [liveOf(body, '1', { ...disabled, ...otherHost })], {});
    expect(out.changes.map((c) => c.action)).toEqual(['create']);
  });

  it('moves a renamed key onto its config differing only in ignored members', () => {
    const live = liveOf(body, '1', raised);
    const out = plan([{ ...ignoring, key: 'cpu-renamed' }], [live], { cpu: recordOf(body, '1') });
    expect(out.changes.map((c) => `${c.key}:${c.action}:${c.movedFrom ?? ''}`)).toEqual(['cpu-renamed:adopt:cpu']);
  });

  it('recovers an interrupted create whose config a person disabled since', () => {
    const out = plan([ignoring], [liveOf(body, '1', disabled)], {
      cpu: { pendingCreate: { runId: 'r1', startedAt: '2026-01-01T00:00:00Z' } },
    });
    expect(out.changes.map((c) => `${c.action}:${c.id}`)).toEqual(['adopt:1']);
  });

  it('an interrupted create adopts the one config equal in every field among several equal except in ignored ones', () => {
    // 1: made by hand before, disabled; 2: what the interrupted POST created (as without ignoreFields).
    const out = plan([ignoring], [liveOf(body, '1', disabled), liveOf(body, '2')], {
      cpu: { pendingCreate: { runId: 'r1', startedAt: '2026-01-01T00:00:00Z' } },
    });
    expect(out.changes.map((c) => `${c.action}:${c.id}`)).toEqual(['adopt:2']);
    expect(out.unmanaged.map((u) => u.id)).toEqual(['1']);
  });

  // ClaimIndex.all drops every claimed candidate, not only those at the front of the group: here the newer of two
  // candidates was claimed first (adopted by another key equal to it in every field), the older one stays unclaimed.
  it('an interrupted create does not count a config another key adopted in the same plan among its matches', () => {
    const hand = entry({
      key: 'a-hand',
      metricThreshold: { metricName: 'ASSERT_REGULAR', operator: 'GREATER_THAN', threshold: 50, units: 'RAW' },
    });
    const out = plan([hand, ignoring], [liveOf(body, '1', disabled), liveOf(body, '2', raised)], {
      cpu: { pendingCreate: { runId: 'r1', startedAt: '2026-01-01T00:00:00Z' } },
    });
    expect(out.changes.map((c) => `${c.key}:${c.action}:${c.id}`).sort()).toEqual(['a-hand:adopt:2', 'cpu:adopt:1']);
  });

  it('adopts the oldest of several configs equal except in ignored members, whatever order they are listed in', () => {
    const out = plan([ignoring], [liveOf(body, '2', disabled), liveOf(body, '1', raised)], {});
    expect(out.changes.map((c) => `${c.action}:${c.id}`)).toEqual(['adopt:1']);
  });

  // One index per ignoreFields list: a key ignoring fewer members must not match through a list it does not name.
  it('matches each key under its own ignoreFields list, not the list of a key planned before it', () => {
    const fewer = entry({
      key: 'a-fewer',
      ignoreFields: ['enabled'],
      notifications: [{ typeName: 'EMAIL', emailAddress: 'dba@example.com', intervalMin: 5, delayMin: 0 }],
    });
    const out = plan([fewer, ignoring], [liveOf(body, '1', raised)], {});
    expect(out.changes.map((c) => `${c.key}:${c.action}:${c.id ?? ''}`)).toEqual(['a-fewer:create:', 'cpu:adopt:1']);
  });

  it('an interrupted create with two such configs blocks', () => {
    const out = plan([ignoring], [liveOf(body, '1', disabled), liveOf(body, '2', raised)], {
      cpu: { pendingCreate: { runId: 'r1', startedAt: '2026-01-01T00:00:00Z' } },
    });
    expect(out.changes.map((c) => c.action)).toEqual(['blocked']);
  });
});

describe('non-convergence and verification with ignoreFields', () => {
  it('a person editing an ignored member does not re-arm the guard', () => {
    const config = entry({
      ignoreFields: ['enabled'],
      notifications: [{ typeName: 'EMAIL', emailAddress: 'new@example.com', intervalMin: 5, delayMin: 0 }],
    });
    const applied = toDesiredAlertBody(entry({ ignoreFields: ['enabled'] }));
    // The guard was set by a write that sent enabled on (the live value then).
    const written = withLiveIgnored(toDesiredAlertBody(config), liveOf(applied, '1'));
    const record: OwnedAlertConfig = {
      ...recordOf(applied, '1'),
      notConverging: {
        desiredDigest: desiredIdentity(fingerprintKey, written, new Map()),
        since: '2026-01-01T00:00:00Z',
        fields: ['notifications[EMAIL].emailAddress'],
      },
    };
    const out = plan([config], [liveOf(applied, '1', disabled)], { cpu: record });
    expect(out.changes.map((c) => c.action)).toEqual(['blocked']);
  });

  it('an echo differing only in an ignored member confirms the write; one differing elsewhere does not', () => {
    const body = toDesiredAlertBody(entry({ ignoreFields: ['enabled'] }));
    const change = {
      target,
      kind: 'alertConfig' as const,
      key: 'cpu',
      id: '1',
      action: 'update' as const,
      after: body,
    };
    const result = { change, status: 'applied', id: '1' } as unknown as ChangeResult;
    expect(confirmEcho(result, { response: liveOf(body, '1', disabled) })).toBe(true);
    expect(confirmEcho(result, { response: liveOf(body, '1', otherHost) })).toBe(false);
  });
});

describe('the update-fight way out names ignoreFields for the members fought over', () => {
  const fought = (kind: Change['kind'], fields: string[]): Change => ({
    target,
    kind,
    key: 'cpu',
    action: 'update',
    fields: [],
    reason: 'differs',
    drift: { detected: true, fight: { runs: 3, since: '2026-01-01T00:00:00Z', actors: [], fields } },
  });
  const cases: [Change['kind'], string[], string | undefined][] = [
    ['alertConfig', ['enabled'], 'add ignoreFields: [enabled] to alert config "cpu"; or give it one owner'],
    [
      'alertConfig',
      [
        'metricThreshold.threshold',
        'notifications[EMAIL:ops@example.com].intervalMin',
        'enabled',
        'metricThreshold.units',
      ],
      'to leave metricThreshold, enabled to the other writer and keep managing the rest, add ignoreFields: [metricThreshold, enabled]',
    ],
    ['alertConfig', ['notifications[EMAIL:ops@example.com].intervalMin'], undefined],
    ['alertConfig', [], undefined],
    ['auditLogRotation', ['enabled'], undefined],
  ];
  for (const [kind, fields, want] of cases) {
    it(`${kind} fought over in ${fields.join(', ') || 'unknown fields'}`, () => {
      const text = fightWayOut(fought(kind, fields));
      if (want === undefined) {
        expect(text).not.toContain('ignoreFields');
        expect(text).toMatch(/^give it one owner/);
      } else expect(text).toContain(want);
    });
  }

  it('a config that ignores members already is told the whole list, not one that would drop them', () => {
    const change = { ...fought('alertConfig', ['metricThreshold.threshold']) };
    change.after = toDesiredAlertBody(entry({ ignoreFields: ['enabled'] }));
    expect(fightWayOut(change)).toContain(
      'to leave metricThreshold to the other writer and keep managing the rest, add metricThreshold to the ignoreFields of alert config "cpu" (ignoreFields: [enabled, metricThreshold]); or give it one owner',
    );
  });
});
