// Scenario: a key with no live config is created, but an unmanaged config of its event type made by hand with a field
// or two off (disabled, another interval) sits beside it: the create's reason names that config and the fields that
// kept it from being adopted, so the user can make the YAML equal it before a second alert exists. Configs of another
// type, configs owned or adopted by a key, ignored members and configs differing in many fields give no note, and no
// secret value is ever shown.
import { describe, expect, it } from 'vitest';
import {
  NEAR_MISS_BUDGET,
  NEAR_MISS_CANDIDATES,
  NEAR_MISS_MAX_FIELDS,
  NearMissFinder,
} from '../../../lambdas/core/near-miss.ts';
import { liveView, normaliseDesired } from '../../../lambdas/core/normalise.ts';
import { type AlertPlanOutput, planAlertConfigs, type ResolvedSecrets } from '../../../lambdas/core/plan-alerts.ts';
import type { ProjectState } from '../../../lambdas/core/ports.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';
import { alertPlanInput } from '../../helpers/alert-plan-input.ts';

const group = (interval = 60) => ({ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: interval, delayMin: 0 });

function live(id: string, patch: Record<string, unknown> = {}): AlertConfig {
  return {
    id,
    groupId: 'g',
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    created: '2026-01-01T00:00:00Z',
    matchers: [],
    notifications: [group()],
    ...patch,
  } as unknown as AlertConfig;
}

function desired(key: string, extra: Record<string, unknown> = {}) {
  return { key, eventTypeName: 'HOST_DOWN', enabled: true, matchers: [], notifications: [group()], ...extra };
}

function plan(
  configs: Record<string, unknown>[],
  liveList: AlertConfig[],
  state: ProjectState = { alertConfigs: {} },
  secrets = new Map<string, ResolvedSecrets>(),
): AlertPlanOutput {
  return planAlertConfigs(alertPlanInput(configs, liveList, state, { prune: false, secrets }));
}

const reasonOf = (out: AlertPlanOutput, key: string) => out.changes.find((c) => c.key === key)?.reason;

