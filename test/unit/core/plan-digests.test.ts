// Scenario: the written-out digests of planning (secret fingerprints, a project's live digest) equal the generic canonical-JSON digests they stand for, and planning with precomputed live views equals planning without.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestOf, hmacOf } from '../../../lambdas/core/canonical.ts';
import {
  changedSecretPaths,
  type FingerprintCache,
  secretFingerprint,
  secretFingerprints,
} from '../../../lambdas/core/fingerprint.ts';
import type { DesiredProject } from '../../../lambdas/core/model.ts';
import { liveView } from '../../../lambdas/core/normalise.ts';
import { planAlertConfigs } from '../../../lambdas/core/plan-alerts.ts';
import { type LiveProject, projectLiveDigest } from '../../../lambdas/core/read-live.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const key = new Uint8Array(32).fill(7);
const text = fc.string({ unit: 'binary', maxLength: 12 });

describe('secret fingerprints', () => {
  it('equal the HMAC of the canonical JSON of { path, value } (property)', () => {
    const cache: FingerprintCache = new Map();
    fc.assert(
      fc.property(text, text, (path, value) => {
        const reference = hmacOf(key, { value, path });
        expect(secretFingerprint(key, path, value)).toBe(reference);
        // Through the cache, first computed then remembered, the same fingerprint.
        expect(secretFingerprint(key, path, value, cache)).toBe(reference);
        expect(secretFingerprint(key, path, value, cache)).toBe(reference);
      }),
      { numRuns: 300 },
    );
  });

  it('a cache returns the same fingerprints and computes each distinct path and value once', () => {
    const cache: FingerprintCache = new Map();
    const pairs: [string, string][] = [
      ['notifications[SLACK:#ops].apiToken', 't1'],
      ['notifications[SLACK:#ops].apiToken', 't1'],
      ['notifications[SLACK:#ops].apiToken', 't2'],
      ['notifications[PAGER_DUTY].serviceKey', 't1'],
    ];
    for (const [path, value] of pairs) {
      expect(secretFingerprint(key, path, value, cache)).toBe(secretFingerprint(key, path, value));
    }
    expect([...cache.values()].reduce((n, byValue) => n + byValue.size, 0)).toBe(3);
    const values = new Map([['a.x', '1']]);
    expect(changedSecretPaths(key, values, { 'a.x': 'stale' }, cache)).toEqual(['a.x']);
    expect(changedSecretPaths(key, values, secretFingerprints(key, values), cache)).toEqual([]);
  });

  const cases: { name: string; stored: Record<string, string> | undefined; want: string[] }[] = [
    { name: 'no record: every path', stored: undefined, want: ['a.x', 'b.y'] },
    {
      name: 'same fingerprints: none',
      stored: secretFingerprints(
        key,
        new Map([
          ['a.x', '1'],
          ['b.y', '2'],
        ]),
      ),
      want: [],
    },
    {
      name: 'one changed',
      stored: { ...secretFingerprints(key, new Map([['a.x', '1']])), 'b.y': 'old' },
      want: ['b.y'],
    },
  ];
  for (const c of cases) {
    it(`changedSecretPaths: ${c.name}`, () => {
      const values = new Map([
        ['b.y', '2'],
        ['a.x', '1'],
      ]);
      expect(changedSecretPaths(key, values, c.stored)).toEqual(c.want);
    });
  }
});

const alert = (id: string, n: number): AlertConfig =>
  ({
    id,
    groupId: 'g',
    eventTypeName: n % 2 === 0 ? 'HOST_DOWN' : 'NO_PRIMARY',
    enabled: n % 3 !== 0,
    matchers: [],
    notifications: [{ typeName: 'EMAIL', emailAddress: `a${n}@x.io`, delayMin: n }],
  }) as unknown as AlertConfig;

const liveProject: fc.Arbitrary<LiveProject> = fc.record(
  {
    alertConfigs: fc.array(
      fc.tuple(fc.string({ unit: 'binary', maxLength: 6 }), fc.nat(9)).map(([id, n]) => alert(id, n)),
      { maxLength: 8 },
    ),
    defaultServerType: fc.option(fc.record({ name: fc.constantFrom('DEV_SERVER', 'TEST_SERVER') }), { nil: undefined }),
    auditLogRotation: fc.option(fc.record({ numTotal: fc.nat(9), percentOfDiskspace: fc.double() }), {
      nil: undefined,
    }),
  },
  { requiredKeys: ['alertConfigs'] },
) as fc.Arbitrary<LiveProject>;

describe('project live digest', () => {
  it('equals the digest of { alerts, defaultServerType, auditLogRotation } (property)', () => {
    fc.assert(
      fc.property(liveProject, (live) => {
        const alerts = live.alertConfigs.map((c) => `${c.id}:${liveView(c).digest}`).sort();
        const defaultServerType =
          live.defaultServerType === undefined ? undefined : (live.defaultServerType?.name ?? null);
        const reference = digestOf({ alerts, defaultServerType, auditLogRotation: live.auditLogRotation });
        expect(projectLiveDigest(live)).toBe(reference);
        expect(projectLiveDigest(live, live.alertConfigs.map(liveView))).toBe(reference);
      }),
      { numRuns: 300 },
    );
  });

  it('a null default server type is part of the digest', () => {
    expect(projectLiveDigest({ alertConfigs: [], defaultServerType: null })).toBe(
      digestOf({ alerts: [], defaultServerType: null }),
    );
  });
});

describe('planAlertConfigs with precomputed views', () => {
  it('plans exactly as without them', () => {
    const live = [alert('1', 1), alert('2', 2), alert('3', 3)];
    const project = {
      name: 'p',
      projectId: 'g',
      prune: false,
      protect: [],
      alertConfigs: [
        {
          key: 'b',
          eventTypeName: 'HOST_DOWN',
          enabled: true,
          matchers: [],
          notifications: [{ typeName: 'EMAIL', emailAddress: 'a2@x.io', delayMin: 2 }],
        },
        { key: 'a', eventTypeName: 'NO_PRIMARY', enabled: true, matchers: [], notifications: [] },
      ],
    } as unknown as DesiredProject;
    const input = {
      target: { type: 'project' as const, id: 'g', name: 'p' },
      project,
      live,
      state: { alertConfigs: { a: { id: '1' }, gone: { id: '3' } } },
      secrets: new Map(),
      teamProblems: new Map(),
      fingerprintKey: key,
    };
    const without = planAlertConfigs(input);
    const withViews = planAlertConfigs({ ...input, views: live.map(liveView) });
    expect(withViews).toEqual(without);
    expect(without.changes.map((c) => `${c.key}:${c.action}`)).toEqual(['a:update', 'b:adopt', 'gone:delete']);
  });
});
