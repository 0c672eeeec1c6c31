// Scenario: the written-out secret fingerprints equal the generic canonical-JSON HMACs they stand for, a project's live digest is order-free and equal exactly when the ids, normal forms and singletons are, and planning with precomputed live views and texts equals planning without.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, hmacOf } from '../../../lambdas/core/canonical.ts';
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
  it('is the same for the same answers in any order, and with precomputed live views (property)', () => {
    fc.assert(
      fc.property(liveProject, fc.nat(), (live, seed) => {
        const digest = projectLiveDigest(live);
        expect(projectLiveDigest(live, live.alertConfigs.map(liveView))).toBe(digest);
        const rotated = [...live.alertConfigs];
        for (let i = 0; i < seed % 5 && rotated.length > 0; i++) rotated.push(rotated.shift() as AlertConfig);
        expect(projectLiveDigest({ ...live, alertConfigs: rotated.reverse() })).toBe(digest);
      }),
      { numRuns: 300 },
    );
  });

  it('two projects have one digest exactly when their (id, normal form) pairs and singletons are equal (property)', () => {
    const identity = (live: LiveProject): string =>
      JSON.stringify([
        live.alertConfigs.map((c) => `${c.id} ${liveView(c).text}`).sort(),
        live.defaultServerType === undefined ? 'absent' : (live.defaultServerType?.name ?? null),
        live.auditLogRotation === undefined ? 'absent' : canonicalJson(live.auditLogRotation),
      ]);
    fc.assert(
      fc.property(liveProject, liveProject, (a, b) => {
        expect(projectLiveDigest(a) === projectLiveDigest(b)).toBe(identity(a) === identity(b));
      }),
      { numRuns: 500 },
    );
  });

  it('moves with a normalised field, an id or a singleton; not with fields the normal form drops', () => {
    const base: LiveProject = {
      alertConfigs: [alert('1', 1), alert('2', 2)],
      defaultServerType: { name: 'DEV_SERVER' },
    };
    const digest = projectLiveDigest(base);
    const edited = (patch: Record<string, unknown>): LiveProject => ({
      ...base,
      alertConfigs: [{ ...(base.alertConfigs[0] as AlertConfig), ...patch }, base.alertConfigs[1] as AlertConfig],
    });
    for (const patch of [{ enabled: false }, { id: '3' }, { eventTypeName: 'OPLOG_BEHIND' }]) {
      expect(projectLiveDigest(edited(patch))).not.toBe(digest);
    }
    expect(projectLiveDigest(edited({ updated: '2026-01-01T00:00:00Z', links: [] }))).toBe(digest);
    expect(projectLiveDigest({ ...base, alertConfigs: [base.alertConfigs[0] as AlertConfig] })).not.toBe(digest);
    expect(projectLiveDigest({ ...base, defaultServerType: null })).not.toBe(digest);
    expect(projectLiveDigest({ ...base, defaultServerType: undefined })).not.toBe(digest);
    expect(
      projectLiveDigest({ ...base, auditLogRotation: { numTotal: 1 } as LiveProject['auditLogRotation'] }),
    ).not.toBe(digest);
  });

  it('a null default server type is part of the digest', () => {
    expect(projectLiveDigest({ alertConfigs: [], defaultServerType: null })).not.toBe(
      projectLiveDigest({ alertConfigs: [] }),
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
      release: [],
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

  it('asks a live view for its digest only when the config differs (the digest is a sha256 per config)', () => {
    const live = [alert('1', 1), alert('2', 2)];
    const asked: string[] = [];
    const views = live.map((c) => {
      const view = liveView(c);
      return {
        get text() {
          return view.text;
        },
        get normal() {
          return view.normal;
        },
        get digest() {
          asked.push(c.id);
          return view.digest;
        },
      };
    });
    const desired = (n: number, enabled: boolean) => ({
      key: `k${n}`,
      eventTypeName: n % 2 === 0 ? 'HOST_DOWN' : 'NO_PRIMARY',
      enabled,
      matchers: [],
      notifications: [{ typeName: 'EMAIL', emailAddress: `a${n}@x.io`, delayMin: n }],
    });
    const out = planAlertConfigs({
      target: { type: 'project', id: 'g', name: 'p' },
      // Config 1 equals its live config; config 2 is enabled live and wanted disabled.
      project: {
        name: 'p',
        projectId: 'g',
        release: [],
        alertConfigs: [desired(1, true), desired(2, false)],
      } as never,
      live,
      views,
      state: { alertConfigs: { k1: { id: '1', appliedDigest: 'x' }, k2: { id: '2', appliedDigest: 'x' } } },
      secrets: new Map(),
      teamProblems: new Map(),
      fingerprintKey: key,
    });
    expect(out.changes.map((c) => `${c.key}:${c.action}`)).toEqual(['k1:noop', 'k2:disable']);
    expect(out.changes[1]?.drift).toEqual({ detected: true });
    expect(asked).toEqual(['2']);
  });
});