describe('a create names the unmanaged config of its type that it nearly equals', () => {
  it('a config disabled by hand: named with the one field, and still listed as unmanaged', () => {
    const out = plan([desired('host-down')], [live('c1', { enabled: false })]);
    expect(out.changes.map((c) => c.action)).toEqual(['create']);
    expect(reasonOf(out, 'host-down')).toBe(
      'not in Ops Manager; unmanaged HOST_DOWN config c1 differs only in enabled (YAML equal to it would adopt it, not add a second)',
    );
    expect(out.unmanaged.map((u) => u.id)).toEqual(['c1']);
  });

  it('of several, the one differing in the fewest fields; on a tie the lower id', () => {
    const twoOff = live('a1', { enabled: false, notifications: [group(5)] });
    const oneOffHigh = live('b9', { notifications: [group(15)] });
    const oneOffLow = live('b2', { enabled: false });
    const out = plan([desired('host-down')], [twoOff, oneOffHigh, oneOffLow]);
    expect(reasonOf(out, 'host-down')).toContain('config b2 differs only in enabled (');
    const tie = plan([desired('host-down')], [oneOffHigh, live('b5', { notifications: [group(30)] })]);
    expect(tie.changes[0]?.reason).toContain('config b5 differs only in notifications[GROUP].intervalMin (');
  });

  it('names up to three differing fields; a config differing in more is another alert, not a near miss', () => {
    const three = live('c1', { enabled: false, notifications: [{ ...group(5), delayMin: 10 }] });
    expect(reasonOf(plan([desired('host-down')], [three]), 'host-down')).toContain(
      'differs only in enabled, notifications[GROUP].delayMin, notifications[GROUP].intervalMin (',
    );
    const four = live('c1', {
      enabled: false,
      notifications: [{ ...group(5), delayMin: 10, roles: ['GROUP_READ_ONLY'] }],
    });
    expect(NEAR_MISS_MAX_FIELDS).toBe(3);
    expect(reasonOf(plan([desired('host-down')], [four]), 'host-down')).toBe('not in Ops Manager');
  });

  it('another event type, an owned config and one another key adopts are no candidates', () => {
    const otherType = live('t1', { eventTypeName: 'NO_PRIMARY', enabled: false });
    expect(reasonOf(plan([desired('host-down')], [otherType]), 'host-down')).toBe('not in Ops Manager');
    // 'owned' keeps its config (disabled by hand: an enable), 'new' has nothing to adopt.
    const owned = plan([desired('new'), desired('owned')], [live('o1', { enabled: false })], {
      alertConfigs: { owned: { id: 'o1' } },
    });
    expect(owned.changes.map((c) => `${c.key}:${c.action}`)).toEqual(['new:create', 'owned:enable']);
    expect(reasonOf(owned, 'new')).toBe('not in Ops Manager');
    // 'a-equal' adopts the equal config; 'b-new' (interval 5) could have been it, but it is taken.
    const adopted = plan([desired('a-equal'), desired('b-new', { notifications: [group(5)] })], [live('e1')]);
    expect(adopted.changes.map((c) => `${c.key}:${c.action}`)).toEqual(['a-equal:adopt', 'b-new:create']);
    expect(reasonOf(adopted, 'b-new')).toBe('not in Ops Manager');
  });

  it('an ignored member is not named, and a config differing only there is adopted, not noted', () => {
    const out = plan(
      [desired('host-down', { ignoreFields: ['enabled'], notifications: [group(5)] })],
      [live('c1', { enabled: false })],
    );
    expect(reasonOf(out, 'host-down')).toBe(
      'not in Ops Manager; unmanaged HOST_DOWN config c1 differs only in notifications[GROUP].intervalMin (YAML equal to it would adopt it, not add a second)',
    );
    const same = plan([desired('host-down', { ignoreFields: ['enabled'] })], [live('c1', { enabled: false })]);
    expect(same.changes.map((c) => c.action)).toEqual(['adopt']);
  });

  it('a secret value is never shown: a replaced one is no difference, a missing one is named by its path', () => {
    const secret = 'hunter2-super-secret-token';
    const slack = (channelName: string, apiToken?: unknown) => ({
      typeName: 'SLACK',
      channelName,
      ...(apiToken === undefined ? {} : { apiToken }),
    });
    const secrets = new Map<string, ResolvedSecrets>([
      ['host-down', { ok: true, values: new Map([['notifications[SLACK:#ops].apiToken', secret]]) }],
    ]);
    const wanted = [desired('host-down', { notifications: [slack('#ops', { secretRef: 's#token' })] })];
    const replaced = plan(
      wanted,
      [live('c1', { enabled: false, notifications: [slack('#ops', '*****************xyz')] })],
      {
        alertConfigs: {},
      },
      secrets,
    );
    expect(reasonOf(replaced, 'host-down')).toContain('config c1 differs only in enabled (');
    const missing = plan(
      wanted,
      [live('c1', { enabled: false, notifications: [slack('#ops')] })],
      { alertConfigs: {} },
      secrets,
    );
    expect(reasonOf(missing, 'host-down')).toContain(
      'config c1 differs only in enabled, notifications[SLACK:#ops].apiToken (',
    );
    expect(JSON.stringify([replaced, missing])).not.toContain(secret);
  });
});

describe('NearMissFinder bounds its work', () => {
  const desiredNormal = normaliseDesired(desired('k') as never);
  const candidate = (id: string, enabled: boolean) => {
    const config = live(id, { enabled });
    let reads = 0;
    return {
      config,
      normal: () => {
        reads++;
        return liveView(config).normal;
      },
      reads: () => reads,
    };
  };

  it(`compares at most ${NEAR_MISS_CANDIDATES} configs of one type, the lowest ids`, () => {
    const all = Array.from({ length: NEAR_MISS_CANDIDATES + 5 }, (_, i) =>
      candidate(`c${String(i).padStart(3, '0')}`, i !== NEAR_MISS_CANDIDATES + 2),
    );
    const finder = new NearMissFinder([...all].reverse());
    // The only near miss sorts past the first NEAR_MISS_CANDIDATES ids: it is not looked at.
    expect(finder.noteFor(desiredNormal)).toBeUndefined();
    expect(all.filter((c) => c.reads() > 0).map((c) => c.config.id)).toEqual(
      all.slice(0, NEAR_MISS_CANDIDATES).map((c) => c.config.id),
    );
  });

  it('stops comparing once the project budget is spent, and says it covers nothing more', () => {
    const near = candidate('c1', false);
    const finder = new NearMissFinder([near], 2);
    expect(finder.covers('HOST_DOWN')).toBe(true);
    expect(finder.covers('NO_PRIMARY')).toBe(false);
    expect(finder.noteFor(desiredNormal)).toContain('config c1');
    expect(finder.noteFor(desiredNormal)).toContain('config c1');
    expect(finder.covers('HOST_DOWN')).toBe(false);
    expect(finder.noteFor(desiredNormal)).toBeUndefined();
    expect(NEAR_MISS_BUDGET).toBeGreaterThanOrEqual(NEAR_MISS_CANDIDATES);
  });
});
