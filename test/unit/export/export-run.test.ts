// Scenario: a project export skips, by id and with the reason, each config the YAML cannot express (an unknown event
// type, a field the loader refuses, a TEAM without an organization or whose team is gone), keeps the others' keys, and
// gives the same bytes whatever order the live list has.
import { describe, expect, it } from 'vitest';
import { exportProject, type ProjectLiveRead } from '../../../lambdas/core/export/export-run.ts';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import { OpsManagerApiError } from '../../../lambdas/opsman/errors.ts';
import type { AlertConfig, ServerTypeName } from '../../../lambdas/opsman/types.ts';

const P = '5e2211c17a3e5a48f5497de3';
const ORG = '5e2211c17a3e5a48f5497de0';

function config(id: string, created: string, body: Record<string, unknown>): AlertConfig {
  return {
    id,
    groupId: P,
    created,
    updated: created,
    links: [],
    enabled: true,
    matchers: [],
    notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
    ...body,
  } as unknown as AlertConfig;
}

const CONFIGS: AlertConfig[] = [
  config('c1', '2026-01-01T00:00:00Z', { eventTypeName: 'HOST_DOWN' }),
  config('c2', '2026-01-02T00:00:00Z', { eventTypeName: 'MADE_UP_EVENT' }),
  config('c3', '2026-01-03T00:00:00Z', { eventTypeName: 'HOST_DOWN' }),
  config('c4', '2026-01-04T00:00:00Z', {
    eventTypeName: 'NO_PRIMARY',
    notifications: [{ typeName: 'EMAIL', emailAddress: 'not-an-address' }],
  }),
  config('c5', '2026-01-05T00:00:00Z', {
    eventTypeName: 'HOST_RESTARTED',
    notifications: [{ typeName: 'TEAM', teamId: '6a1f00000000000000000009' }],
  }),
];

function read(configs: AlertConfig[] = CONFIGS, singletons: ProjectLiveRead['singletons'] = {}): ProjectLiveRead {
  return { projectId: P, alertConfigs: configs, singletons };
}

/** Only getTeam is called by an export; every team is missing. */
const NO_TEAMS = {
  getTeam: async () => {
    throw new OpsManagerApiError(404, 'TEAM_NOT_FOUND', 'no team', {
      method: 'GET',
      pathTemplate: '/orgs/{orgId}/teams/{teamId}',
    });
  },
} as unknown as OpsManagerApi; // a partial fake: the other methods are never reached

