// Scenario: the singleton planners called directly. A server type or rotation that differs is drift only when live
// moved since it was last applied (a desired change is pending, not drift); rotation compares only the fields git sets,
// with the product's defaults for fields live leaves unset; the manifest compares JSON values, not bytes.
import { describe, expect, it } from 'vitest';
import type { TargetRef } from '../../../lambdas/core/model.ts';
import {
  planAuditLogRotation,
  planServerType,
  planVersionManifest,
  rotationProjection,
  singletonDigest,
} from '../../../lambdas/core/plan-singletons.ts';
import type { AuditLogRotateConfig } from '../../../lambdas/opsman/types.ts';

const T: TargetRef = { type: 'project', id: '5e2211c17a3e5a48f5497d01', name: 'p' };

describe('planServerType', () => {
  it('in sync: a noop without drift, whatever the state recorded', () => {
    const c = planServerType(T, 'DEV_SERVER', { name: 'DEV_SERVER' } as never, singletonDigest('TEST_SERVER'));
    expect(c).toMatchObject({ action: 'noop', fields: [], after: 'DEV_SERVER' });
    expect(c.drift).toBeUndefined();
    expect(c).not.toHaveProperty('before');
  });

  it('git moved (live is what was applied): an update, not drift', () => {
    const c = planServerType(T, 'PRODUCTION_SERVER', { name: 'DEV_SERVER' } as never, singletonDigest('DEV_SERVER'));
    expect(c).toMatchObject({ action: 'update', before: 'DEV_SERVER', after: 'PRODUCTION_SERVER' });
    expect(c.drift).toBeUndefined();
  });

  it('live moved since it was applied: drift; unset live is "not set" and was applied as unset', () => {
    const moved = planServerType(
      T,
      'PRODUCTION_SERVER',
      { name: 'DEV_SERVER' } as never,
      singletonDigest('TEST_SERVER'),
    );
    expect(moved.drift).toEqual({ detected: true });
    const unset = planServerType(T, 'PRODUCTION_SERVER', null, singletonDigest(null));
    expect(unset).toMatchObject({ action: 'update', before: null, reason: expect.stringContaining('is not set') });
    expect(unset.drift).toBeUndefined();
  });
});

describe('planAuditLogRotation', () => {
  it("compares only git's fields, a field live leaves unset as the product's default", () => {
    const live: AuditLogRotateConfig = { sizeThresholdMB: 1000 };
    const c = planAuditLogRotation(
      T,
      { enforce: true, numUncompressed: 5, percentOfDiskspace: 0.02, numTotal: 0 },
      live,
      undefined,
    );
    expect(c).toMatchObject({ action: 'noop', fields: [] });
    const d = planAuditLogRotation(T, { enforce: true, numUncompressed: 4, numTotal: 1 }, live, undefined);
    expect(d.fields).toEqual([
      { path: 'numUncompressed', before: 5, after: 4 },
      { path: 'numTotal', before: 0, after: 1 },
    ]);
  });

  it('without enforce a difference is drift and names the way to write it; with it, an update listing unsent live members', () => {
    const live = { sizeThresholdMB: 1000, futureKnob: 3 } as AuditLogRotateConfig;
    const off = planAuditLogRotation(T, { enforce: false, sizeThresholdMB: 500 }, live, undefined);
    expect(off).toMatchObject({ action: 'drift', reason: expect.stringContaining('enforce is off') });
    expect(off.fields.map((f) => f.path)).toEqual(['sizeThresholdMB']);
    const on = planAuditLogRotation(T, { enforce: true, sizeThresholdMB: 500 }, live, undefined);
    // `before` keeps the rotation members only: a member this version does not know may hold a secret.
    expect(on).toMatchObject({ action: 'update', before: { sizeThresholdMB: 1000 }, after: { sizeThresholdMB: 500 } });
    expect(on.before).not.toHaveProperty('futureKnob');
    expect(on.fields.map((f) => f.path)).toEqual(['sizeThresholdMB', 'futureKnob']);
    expect(on.reason).toContain('futureKnob');
  });

  it('is drift only when live moved from what was applied, over the fields git set then (any one of the five)', () => {
    const live: AuditLogRotateConfig = { sizeThresholdMB: 1000, timeThresholdHrs: 24, numTotal: 7 };
    for (const field of ['sizeThresholdMB', 'numTotal'] as const) {
      const applied = singletonDigest(rotationProjection(live, { [field]: 0 }));
      // Git changed (or added a field): pending, not drift.
      const pending = planAuditLogRotation(T, { enforce: true, [field]: 1, timeThresholdHrs: 12 }, live, applied);
      expect(pending.action).toBe('update');
      expect(pending.drift).toBeUndefined();
      const moved = planAuditLogRotation(T, { enforce: true, [field]: 1 }, { ...live, [field]: 3 }, applied);
      expect(moved.drift).toEqual({ detected: true });
    }
  });
});

describe('rotation values as Ops Manager may send them', () => {
  it('a number sent as text equals the number: no difference, and no drift against the digest applied', () => {
    const live = { numTotal: '7' } as unknown as AuditLogRotateConfig;
    const c = planAuditLogRotation(T, { enforce: true, numTotal: 7 }, live, singletonDigest({ numTotal: 7 }));
    expect(c).toMatchObject({ action: 'noop', fields: [] });
    const pending = planAuditLogRotation(T, { enforce: true, numTotal: 8 }, live, singletonDigest({ numTotal: 7 }));
    expect(pending.drift).toBeUndefined();
  });

  it("a field live leaves unset was recorded as the product's default: no drift when git then changes it", () => {
    // The state of an apply that verified numTotal 0 against a live config without numTotal.
    const c = planAuditLogRotation(T, { enforce: true, numTotal: 2 }, {}, singletonDigest({ numTotal: 0 }));
    expect(c.action).toBe('update');
    expect(c.drift).toBeUndefined();
  });
});

describe('planVersionManifest', () => {
  const live = { text: '{"versions": []}', value: { versions: [] }, sha256: 'aaa' };

  it('the same JSON value in other bytes is in sync; another value is an update naming both digests', () => {
    expect(planVersionManifest(T, { path: 'm.json', text: '{"versions":[]}', sha256: 'bbb' }, live).action).toBe(
      'noop',
    );
    const c = planVersionManifest(T, { path: 'm.json', text: '{"versions":[1]}', sha256: 'ccc' }, live);
    expect(c).toMatchObject({ action: 'update', before: { sha256: 'aaa' }, after: { path: 'm.json', sha256: 'ccc' } });
  });

  it('a pin that is not JSON blocks, naming the file', () => {
    const c = planVersionManifest(T, { path: 'm.json', text: '{', sha256: 'ddd' }, live);
    expect(c).toMatchObject({ action: 'blocked', reason: 'pinned manifest m.json is not valid JSON' });
  });
});