describe('exportProject', () => {
  it('skips what the format cannot express by id and reason, and keeps the other keys', async () => {
    const result = await exportProject(read());
    expect(result.configs).toHaveLength(2);
    expect(result.text).toContain('key: host-down\n');
    expect(result.text).toContain('key: host-down-2\n');
    expect(result.skipped.map((s) => [s.id, s.key])).toEqual([
      ['c5', 'host-restarted'],
      ['c2', 'made-up-event'],
      ['c4', 'no-primary'],
    ]);
    const reasons = Object.fromEntries(result.skipped.map((s) => [s.id, s.reason]));
    expect(reasons.c2).toBe('event type "MADE_UP_EVENT" is not one of the 109 event types the desired state knows');
    expect(reasons.c4).toContain('emailAddress');
    expect(reasons.c4).not.toContain('spec.alertConfigs');
    expect(reasons.c5).toContain('--org');
  });

  it('skips a TEAM config whose team does not exist in the given organization', async () => {
    const result = await exportProject(read(), { orgId: ORG, api: NO_TEAMS });
    expect(result.text).toContain(`orgId: ${ORG}`);
    expect(result.skipped.find((s) => s.id === 'c5')?.reason).toBe(
      `team 6a1f00000000000000000009 does not exist in organization ${ORG} (TEAM_NOT_FOUND): fix the teamId, or the organization id if the project belongs to another organization (metadata.orgId; export's --org, one organization per export)`,
    );
    expect(result.configs).toHaveLength(2);
  });

  it('gives byte-identical text whatever order the live list has', async () => {
    const first = await exportProject(read());
    const second = await exportProject(read([...CONFIGS].reverse()));
    expect(second.text).toBe(first.text);
  });

  it('exports the singletons, and says why one is left out', async () => {
    const result = await exportProject(
      read(CONFIGS.slice(0, 1), { defaultServerType: { name: 'TEST_SERVER' }, auditLogRotation: { numTotal: 4 } }),
    );
    expect(result.text).toContain('defaultServerType: TEST_SERVER');
    expect(result.text).not.toContain('auditLogRotation');
    expect(result.warnings).toEqual([
      "audit-log rotation not exported: Ops Manager's rotation config has no sizeThresholdMB or timeThresholdHrs, which the desired state requires",
    ]);
  });

  it('exports a project without alert configs as a Project that loads', async () => {
    const result = await exportProject(read([], { defaultServerType: null }));
    expect(result.configs).toHaveLength(0);
    expect(result.text).toContain('alertConfigs: []');
  });

  it('skips, naming the member, a config that would load as something else than the live one (plan would copy it)', async () => {
    // A hostile or odd answer: `enabled` as text. It loads (the entry simply has no `enabled`), but as enabled: true.
    const odd = config('c6', '2026-01-06T00:00:00Z', { eventTypeName: 'NO_PRIMARY', enabled: 'false' });
    const result = await exportProject(read([CONFIGS[0] as AlertConfig, odd]));
    expect(result.configs).toHaveLength(1);
    expect(result.text).not.toContain('no-primary');
    expect(result.skipped).toEqual([
      {
        id: 'c6',
        key: 'no-primary',
        reason:
          'its YAML would not read back as the live config (enabled would differ: Ops Manager holds a value the desired state cannot express exactly), so plan would create a copy instead of adopting it',
      },
    ]);
  });

  it.each([undefined, null])(
    'skips a config whose notifications are %s by reason, instead of crashing',
    async (none) => {
      const bare = config('c7', '2026-01-07T00:00:00Z', { eventTypeName: 'HOST_DOWN', notifications: none });
      for (const orgId of [undefined, ORG]) {
        const result = await exportProject(read([bare]), orgId === undefined ? {} : { orgId, api: NO_TEAMS });
        expect(result.configs).toHaveLength(0);
        expect(result.skipped.map((s) => [s.id, s.key])).toEqual([['c7', 'host-down']]);
        expect(result.skipped[0]?.reason).toContain('notifications');
      }
    },
  );

  it('keeps free text with spaces at its ends, and leaves out by reason a value ending with a line break', async () => {
    const spaced = config('c8', '2026-01-08T00:00:00Z', {
      eventTypeName: 'NO_PRIMARY',
      matchers: [{ fieldName: 'REPLICA_SET_NAME', operator: 'EQUALS', value: ' rs0 ' }],
    });
    const broken = config('c9', '2026-01-09T00:00:00Z', {
      eventTypeName: 'HOST_DOWN',
      matchers: [{ fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'db1\n' }],
    });
    const result = await exportProject(read([spaced, broken]));
    expect(result.configs.map((c) => c.id)).toEqual(['c8']);
    expect(result.text).toContain('value: " rs0 "');
    expect(result.skipped.map((s) => [s.id, s.reason])).toEqual([
      [
        'c9',
        expect.stringContaining('matchers[0].value must be the value the operator tests, not ending with a line break'),
      ],
    ]);
    // The live value was never a block scalar: no hint about one.
    expect(result.skipped[0]?.reason).not.toContain('block scalar');
  });

  it('refuses a list that names one id twice, saying to export again', async () => {
    const twice = [CONFIGS[0], { ...CONFIGS[2], id: 'c1' }] as AlertConfig[];
    await expect(exportProject(read(twice))).rejects.toMatchObject({
      code: 'LIVE_MALFORMED',
      message: `GET /groups/${P}/alertConfigs listed alert config c1 twice (a list that changed while it was read gives that, and may also leave a config out): export again`,
    });
  });

  it('leaves out a singleton whose live value this version does not know, naming the value without a did-you-mean', async () => {
    // A newer Ops Manager's server type: the nearest known name would set another type, not correct a typo.
    const result = await exportProject(
      read(CONFIGS.slice(0, 1), { defaultServerType: { name: 'TEST_SERVERS' as ServerTypeName } }),
    );
    expect(result.text).not.toContain('defaultServerType');
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/^defaultServerType not exported: .*found "TEST_SERVERS"$/);
    expect(result.warnings[0]).not.toContain('did you mean');
  });

  it('keeps a did-you-mean that is not the end of the message whole (a threshold member of the wrong kind)', async () => {
    const swapped = config('c10', '2026-01-10T00:00:00Z', {
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      threshold: { operator: 'GREATER_THAN', threshold: 5, units: 'RAW' },
    });
    const result = await exportProject(read([swapped]));
    expect(result.skipped.map((s) => [s.id, s.reason])).toEqual([
      [
        'c10',
        'event type OUTSIDE_METRIC_THRESHOLD takes metricThreshold, not threshold; did you mean "metricThreshold"? (it names the metric: metricName, operator, threshold, units)',
      ],
    ]);
  });
});
